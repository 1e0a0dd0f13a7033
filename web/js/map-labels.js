// Region names on the map, from zoom 16 on (fewer is clutter), never over one another: placed
// greedily by priority (the target, plants due, albums, areas, the other plants; nearer first
// within each), each tried below its circle, above, right and left (an area's at its
// centroid), then in the middle of the part of it on the screen (an area you stand in, its
// centroid far off), and dropped when it would cover a label already placed, the position or a
// control.
// Placed again when the map stops moving or zooming and when the regions change. Drawn with a
// white halo that keeps them readable over any map or orthophoto; hidden from screen readers
// (aria-hidden): the popups and the lists carry the names.
import { el } from "./dom.js";
import { centre } from "./geo.js";
import { hooks } from "./hooks.js";
import { isDue } from "./regions.js";

export const LABEL_ZOOM = 16;
const GAP = 6;            // px kept between a label and anything else (two labels never read as one)
const EDGE = 4;           // px kept from the map's sides

let map = null;
let pane = null;
let regions = [];
let position = null;
let targetId = null;
const labels = new Map(); // id → {node, text, w, h, theme}
let shown = [];           // [{id, x, y, w, h}] in the map's container pixels
let pending = false;

export function setupLabels(leafletMap) {
  map = leafletMap;
  pane = map.createPane("labels");
  pane.style.zIndex = 450; // over the regions (400), under markers (600) and the position (650)
  pane.style.pointerEvents = "none";
  pane.setAttribute("aria-hidden", "true");
  map.on("zoomstart", () => pane.classList.add("moving"));
  map.on("moveend zoomend resize", schedule);
  // The theme changes the labels' weight: measured again.
  new MutationObserver(schedule).observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
  hooks.mapLabels = () => shown.map((s) => {
    const r = labels.get(s.id).node.getBoundingClientRect();
    return { id: s.id, text: labels.get(s.id).text, left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  });
}

/** The regions (REGIONS with geometry), the position ({lat, lon}) and the target's region id. */
export function updateLabels(next) {
  if (next.regions) regions = next.regions;
  if (next.position !== undefined) position = next.position;
  if (next.targetId !== undefined) targetId = next.targetId;
  schedule();
}

function schedule() {
  if (pending || !map) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    place();
  });
}

/** Lower first: the target, plants due, albums, areas, other plants. */
function tier(r) {
  if (r.id === targetId) return 0;
  if (r.kind === "plant") return isDue(r) ? 1 : 4;
  if (r.kind === "album") return 2;
  return 3;
}

/** Nearer first: inside (distance_m positive) before outside. */
function nearness(r) {
  return typeof r.distance_m === "number" ? -r.distance_m : Infinity;
}

function place() {
  pane.classList.remove("moving");
  const size = map.getSize();
  shown = [];
  const used = new Set();
  if (map.getZoom() >= LABEL_ZOOM && size.x > 0) {
    const taken = obstacles();
    const order = regions.filter((r) => r.geometry).sort((a, b) => tier(a) - tier(b) || nearness(a) - nearness(b) || a.id.localeCompare(b.id));
    for (const r of order) {
      const spot = fit(r, size, taken);
      if (!spot) continue;
      taken.push(spot);
      shown.push({ id: r.id, ...spot });
      used.add(r.id);
      const node = labels.get(r.id).node;
      L.DomUtil.setPosition(node, map.containerPointToLayerPoint([spot.x, spot.y]));
      node.hidden = false;
    }
  }
  for (const [id, l] of labels) {
    if (!used.has(id)) l.node.hidden = true;
    if (!regions.some((r) => r.id === id)) {
      l.node.remove();
      labels.delete(id);
    }
  }
}

/** The first of the label's places that is on the map and free: {x, y, w, h}, or null. */
function fit(r, size, taken) {
  const l = label(r);
  const { w, h } = l;
  const candidates = [];
  if (r.geometry.type === "Point") {
    const [lon, lat] = r.geometry.coordinates;
    const c = map.latLngToContainerPoint([lat, lon]);
    // The circle's radius on the screen (its top is radius_m north of the centre).
    const top = map.latLngToContainerPoint([lat + (r.radius_m || 0) / 111320, lon]);
    const rad = Math.max(6, c.y - top.y);
    candidates.push([c.x - w / 2, c.y + rad + GAP], [c.x - w / 2, c.y - rad - GAP - h],
      [c.x + rad + GAP, c.y - h / 2], [c.x - rad - GAP - w, c.y - h / 2], [c.x - w / 2, c.y - h / 2]);
  } else {
    const m = centre(r.geometry);
    if (!m) return null;
    const c = map.latLngToContainerPoint([m.lat, m.lon]);
    candidates.push([c.x - w / 2, c.y - h / 2], [c.x - w / 2, c.y + GAP], [c.x - w / 2, c.y - h - GAP]);
  }
  // The part on the screen: its middle, else a little above, below or beside it (the middle
  // of an area filling the screen is where the walker is).
  const middle = visibleMiddle(r, size);
  if (middle) {
    const dy = h / 2 + 28, dx = w / 2 + 28;
    for (const [ox, oy] of [[0, 0], [0, -dy], [0, dy], [-dx, 0], [dx, 0], [0, -2 * dy], [0, 2 * dy]]) {
      const at = { x: middle.x + ox, y: middle.y + oy };
      if (!inside(at, middle.ring)) continue;
      // A region at the screen's side: its label slid in, still over the part shown.
      const x = Math.min(Math.max(at.x - w / 2, EDGE), size.x - EDGE - w);
      const y = Math.min(Math.max(at.y - h / 2, EDGE), size.y - EDGE - h);
      if (x <= at.x && at.x <= x + w && y <= at.y && at.y <= y + h) candidates.push([x, y]);
    }
  }
  for (const [x, y] of candidates) {
    const box = { x: Math.round(x), y: Math.round(y), w, h };
    if (box.x < EDGE || box.y < EDGE || box.x + w > size.x - EDGE || box.y + h > size.y - EDGE) continue;
    if (!taken.some((t) => overlaps(box, t))) return box;
  }
  return null;
}

