// The regions in force and their state (REGIONS with geometry), refreshed when an event
// says something changed: due flags, inside flags, distances. Views listen to "regions".
import { command } from "./api.js";
import { emit, on } from "./bus.js";
import { duration, metres } from "./format.js";
import { toward } from "./geo.js";

// Event types after which the regions answer may differ.
const REFRESH_TYPES = /^(region_|watered$|water_due$|enter$|exit$|capture_)/;

let current = { at: null, regions: [], fetchedAt: 0 };
let latestPosition = null;
let asked = 0;   // requests sent; only the newest answer is applied
let timer = null;

/** The regions of the last answer. */
export function regionsNow() {
  return current.regions;
}

export function regionById(id) {
  return current.regions.find((r) => r.id === id);
}

export async function refreshRegions() {
  const n = ++asked;
  const answer = await command({ cmd: "regions", geometry: true });
  if (n !== asked) return; // a newer answer is on its way
  current = { at: answer.at || null, regions: answer.regions || [], fetchedAt: Date.now() };
  emit("regions", current);
}

/** Debounced: a burst of events (the journal at start, a transit) costs one request. */
export function scheduleRefresh(delay = 300) {
  clearTimeout(timer);
  timer = setTimeout(() => refreshRegions().catch((e) => console.warn("regions:", e.message)), delay);
}

/** Seconds until a plant is due, counted down from the answer's due_in_s; null: never watered. */
export function dueIn(plant) {
  if (typeof plant.due_in_s !== "number") return null;
  return plant.due_in_s - (Date.now() - current.fetchedAt) / 1000;
}

/** A plant is due by the server's word, or once its countdown has run out since. */
export function isDue(plant) {
  const left = dueIn(plant);
  return Boolean(plant.due) || (left !== null && left <= 0);
}

/** "due in 2 d 3 h", "overdue by 4 h", "due now (never watered)". */
export function dueText(plant) {
  const left = dueIn(plant);
  if (left === null) return plant.due ? "due now (never watered)" : "not due";
  return left > 0 ? `due in ${duration(left)}` : `overdue by ${duration(-left)}`;
}

/**
 * The distance to a region's boundary (positive inside). A circle's is worked out from the
 * latest POSITION, so it follows the walker between answers; an area's is the server's.
 */
function liveDistance(region) {
  const g = region.geometry;
  const p = latestPosition || current.at;
  if (p && g && g.type === "Point" && typeof region.radius_m === "number") {
    const [lon, lat] = g.coordinates;
    return region.radius_m - toward(p.lat, p.lon, lat, lon).distance;
  }
  return region.distance_m;
}

/** Where you are from a region: "you are inside, 8 m from the edge", "215 m away". */
export function whereText(region) {
  const d = liveDistance(region);
  if (typeof d !== "number") return region.inside ? "you are inside" : "distance unknown";
  if (region.inside) return `you are inside, ${metres(Math.max(d, 0))} from the edge`;
  // Over the line but not entered yet: the monitor waits for evidence beyond the boundary.
  return d >= 0 ? "at the edge" : `${metres(d)} to the edge`;
}

on("position", (p) => {
  latestPosition = p;
});

on("event", (e) => {
  if (REFRESH_TYPES.test(e.type)) scheduleRefresh();
});
