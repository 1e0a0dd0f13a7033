// The live stream: GET /api/events as Server-Sent Events (docs/web.md, "Events"). EventSource
// resumes by itself (Last-Event-ID); only when it gives up (401, 502, or 400 from a board on
// another journal) is a new one opened here, after RETRY_MS and `beforeRetry()`.
import { emit, on } from "./bus.js";
import { hooks } from "./hooks.js";
import { loseSession, sessionLost } from "./session.js";

const RETRY_MS = 5000;

// For the tests: the state, and how many times it went live.
hooks.stream = null;
hooks.streamLive = 0;
on("stream", (s) => {
  hooks.stream = s;
  if (s === "live") hooks.streamLive += 1;
});

/**
 * Opens the stream after `since()`, named `journal()`; `onEvent(event)` gets EVENTs; `adopt(name)`
 * is told the journal a stream started on while the page has no name.
 */
export function openStream(since, onEvent, beforeRetry, journal = () => null, adopt = () => {}) {
  if (sessionLost()) return;
  // Named, the browser's own resume is refused by a board on another journal, whatever its seqs.
  const name = journal();
  const named = typeof name === "string" ? `&journal=${encodeURIComponent(name)}` : "";
  const source = new EventSource(`/api/events?since=${since()}&positions=1${named}`);
  emit("stream", "connecting");

  source.addEventListener("open", () => emit("stream", "live"));
  source.addEventListener("message", (m) => {
    const startedOn = receive(m.data, onEvent);
    // No name yet (STATE failed): this stream's journal is the page's; reopen it named.
    if (typeof startedOn === "string" && typeof journal() !== "string") {
      adopt(startedOn);
      if (typeof journal() === "string") {
        source.close();
        openStream(since, onEvent, beforeRetry, journal, adopt);
      }
    }
  });
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
          openStream(since, onEvent, beforeRetry, journal, adopt);
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

/** Whether the board's journal (its last seq and name) is another than the one read. */
export function anotherJournal(serverSeq, serverJournal, readSeq, readJournal) {
  if (typeof serverJournal === "string" && typeof readJournal === "string" && serverJournal !== readJournal) return true;
  return serverSeq < readSeq;
}

/** Passes an EVENT on; the journal's name of a SUBSCRIBED, else undefined. */
function receive(data, onEvent) {
  const m = parse(data);
  if (!m) return undefined;
  if (m.class === "SUBSCRIBED") return m.journal;
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
