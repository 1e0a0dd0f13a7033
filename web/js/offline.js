// The page when the board is out of reach: the service worker (../sw.js) keeps the page's files,
// and this says, over the page, when what is shown is what the board last said.
import { on } from "./bus.js";
import { byId } from "./dom.js";
import { hooks } from "./hooks.js";

function register() {
  hooks.serviceWorker = "unsupported";
  if (!("serviceWorker" in navigator)) return;
  hooks.serviceWorker = "registering";
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(
    () => navigator.serviceWorker.ready.then(() => { hooks.serviceWorker = "ready"; }),
    (e) => {
      // Most often: the phone does not trust the board's certificate (a certificate accepted
      // with a warning is not enough for a service worker). The page works; offline it does not.
      hooks.serviceWorker = `failed: ${e.message}`;
      console.warn(`offline use is not available: ${e.message}`);
    });
}

export function setupOffline() {
  register();
  const note = byId("offline-note");
  on("reach", (reached) => {
    note.hidden = reached;
    if (!reached) {
      note.textContent = "Board out of reach: showing what it last said.";
    }
  });
}
