// The regions in force and their state (REGIONS), as the page knows them. Views listen to
// "regions" and read regionsNow()/regionById().
//
// A board of a few regions (at most WHOLE_LIMIT) is loaded whole, each region with its exact
// geometry, as one answer. A larger one is loaded by the map's view: the regions whose box meets
// it (the board's fence index answers `bbox`), capped (the largest first; the answer says how
// many there were), outlines thinned to a pixel at the map's zoom. The regions a view needs
// whole wherever the map looks (the target, the trail's checkpoints) are pinned and asked by id,
// exactly. What is known is kept up to KEEP regions; past that, what is neither in the view,
// pinned nor around the walker is let go.
//
// After an event only the regions it names are asked again (`ids`); a removal is taken from the
// event itself.
import { command } from "./api.js";
import { emit, on } from "./bus.js";
import { duration, metres } from "./format.js";
import { toward } from "./geo.js";
import { hooks } from "./hooks.js";

// Event types after which the named region's answer may differ.
const REFRESH_TYPES = /^(region_|base_layer$|watered$|water_undone$|water_due$|enter$|exit$|capture_|planting_)/;
export const WHOLE_LIMIT = 1500;  // a board up to this many regions is loaded whole
const VIEW_LIMIT = 1000;          // the most regions one view's answer holds
const FIRST_LIMIT = 100;          // the first answer: how many there are, and the largest drawn at once
const FIRST_ZOOM = 10;            // …thinned for an overview
const KEEP = 2500;                // the most regions kept between views
const IDS_PER_ASK = 500;          // ids per request (the board takes up to 1,000)

const known = new Map();          // id → region; geometry thinned for region.zoom (undefined: exact)
let listCache = null;             // [...known.values()], made again after a change
let at = null;
let fetchedAt = 0;
let mode = null;                  // null until the first answer: "whole" or "view"
let total = null;                 // regions in force (the board's count)
let view = { bbox: null, zoom: null, total: 0, truncated: false, ids: new Set() };
const pinned = new Map();         // who → [ids] (the target, the trail's checkpoints)
let latestPosition = null;
let asked = 0;                    // whole refreshes sent; only the newest answer is applied
let viewAsked = 0;                // view requests sent
let viewApplied = 0;              // the newest applied (an older answer coming later is dropped)
let viewTimer = null, idsTimer = null, wholeTimer = null;
let wantedView = null;            // {bbox, zoom} the map shows
const dirty = new Set();          // ids to ask again

/** The regions known (all of a small board; a large board's near the view and pinned). */
export function regionsNow() {
  if (!listCache) listCache = [...known.values()];
  return listCache;
}

export function regionById(id) {
  return known.get(id);
}

/** How the page loads them: {mode, total (in force), view: {total, truncated} of the last view}. */
hooks.regionsLoading = () => ({ ...regionsLoading(), known: known.size });
export function regionsLoading() {
  return { mode, total, view: { total: view.total, shown: view.ids.size, truncated: view.truncated, zoom: view.zoom } };
}

function publish() {
  listCache = null;
  emit("regions", { at, regions: regionsNow(), fetchedAt, mode, total, view: regionsLoading().view });
}


/** A region of an answer into what is known; `zoom`: what its geometry was thinned for. */
function take(r, zoom) {
  if (zoom !== undefined && zoom !== null) r.zoom = zoom;
  r.fetchedAt = Date.now(); // due_in_s counts from here
  const old = known.get(r.id);
  // An exact outline (asked by id) is kept over a thinned one: an outline changes only with
  // region_updated, after which the region is asked exactly again. A thinned one is replaced
  // by the newest view's (coarser when zooming out: less to hold).
  if (old && old.geometry && old.zoom === undefined && r.zoom !== undefined && sameOutline(old, r)) {
    r.geometry = old.geometry;
    delete r.zoom;
  } else if (old && old.geometry && old.zoom === r.zoom && sameOutline(old, r)) {
    // Thinned for the same zoom (a pan): the same outline, kept as the object the map drew.
    r.geometry = old.geometry;
  }
  known.set(r.id, r);
}

function sameOutline(a, b) {
  return a.kind === b.kind && a.radius_m === b.radius_m && Boolean(a.geometry) === Boolean(b.geometry)
    && (!b.geometry || a.geometry.type === b.geometry.type);
}

function answered(answer) {
  if (answer.at !== undefined) at = answer.at || null;
  fetchedAt = Date.now();
}

/**
 * Asks again what the page shows: a small board whole; a large one's view and pinned regions.
 * `ids`: only these (after an action on them).
 */
export async function refreshRegions(ids) {
  if (Array.isArray(ids) && ids.length && mode) return refreshIds(ids);
  const n = ++asked;
  if (mode === null) {
    // How many there are first, with the largest few thinned for an overview: a large board
    // is never asked whole, and these are drawn at once while its view is asked.
    const probe = await command({ cmd: "regions", geometry: true, limit: FIRST_LIMIT, zoom: FIRST_ZOOM });
    if (n !== asked) return;
    // Out of reach too: the views kept are asked for then (js/api.js gives the last one).
    if (probe.total > WHOLE_LIMIT) {
      mode = "view";
      total = probe.total;
      hooks.regionsMode = mode;
      answered(probe);
      for (const r of probe.regions || []) take(r, FIRST_ZOOM);
      publish();
      // Where they all are ([west, south, east, north]): the map looks there, and asks for it.
      if (probe.bounds) emit("regions-bounds", probe.bounds);
    }
  }
  if (mode !== "view") {
    const answer = await command({ cmd: "regions", geometry: true, limit: WHOLE_LIMIT });
    if (n !== asked) return; // a newer answer is on its way
    if (answer.truncated) {
      // Too many to load whole: by the map's view from now on.
      mode = "view";
      total = answer.total;
      hooks.regionsMode = mode;
      if (wantedView) await refreshView();
      await refreshPinned();
      return;
    }
    mode = "whole";
    hooks.regionsMode = mode;
    total = (answer.regions || []).length;
    answered(answer);
    known.clear();
    for (const r of answer.regions || []) take(r);
    publish();
    return;
  }
  await Promise.all([refreshView(), refreshPinned()]);
}

