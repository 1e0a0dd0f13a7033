// The crew (other boards and OwnTracks phones on the broker: `crew`). This asks, every 5 s while
// the map is shown and the page visible, through api.js (out of reach: the kept answer, marked
// offline). crew-view.js shows them, loaded once an answer holds a member. Each answer goes with
// its moment (when it came, or was kept): ages count from it, so a kept one never looks fresh.
import { command } from "./api.js";
import { on } from "./bus.js";
import { byId } from "./dom.js";
import { hooks } from "./hooks.js";

let map, onFocus, view, loading, timer, asking, shown, running, unsupported;

/** `focus` is called before the page centres the map on a member (it stops following). */
export function setupCrew(leafletMap, focus) {
  map = leafletMap;
  onFocus = focus;
  on("tab", (name) => {
    shown = name === "map";
    update();
  });
  document.addEventListener("visibilitychange", update);
  shown = byId("view-map").classList.contains("active");
  Object.assign(hooks, { crew: () => (view ? view.shown() : []), crewAsked: 0, crewAnswers: 0, crewRefused: 0 });
  update();
}

function update() {
  const now = shown && document.visibilityState !== "hidden" && !unsupported;
  if (now === running) return;
  running = now;
  clearTimeout(timer);
  if (view) view.running(running);
  if (running) ask();
}

async function ask() {
  clearTimeout(timer);
  if (!running || asking) return;
  asking = true;
  hooks.crewAsked += 1;
  try {
    const answer = await command({ cmd: "crew" });
    const at = answer.offline && Number.isFinite(answer.savedAt) ? answer.savedAt : Date.now();
    hooks.crewAnswers += 1;
    if (!view && answer.members?.length) {
      loading ||= import("./crew-view.js").then(async (v) => {
        await v.setupCrewView(map, onFocus);
        view = v;
        view.running(running);
      });
      await loading;
    }
    if (view) view.apply(answer, at);
  } catch (e) {
    // A board without the command: not asked again. Out of reach, or access ended: asked again
    // (api.js sends nothing once access ended).
    if (!e.retryable && e.status !== 401) {
      unsupported = true;
      update();
      console.warn(`crew: ${e.message}`);
    }
  } finally {
    asking = false;
    if (running) timer = setTimeout(ask, 5000);
  }
}