/** The region's outline in the map's pixels: a polygon's outer rings, a circle as 32 sides. */
function outlines(r) {
  const g = r.geometry;
  if (g.type === "Point") {
    const [lon, lat] = g.coordinates;
    const c = map.latLngToContainerPoint([lat, lon]);
    const rad = c.y - map.latLngToContainerPoint([lat + (r.radius_m || 0) / 111320, lon]).y;
    if (!(rad > 0)) return [];
    return [Array.from({ length: 32 }, (_, k) => [c.x + rad * Math.cos(k * Math.PI / 16), c.y + rad * Math.sin(k * Math.PI / 16)])];
  }
  const parts = g.type === "Polygon" ? [g.coordinates] : g.type === "MultiPolygon" ? g.coordinates : [];
  return parts.map((rings) => rings[0].map(([lon, lat]) => {
    const q = map.latLngToContainerPoint([lat, lon]);
    return [q.x, q.y];
  }));
}

/** The centroid of the largest part of the region on the screen (clipped to it), when it lies
 * in that part: {x, y}, or null. */
function visibleMiddle(r, size) {
  let best = null;
  for (const ring of outlines(r)) {
    const clipped = clip(ring, EDGE, EDGE, size.x - EDGE, size.y - EDGE);
    if (clipped.length < 3) continue;
    let a = 0, cx = 0, cy = 0;
    for (let i = 0; i < clipped.length; i++) {
      const [px, py] = clipped[i];
      const [qx, qy] = clipped[(i + 1) % clipped.length];
      const cross = px * qy - qx * py;
      a += cross;
      cx += (px + qx) * cross;
      cy += (py + qy) * cross;
    }
    if (Math.abs(a) < 1) continue;
    const m = { x: cx / (3 * a), y: cy / (3 * a), area: Math.abs(a) / 2, ring: clipped };
    if (inside(m, clipped) && (!best || m.area > best.area)) best = m;
  }
  return best;
}

/** Sutherland–Hodgman: the polygon cut to the rectangle. */
function clip(points, x0, y0, x1, y1) {
  const edges = [[(p) => p[0] >= x0, (p, q) => cut(p, q, 0, x0)], [(p) => p[0] <= x1, (p, q) => cut(p, q, 0, x1)],
    [(p) => p[1] >= y0, (p, q) => cut(p, q, 1, y0)], [(p) => p[1] <= y1, (p, q) => cut(p, q, 1, y1)]];
  let out = points;
  for (const [keep, meet] of edges) {
    const input = out;
    out = [];
    for (let i = 0; i < input.length; i++) {
      const p = input[i];
      const prev = input[(i + input.length - 1) % input.length];
      if (keep(p)) {
        if (!keep(prev)) out.push(meet(prev, p));
        out.push(p);
      } else if (keep(prev)) {
        out.push(meet(prev, p));
      }
    }
    if (!out.length) break;
  }
  return out;
}

/** Where the segment p–q crosses the line where coordinate `axis` is `value`. */
function cut(p, q, axis, value) {
  const t = (value - p[axis]) / (q[axis] - p[axis]);
  return [p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])];
}

function inside(pt, ring) {
  let c = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [ax, ay] = ring[j];
    const [bx, by] = ring[i];
    if ((by > pt.y) !== (ay > pt.y) && pt.x < ax + ((pt.y - ay) * (bx - ax)) / (by - ay)) c = !c;
  }
  return c;
}

function overlaps(a, b) {
  return a.x < b.x + b.w + GAP && b.x < a.x + a.w + GAP && a.y < b.y + b.h + GAP && b.y < a.y + a.h + GAP;
}

/** The label's node, its text and its size (measured again when the text or the theme changed). */
function label(r) {
  const text = r.name || r.id;
  const theme = document.documentElement.dataset.theme || "normal";
  let l = labels.get(r.id);
  if (!l) {
    l = { node: el("div", { class: "map-label", hidden: true }), text: null, theme: null, w: 0, h: 0 };
    pane.append(l.node);
    labels.set(r.id, l);
  }
  const cls = `map-label label-${r.kind}${r.id === targetId ? " target" : ""}`;
  if (l.node.className !== cls) {
    l.node.className = cls;
    l.text = null;
  }
  if (l.text !== text || l.theme !== theme) {
    l.node.textContent = text;
    l.text = text;
    l.theme = theme;
    const wasHidden = l.node.hidden;
    l.node.hidden = false;
    l.node.style.visibility = "hidden";
    l.w = Math.ceil(l.node.offsetWidth);
    l.h = Math.ceil(l.node.offsetHeight);
    l.node.style.visibility = "";
    l.node.hidden = wasHidden;
  }
  return l;
}

/** What a label must not cover: the position's marker, the map's controls, the last events. */
function obstacles() {
  const box = map.getContainer().getBoundingClientRect();
  const out = [];
  if (position) {
    const p = map.latLngToContainerPoint([position.lat, position.lon]);
    out.push({ x: p.x - 20, y: p.y - 20, w: 40, h: 40 });
  }
  const parts = [...map.getContainer().querySelectorAll(".leaflet-control"), document.getElementById("map-events")];
  for (const e of parts) {
    if (!e || !e.checkVisibility || !e.checkVisibility()) continue;
    const r = e.getBoundingClientRect();
    if (r.width && r.height) out.push({ x: r.left - box.left, y: r.top - box.top, w: r.width, h: r.height });
  }
  return out;
}
