// The crew (other boards and OwnTracks phones on the broker: `crew`). This asks, every 5 s while
// the map is shown and the page visible, through api.js (out of reach: the kept answer, marked
// offline). crew-view.js shows them, loaded once an answer holds a member. Each answer goes with
// its moment (when it came, or was kept): ages count from it, so a kept one never looks fresh.
import { command } from "./api.js";
import { on } from "./bus.js";
import { byId } from "./dom.js";
import { hooks } from "./hooks.js";

let map, onFocus, view, loading, timer, asking, shown, running, unsupported;
let wait = 5000; // doubled after a failure, up to 60 s
const EVERY_MS = 5000, LONGEST_MS = 60000, TIMEOUT_MS = 4000;

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
  wait = EVERY_MS;
  if (view) view.running(running);
  if (running) ask();
}

async function ask() {
  clearTimeout(timer);
  if (!running || asking) return;
  asking = true;
  hooks.crewAsked += 1;
  // Ages stand for when asked: never younger than they are.
  const asked = Date.now();
  try {
    // No answer in 4 s: the kept answer, marked offline.
    const answer = await command({ cmd: "crew" }, { timeout: TIMEOUT_MS });
    const at = answer.offline && Number.isFinite(answer.savedAt) ? answer.savedAt : asked;
    hooks.crewAnswers += 1;
    if (!view && answer.members?.length) {
      // A failed load is tried again.
      loading ||= import("./crew-view.js").then(async (v) => {
        await v.setupCrewView(map, onFocus);
        view = v;
        view.running(running);
      }).catch((e) => {
        loading = null;
        throw e;
      });
      await loading;
    }
    if (view) view.apply(answer, at);
    wait = EVERY_MS;
  } catch (e) {
    if (e.status === 400 && /unknown cmd/.test(e.message)) {
      // An older board, without the command: not asked again.
      unsupported = true;
      update();
    } else {
      // Out of reach: asked as usual; another failure: less often. Ages go on counting.
      wait = e.retryable ? EVERY_MS : Math.min(LONGEST_MS, wait * 2);
    }
    console.warn(`crew: ${e.message}`);
  } finally {
    asking = false;
    if (running) timer = setTimeout(ask, wait);
  }
}
