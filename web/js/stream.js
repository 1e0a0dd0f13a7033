// The live stream: GET /api/events as Server-Sent Events. Journal events and positions are
// passed on through the bus ("event" is emitted by the journal, which drops repeats).
//
// EventSource reconnects by itself after a drop, sending Last-Event-ID (the last seq it got),
// which the server honours over `since`: so a lagged stream (ERROR lagged, then closed) just
// resumes. Only when the browser gives up (an HTTP error: 401, 502, or 400 when the board's
// journal is no longer the one read before) is a new EventSource opened here, after a pause
// and `beforeRetry()` (which may start the journal again), from the last seq it holds.
import { emit, on } from "./bus.js";
import { hooks } from "./hooks.js";
import { loseSession, sessionLost } from "./session.js";

const RETRY_MS = 5000;

// For the tests: the stream's state, and how many times it went live (an outage ended).
hooks.stream = null;
hooks.streamLive = 0;
on("stream", (s) => {
  hooks.stream = s;
  if (s === "live") hooks.streamLive += 1;
});

/**
 * Opens the stream; `since()` gives the seq to resume after; `onEvent(event)` gets EVENTs;
 * `beforeRetry()` (async) runs before a new stream replaces one the browser gave up.
 */
export function openStream(since, onEvent, beforeRetry, journal = () => null) {
  if (sessionLost()) return;
  // The journal's name, when known: the browser's own resume (Last-Event-ID) sends the same
  // URL, so a board whose journal is another refuses it (400) however far its seqs have come.
  const name = journal();
  const named = typeof name === "string" ? `&journal=${encodeURIComponent(name)}` : "";
  const source = new EventSource(`/api/events?since=${since()}&positions=1${named}`);
  emit("stream", "connecting");

  source.addEventListener("open", () => emit("stream", "live"));
  source.addEventListener("message", (m) => receive(m.data, onEvent));
  source.addEventListener("position", (m) => {
    const p = parse(m.data);
    if (p && p.class === "POSITION") emit("position", p);
  });
  source.addEventListener("error", () => {
    if (source.readyState === EventSource.CLOSED) {
      emit("stream", "offline");
      // Why the browser gave up: a 401 is access ended (no retry); anything else, retry.
      accessEnded().then((ended) => {
        if (ended) {
          loseSession();
          return;
        }
        setTimeout(async () => {
          await beforeRetry().catch(() => {});
          openStream(since, onEvent, beforeRetry, journal);
        }, RETRY_MS);
      });
    } else {
      emit("stream", "reconnecting");
    }
  });
}

/** Whether the board now refuses this page's key (401), asked with a small request. */
async function accessEnded() {
  if (sessionLost()) return true;
  try {
    const r = await fetch("/api/web.json", { credentials: "same-origin", cache: "no-store" });
    return r.status === 401;
  } catch {
    return false; // unreachable: an outage, not a lost session
  }
}

function receive(data, onEvent) {
  const m = parse(data);
  if (!m) return;
  if (m.class === "EVENT") onEvent(m);
  else if (m.class === "ERROR" && !m.lagged) emit("notice", m.message || "error from the stream");
  // lagged: the server closes the stream and EventSource comes back after the last seq.
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    console.warn("stream: not JSON:", text.slice(0, 80));
    return null;
  }
}

/** Runs `fn` each time the stream is live again after it was down (reconnecting or offline). */
export function afterOutage(fn) {
  let down = false;
  on("stream", (s) => {
    if (s === "reconnecting" || s === "offline") down = true;
    else if (s === "live" && down) {
      down = false;
      fn();
    }
  });
}
