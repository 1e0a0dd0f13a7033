// The trails (TRAILS): their definitions, which is under way and its next checkpoint. Asked at
// start and again after every trail event (debounced); views listen to "trails".
import { command } from "./api.js";
import { emit, on } from "./bus.js";
import { centre } from "./geo.js";
import { pinRegions, regionById } from "./regions.js";

let current = { active: null, trails: [] };
let asked = 0;   // requests sent; only the newest answer is applied
let timer = null;

export function trailsNow() {
  return current;
}

export function trailById(id) {
  return current.trails.find((t) => t.id === id);
}

export async function refreshTrails() {
  const n = ++asked;
  const answer = await command({ cmd: "trails" });
  if (n !== asked) return;
  current = { active: answer.active || null, trails: answer.trails || [] };
  // The trail under way's checkpoints are needed whole wherever the map looks.
  const active = current.active && current.trails.find((t) => t.id === current.active.trail);
  pinRegions("trail", active ? active.checkpoints.map((c) => (typeof c === "string" ? c : c.region)) : []);
  emit("trails", current);
}

/** Debounced: the journal replayed at start may hold many trail events. */
export function scheduleTrailsRefresh(delay = 150) {
  clearTimeout(timer);
  timer = setTimeout(() => refreshTrails().catch((e) => console.warn("trails:", e.message)), delay);
}

/** A region's name for the user: its name, else its id. */
export function regionName(id) {
  const r = regionById(id);
  return (r && r.name) || id;
}

/** Where a checkpoint's region stands (circle centre, area centroid), or null when unknown. */
export function checkpointCentre(id) {
  const r = regionById(id);
  return r ? centre(r.geometry) : null;
}

/** The trail under way's next checkpoint: {trail, index, of, region, action}, or null. */
export function nextCheckpoint() {
  const a = current.active;
  if (!a) return null;
  return { trail: a.trail, name: a.name, index: a.next, of: a.of, region: a.next_region, action: a.action || null };
}

// A trail event moves a trail; a region removed or added may take a checkpoint out of force or
// bring it back ("missing").
on("event", (e) => {
  if (e.kind === "trail" || e.type === "region_removed" || e.type === "region_added" || e.type === "base_layer") scheduleTrailsRefresh();
});
