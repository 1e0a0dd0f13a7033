// GET /api/layout as Server-Sent Events: a PANORAMA on connect, when the board moved, when the
// regions changed. A heading or pitch change needs no request: the page places the panorama's
// items itself (project.js). A new stream is opened only when the query changes (options, the
// stage's size) or after the browser gave up on one that had worked.
import { hooks } from "../hooks.js";
import { loseSession, sessionLost } from "../session.js";

const RETRY_MS = 5000;

let source = null;
let retryTimer = null;
let generation = 0;

/**
 * Opens the stream for `query` (closing any open one). Callbacks: onLayout(panorama),
 * onState(state, message) with state "connecting" | "live" | "reconnecting" | "waiting" | "offline".
 */
export function openLayout(query, { onLayout, onState }) {
  closeLayout();
  if (sessionLost()) return;
  const mine = ++generation;
  const url = `/api/layout?${query}`;
  let opened = false;
  hooks.requests += 1;
  source = new EventSource(url);
  onState("connecting", "");

  source.addEventListener("open", () => {
    opened = true;
    onState("live", "");
  });
  source.addEventListener("layout", (m) => {
    const p = parse(m.data);
    if (p && p.class === "PANORAMA") {
      onState("live", "");
      onLayout(p);
    }
  });
  source.addEventListener("waiting", (m) => {
    const p = parse(m.data);
    onState("waiting", (p && p.message) || "no fix yet");
  });
  source.addEventListener("error", () => {
    if (mine !== generation) return;
    if (source.readyState !== EventSource.CLOSED) {
      onState("reconnecting", "");
      return;
    }
    // The browser gave up: an HTTP error. Ask once more to read the server's words.
    source = null;
    explain(url).then(({ message, status }) => {
      if (mine !== generation) return;
      if (status === 401) {
        loseSession();
        onState("offline", "access ended");
        return;
      }
      onState("offline", message);
      // A refused query stays refused until the options change; anything else (the board
      // restarting, the Wi-Fi gone) is tried again once, later.
      if (status !== 400 && opened) {
        retryTimer = setTimeout(() => {
          if (mine === generation) openLayout(query, { onLayout, onState });
        }, RETRY_MS);
      }
    });
  });
}

export function closeLayout() {
  generation += 1;
  clearTimeout(retryTimer);
  retryTimer = null;
  if (source) source.close();
  source = null;
}

/** One fetch of the URL: the JSON error's message; a stream that answers 200 is cut at once. */
async function explain(url) {
  const abort = new AbortController();
  hooks.requests += 1;
  try {
    const response = await fetch(url, { credentials: "same-origin", cache: "no-store", signal: abort.signal });
    if (response.ok) {
      abort.abort();
      return { message: "the layout stream closed", status: response.status };
    }
    const text = await response.text();
    let body = null;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the status line says enough
    }
    return { message: (body && body.message) || `${response.status} ${response.statusText || "error"}`, status: response.status };
  } catch (e) {
    return { message: `the board cannot be reached (${e.message})`, status: 0 };
  }
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    console.warn("layout: not JSON:", text.slice(0, 80));
    return null;
  }
}