/** Debounced: a burst of news (a reconnection, a queue sent) costs one request. */
export function scheduleRefresh(delay = 300) {
  clearTimeout(wholeTimer);
  wholeTimer = setTimeout(() => refreshRegions().catch((e) => console.warn("regions:", e.message)), delay);
}

/**
 * The map looks at `bounds` ([west, south, east, north], degrees) at `zoom`: a large board's
 * regions there are asked (debounced; only the newest answer is applied).
 */
export function setRegionsView(bounds, zoom) {
  wantedView = { bbox: clampBox(bounds), zoom: Math.max(0, Math.min(24, Math.round(zoom))) };
  if (mode !== "view") return;
  clearTimeout(viewTimer);
  // The first view at once; then when the map has stopped for a moment.
  viewTimer = setTimeout(() => refreshView().catch((e) => console.warn("regions:", e.message)), viewAsked ? 150 : 0);
}

/** A view's box as the board takes it: within the world, west > east across the antimeridian. */
function clampBox([west, south, east, north]) {
  const lat = (v) => Math.max(-90, Math.min(90, v));
  if (east - west >= 360) return [-180, lat(south), 180, lat(north)];
  const wrap = (v) => ((((v + 180) % 360) + 360) % 360) - 180;
  return [wrap(west), lat(south), wrap(east) === -180 && east > west ? 180 : wrap(east), lat(north)];
}

async function refreshView() {
  clearTimeout(viewTimer);
  if (!wantedView) return;
  const { bbox, zoom } = wantedView;
  await askView(bbox, zoom, VIEW_LIMIT);
}

/** One view's answer, applied unless a newer one was applied already. */
async function askView(bbox, zoom, limit) {
  const n = ++viewAsked;
  const answer = await command({ cmd: "regions", geometry: true, bbox, zoom, limit });
  if (n < viewApplied) return;
  viewApplied = n;
  answered(answer);
  const regions = answer.regions || [];
  view = { bbox, zoom, total: answer.total ?? regions.length, truncated: Boolean(answer.truncated), ids: new Set(regions.map((r) => r.id)) };
  hooks.regionViewAnswers = (hooks.regionViewAnswers || 0) + 1;
  for (const r of regions) take(r, zoom);
  forget();
  publish();
}

/** Past KEEP, what is neither in the view, pinned, inside nor the target's is let go. */
function forget() {
  if (known.size <= KEEP) return;
  const keep = new Set(view.ids);
  for (const ids of pinned.values()) for (const id of ids) keep.add(id);
  for (const [id, r] of known) if (!keep.has(id) && !r.inside) known.delete(id);
}

/** `who` (e.g. "target", "trail") needs these regions whole wherever the map looks. */
export function pinRegions(who, ids) {
  const list = [...new Set((ids || []).filter((id) => typeof id === "string"))];
  pinned.set(who, list);
  if (mode !== "view") return;
  const wanted = list.filter((id) => { const r = known.get(id); return !r || r.zoom !== undefined; });
  if (wanted.length) refreshIds(wanted).catch((e) => console.warn("regions:", e.message));
}

async function refreshPinned() {
  const ids = new Set();
  for (const list of pinned.values()) for (const id of list) ids.add(id);
  if (ids.size) await refreshIds([...ids]);
}

/** Only these regions, exactly (no zoom): gone ones are dropped. */
async function refreshIds(ids) {
  let changed = false;
  for (let k = 0; k < ids.length; k += IDS_PER_ASK) {
    const answer = await command({ cmd: "regions", geometry: true, ids: ids.slice(k, k + IDS_PER_ASK) });
    if (answer.offline) continue; // a kept answer of another request: nothing about these
    answered(answer);
    for (const r of answer.regions || []) { known.delete(r.id); take(r); }
    for (const id of answer.missing || []) known.delete(id);
    changed = true;
  }
  if (changed) publish();
}

/** Debounced: the regions named by a burst of events cost one request. */
function scheduleIds(id) {
  dirty.add(id);
  clearTimeout(idsTimer);
  idsTimer = setTimeout(() => {
    const ids = [...dirty];
    dirty.clear();
    refreshIds(ids).catch((e) => console.warn("regions:", e.message));
  }, 300);
}

/** Seconds until a plant is due, counted down from the answer's due_in_s; null: never watered. */
export function dueIn(plant) {
  if (typeof plant.due_in_s !== "number") return null;
  return plant.due_in_s - (Date.now() - (plant.fetchedAt || fetchedAt)) / 1000;
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
  const p = latestPosition || at;
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

// The journal's replay at load is history: the answers asked since hold what it did.
let historyThrough = Infinity;
on("journal-history", (seq) => { historyThrough = seq; });

hooks.regionNews = []; // the seqs of the region events acted on as news (the last 100), for the tests

on("event", (e) => {
  if (!REFRESH_TYPES.test(e.type) || typeof e.region !== "string" || !(e.seq > historyThrough)) return;
  hooks.regionNews.push(e.seq);
  if (hooks.regionNews.length > 100) hooks.regionNews.shift();
  // The regions files changed (one record for all of it): what the page shows is asked again.
  if (e.type === "base_layer") {
    scheduleRefresh();
    return;
  }
  if (e.type === "region_removed") {
    if (known.delete(e.region)) publish();
    return;
  }
  scheduleIds(e.region);
});
