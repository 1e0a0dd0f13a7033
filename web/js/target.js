// The target the walker chose with "Go there": a region (a plant, an album, an area) or a point
// (a plan's spot, a recorded tree). One at a time; kept in localStorage (treeline.target) so
// that the AR view (/ar/, another page) guides to it too, and a reload keeps it. Views listen
// to "target" (the target, or null).
//
// Where it is from a position: a region's signed distance to its edge (as REGIONS' distance_m,
// positive inside) and the way to its nearest edge point (its centre once inside); a point's
// distance, and the way to it. The shortcuts: the next due plant, the nearest album.
import { emit, on } from "./bus.js";
import { edgeDistance, toward } from "./geo.js";
import { hooks } from "./hooks.js";
import { dueIn, isDue, pinRegions, regionById } from "./regions.js";

const KEY = "treeline.target";
const KINDS = { plant: "plant", album: "album", reforestation: "area" };

let target = load();

function load() {
  try {
    const t = JSON.parse(localStorage.getItem(KEY) || "null");
    return t && (t.type === "region" ? typeof t.id === "string" : Number.isFinite(t.lat) && Number.isFinite(t.lon)) ? t : null;
  } catch {
    return null;
  }
}

function save() {
  try {
    if (target) localStorage.setItem(KEY, JSON.stringify(target));
    else localStorage.removeItem(KEY);
  } catch {
    // private mode: this page only
  }
}

export function currentTarget() {
  return target;
}

/** A region as the target: {type: "region", id, name, kind}. */
export function regionTarget(r) {
  return { type: "region", id: r.id, name: r.name || r.id, kind: r.kind, arrived: Boolean(r.inside) };
}

/** A point as the target: {type: "point", name, lat, lon, what: "spot" | "tree"}. */
export function pointTarget(name, lat, lon, what) {
  return { type: "point", name, lat, lon, what };
}

export function setTarget(t) {
  target = { ...t, since: Date.now() };
  save();
  emit("target", target);
}

export function clearTarget() {
  if (!target) return;
  target = null;
  save();
  emit("target", null);
}

/** The region of the target ("plant", "album", "area"), or what the point is ("spot", "tree"). */
export function targetWhat(t) {
  return t.type === "region" ? KINDS[t.kind] || t.kind : t.what || "spot";
}

/** Arrived at a region: the monitor's enter for it (its exit: on the way again). */
export function markArrived(arrived) {
  if (!target || target.arrived === arrived) return;
  target = { ...target, arrived };
  save();
  emit("target", target);
}

/**
 * Where the target is from (lat, lon): {distance, edge (true: a region's signed distance to its
 * edge, positive inside), bearing (to `to`), to {lat, lon}}; null while the region is unknown.
 */
export function measureTarget(t, lat, lon) {
  if (t.type === "point") {
    const { distance, bearing } = toward(lat, lon, t.lat, t.lon);
    return { distance, edge: false, bearing, to: { lat: t.lat, lon: t.lon } };
  }
  const r = regionById(t.id);
  const e = r && edgeDistance(r.geometry, r.radius_m, lat, lon);
  if (!e) return null;
  // Outside: the way to the nearest edge; inside, to the centre.
  const to = e.distance < 0 ? e.nearest : e.centre || e.nearest;
  const { bearing } = toward(lat, lon, to.lat, to.lon);
  return { distance: e.distance, edge: true, bearing, to };
}

/**
 * How near a region is from `position` (the distance to its edge, negative inside, as
 * −distance_m), worked out from the position when there is one (REGIONS' distance_m is as of
 * its answer, which comes only after events).
 */
function nearness(r, position) {
  const e = position && edgeDistance(r.geometry, r.radius_m, position.lat, position.lon);
  if (e) return -e.distance;
  return typeof r.distance_m === "number" ? -r.distance_m : Infinity;
}

/**
 * The plant due soonest (the most overdue; never watered counts as due now), the nearest
 * first among equals; any plant when none is due. Null without plants.
 */
export function nextDuePlant(regions, position) {
  const left = (p) => dueIn(p) ?? (p.due ? -Infinity : Infinity);
  const plants = regions.filter((r) => r.kind === "plant").map((r) => ({ r, left: left(r), near: nearness(r, position) }));
  plants.sort((a, b) => isDue(b.r) - isDue(a.r) || a.left - b.left || a.near - b.near || a.r.id.localeCompare(b.r.id));
  return plants.length ? plants[0].r : null;
}

/** The album nearest to its edge (one you are in first). Null without albums. */
export function nearestAlbum(regions, position) {
  const albums = regions.filter((r) => r.kind === "album").map((r) => ({ r, near: nearness(r, position) }));
  albums.sort((a, b) => a.near - b.near || a.r.id.localeCompare(b.r.id));
  return albums.length ? albums[0].r : null;
}

// Another page (the AR view, another tab) changed it.
window.addEventListener("storage", (e) => {
  if (e.key !== KEY) return;
  target = load();
  emit("target", target);
});

// A region gone from the board is no target any more: one missing from a whole board's answer,
// or removed (a large board's page knows only some regions).
on("regions", (answer) => {
  if (answer.mode === "whole" && target && target.type === "region" && !answer.regions.some((r) => r.id === target.id)) clearTarget();
});
on("event", (e) => {
  if (e.type === "region_removed" && target && target.type === "region" && e.region === target.id) clearTarget();
});
// The target's region is needed whole wherever the map looks.
on("target", (t) => pinRegions("target", t && t.type === "region" ? [t.id] : []));
pinRegions("target", target && target.type === "region" ? [target.id] : []);

hooks.target = () => target;
