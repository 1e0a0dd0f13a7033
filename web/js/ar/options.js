// The AR options (kept in localStorage) and the layout query they make with the stage's size.
import { byId } from "../dom.js";

const KEY = "treeline.ar.options";
// The box the projector stacks before the page has measured the boxes' texts; then each box is
// sent with its own size (`sizes`), no wider than this (its name on two lines where needed).
export const BOX = [240, 56];
export const DEFAULTS = { maxDistance: 0, maxLevels: null, clamp: false, projection: "linear", hfov: 60 };

export function loadOptions() {
  let saved = {};
  try {
    saved = JSON.parse(localStorage.getItem(KEY) || "{}") || {};
  } catch {
    saved = {};
  }
  return clean({ ...DEFAULTS, ...saved });
}

export function saveOptions(options) {
  try {
    localStorage.setItem(KEY, JSON.stringify(options));
  } catch {
    // private mode: the options last as long as the page
  }
}

/** Numbers where numbers belong, defaults for what makes no sense. */
export function clean(o) {
  const maxDistance = Number(o.maxDistance);
  const levels = o.maxLevels === "" || o.maxLevels === null || o.maxLevels === undefined ? null : Math.floor(Number(o.maxLevels));
  const hfov = Number(o.hfov);
  return {
    maxDistance: Number.isFinite(maxDistance) && maxDistance > 0 ? maxDistance : 0,
    maxLevels: Number.isFinite(levels) && levels >= 0 ? levels : null,
    clamp: Boolean(o.clamp),
    projection: o.projection === "pinhole" ? "pinhole" : "linear",
    hfov: Number.isFinite(hfov) && hfov >= 5 && hfov <= 170 ? hfov : DEFAULTS.hfov,
  };
}

/** The vertical field of view for the stage's aspect, rounded as it is sent (2 decimals). */
export function verticalFov(hfov, width, height) {
  const v = 2 * Math.atan(Math.tan(hfov / 2 * Math.PI / 180) * height / width) * 180 / Math.PI;
  return Math.round(v * 100) / 100;
}

/** The camera the query asks for, and the query; `sizes` {id: [w, h]}: the boxes' own sizes. */
export function layoutQuery(options, width, height, sizes = null) {
  const fov = [options.hfov, verticalFov(options.hfov, width, height)];
  let query = `screen=${width},${height}&fov=${fov[0]},${fov[1]}&box=${BOX[0]},${BOX[1]}`;
  const sized = sizes && Object.keys(sizes).length > 0;
  if (sized) {
    const sorted = Object.fromEntries(Object.keys(sizes).sort().map((id) => [id, sizes[id]]));
    query += `&sizes=${encodeURIComponent(JSON.stringify(sorted))}`;
  }
  if (options.projection !== "linear") query += `&projection=${options.projection}`;
  if (options.maxDistance > 0) query += `&max_distance=${options.maxDistance}`;
  if (options.maxLevels !== null) query += `&max_levels=${options.maxLevels}`;
  if (options.clamp) query += "&clamp=1";
  return { query, sizes: sized ? sizes : null, camera: { screen: [width, height], fov, box: BOX.slice(), projection: options.projection } };
}

/** The panel's form: filled from `options`, `onChange(options)` when the user changes one. */
export function setupOptionsPanel(options, onChange) {
  const panel = byId("ar-options");
  const button = byId("ar-gear");
  const fields = {
    maxDistance: byId("ar-opt-distance"),
    maxLevels: byId("ar-opt-levels"),
    clamp: byId("ar-opt-clamp"),
    projection: byId("ar-opt-projection"),
    hfov: byId("ar-opt-hfov"),
  };
  const show = (open) => {
    panel.hidden = !open;
    button.setAttribute("aria-expanded", String(open));
    document.body.classList.toggle("ar-options-open", open);
  };
  button.addEventListener("click", () => show(panel.hidden));
  byId("ar-opt-close").addEventListener("click", () => show(false));
  const read = () => clean({
    maxDistance: fields.maxDistance.value,
    maxLevels: fields.maxLevels.value,
    clamp: fields.clamp.checked,
    projection: fields.projection.value,
    hfov: fields.hfov.value,
  });
  for (const f of Object.values(fields)) f.addEventListener("change", () => onChange(read()));
  byId("ar-options-form").addEventListener("submit", (e) => {
    e.preventDefault();
    onChange(read());
    show(false);
  });
  return {
    fill(o) {
      fields.maxDistance.value = String(o.maxDistance);
      fields.maxLevels.value = o.maxLevels === null ? "" : String(o.maxLevels);
      fields.clamp.checked = o.clamp;
      fields.projection.value = o.projection;
      fields.hfov.value = String(o.hfov);
    },
  };
}
