// window.treeline: what the browser tests read. Modules fill it in as they start.
export const hooks = {
  position: null,       // {lat, lon, error_m, time, shownAt}: the fix the marker shows
  positionLog: [],      // {time, shownAt} for every POSITION shown (the last 5000)
  requests: 0,          // fetches made by api.js
  seqs: () => [],       // the Events list's seqs, in arrival order
  mapRegionIds: () => [],
  firstRegionsDrawnMs: null, // performance.now() when the map first painted regions
  regionsMode: null,    // "whole" (a small board) or "view" (loaded by the map's view)
  errors: [],           // uncaught errors and rejections, as text (any browser)
};

window.treeline = hooks;

window.addEventListener("error", (e) => hooks.errors.push(`${e.message} (${e.filename}:${e.lineno})`));
window.addEventListener("unhandledrejection", (e) => hooks.errors.push(`unhandled rejection: ${e.reason}`));
