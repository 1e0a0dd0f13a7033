// The regions as vector layers, coloured by kind as in the SVG maps: plants and albums are
// circles (Point + radius_m), areas polygons with their holes. Tapping one opens its details.
// They are drawn on one canvas (Leaflet's canvas renderer): thousands of regions are thousands
// of paths on it, not of SVG elements in the page.
import { el } from "./dom.js";
import { clock, days, metres } from "./format.js";
import { goButton } from "./go.js";
import { dueText, isDue, regionById, whereText } from "./regions.js";
import { regionTarget } from "./target.js";

const COLOURS = {
  reforestation: { fillColor: "#3a9e4f", color: "#1f6b32" },
  plant: { fillColor: "#3b7dd8", color: "#1f4f99" },
  album: { fillColor: "#f08c1a", color: "#b25f00" },
};

const drawn = new Map(); // id → {layer, geometry, radius, shape, style}: what it was drawn from
let renderer = null;

/** The one canvas the regions are drawn on (made at the first use: Leaflet must be loaded). */
function canvas() {
  if (!renderer) renderer = L.canvas({ padding: 0.3, tolerance: 3 });
  return renderer;
}

/** The same outline: the same objects, or (a new answer) the same text. */
function sameShape(entry, r) {
  if (entry.geometry === r.geometry && entry.radius === r.radius_m) return true;
  const shape = JSON.stringify([r.geometry, r.radius_m]);
  if (entry.shape === undefined) entry.shape = JSON.stringify([entry.geometry, entry.radius]);
  return entry.shape === shape;
}

export function drawnIds() {
  return [...drawn.keys()];
}

/** The layer drawn for a region, or undefined. */
export function layerOf(id) {
  const entry = drawn.get(id);
  return entry && entry.layer;
}

/** Brings `group` in line with `regions`: new ones added, changed ones redrawn, gone ones removed. */
export function drawRegions(group, regions) {
  const ids = new Set(regions.map((r) => r.id));
  for (const [id, { layer }] of drawn) {
    if (!ids.has(id)) {
      group.removeLayer(layer);
      drawn.delete(id);
    }
  }
  let added = 0;
  for (const r of regions) {
    let entry = drawn.get(r.id);
    if (entry && !sameShape(entry, r)) {
      group.removeLayer(entry.layer);
      drawn.delete(r.id);
      entry = null;
    }
    if (!entry) {
      const layer = makeLayer(r);
      if (!layer) continue;
      entry = { layer, geometry: r.geometry, radius: r.radius_m, style: "" };
      layer.bindPopup(() => details(regionById(r.id) || r), { maxWidth: 260 });
      group.addLayer(layer);
      drawn.set(r.id, entry);
      added += 1;
    }
    // Kept up to date: the newest answer's geometry object (so the next compare is by identity).
    entry.geometry = r.geometry;
    const s = style(r), key = `${s.weight}${s.dashArray}`;
    if (entry.style !== key) {
      entry.layer.setStyle(s);
      entry.style = key;
    }
    if (entry.layer.isPopupOpen()) entry.layer.getPopup().update(); // its content is worked out again
  }
  return added;
}

function makeLayer(r) {
  const g = r.geometry;
  if (!g) return null;
  if (g.type === "Point") {
    const [lon, lat] = g.coordinates;
    return L.circle([lat, lon], { radius: r.radius_m || 1, renderer: canvas() });
  }
  return L.geoJSON(g, { renderer: canvas() });
}

function style(r) {
  const colours = COLOURS[r.kind] || COLOURS.reforestation;
  return {
    ...colours,
    weight: r.inside ? 4 : 2,
    fillOpacity: r.kind === "reforestation" ? 0.2 : 0.3,
    // A plant that needs water is outlined with dashes.
    dashArray: r.kind === "plant" && isDue(r) ? "6 4" : null,
  };
}

/** The popup: name, kind, id, layer, distance, and what the kind adds. */
function details(r) {
  const lines = [
    `${r.kind} · ${r.id} · ${r.layer} layer`,
    whereText(r),
  ];
  if (r.kind === "plant") {
    if (r.species) lines.push(r.species);
    lines.push(`${dueText(r)} · every ${days(r.interval_days)}`);
    lines.push(r.last_watered ? `last watered ${clock(r.last_watered)}` : "never watered");
  } else if (r.kind === "album") {
    lines.push(`radius ${metres(r.radius_m)} · capture ${r.inside ? "allowed" : "locked"}`);
  } else if (r.kind === "reforestation") {
    lines.push(r.species && r.species.length ? `species: ${r.species.join(", ")}` : "any species");
  }
  return el("div", { class: "region-popup" },
    el("strong", { text: r.name || r.id }),
    ...lines.map((text) => el("div", { text })),
    goButton(() => regionTarget(regionById(r.id) || r)));
}
