// The board's HTTP API: POST /api (one socket command), the photo upload, GET of JSON files.
// Every answer of class ERROR, or with an HTTP error status, becomes an ApiError whose message
// is the server's own (meant for the user).
//
// Out of reach: the last answer of each read the page keeps (regions, trees, captures, species,
// trails, crew) is kept in IndexedDB, and given again, marked `offline`, when the board cannot be
// reached. Whether the board answers is the "reach" news (true/false), for the offline queue.
import { emit } from "./bus.js";
import { hooks } from "./hooks.js";
import * as idb from "./idb.js";
import { loseSession, sessionLost } from "./session.js";

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }

  /** The board was not reached, or said to try again later: worth sending again. */
  get retryable() {
    return [0, 408, 429, 502, 503, 504].includes(this.status);
  }
}

let reached = null; // whether the last request reached the board (null: none yet)

function reach(now) {
  if (now === reached) return;
  reached = now;
  emit("reach", now);
}

export function boardReached() {
  return reached;
}

async function send(path, options = {}) {
  // Access ended: asking again cannot help, and the page says so.
  if (sessionLost()) throw new ApiError("access to the board ended: get a new link with `treeline web` on the board", 401);
  hooks.requests += 1;
  let response;
  try {
    response = await fetch(path, { credentials: "same-origin", cache: "no-store", ...options });
  } catch (e) {
    reach(false);
    throw new ApiError(`The board cannot be reached (${e.message}).`, 0);
  }
  // A copy the service worker kept is not an answer of the board.
  reach(![502, 504].includes(response.status) && !response.headers.get("X-Treeline-Offline"));
  if (response.status === 401) loseSession();
  const text = await response.text();
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's error page, …): the status line says enough.
  }
  if (!response.ok || (body && body.class === "ERROR")) {
    const message = (body && body.message) || `${response.status} ${response.statusText || "error"}`;
    throw new ApiError(message, response.status);
  }
  return body;
}

// Reads whose last answer is kept for when the board is out of reach, each under its request. A
// regions answer for some ids (a refresh after an event) is only part of the picture, and a
// species search is one keystroke: neither is kept. A large board's views are kept as one, "the
// last view", at most every 10 s: out of reach, any view is answered with it. The crew's ages
// count from `savedAt` (crew.js).
const KEPT_READS = new Set(["regions", "trees", "captures", "species", "trails", "crew"]);
const VIEW = "regions:last view";
const VIEW_EVERY_MS = 10000;
let viewKeptAt = 0;

/** The key a read's answer is kept under (null: not kept). */
function keptAs(cmd) {
  if (!KEPT_READS.has(cmd.cmd) || cmd.ids || (cmd.cmd === "species" && cmd.query)) return null;
  if (cmd.cmd === "regions" && cmd.bbox) return VIEW;
  const keys = Object.keys(cmd).sort();
  return JSON.stringify(keys.map((k) => [k, cmd[k]]));
}

function keep(kept, answer) {
  if (kept === VIEW) {
    if (Date.now() - viewKeptAt < VIEW_EVERY_MS) return;
    viewKeptAt = Date.now();
  }
  idb.put("answers", { request: kept, answer, savedAt: Date.now() }).catch(() => {});
}

/**
 * One socket command, e.g. {cmd: "state"}: its answer object. `key`: an idempotency key (the
 * board runs a change with one at most once, and answers a repeat with the first answer).
 */
export async function command(cmd, { key, timeout } = {}) {
  const headers = { "Content-Type": "application/json" };
  if (key) headers["Idempotency-Key"] = key;
  const kept = keptAs(cmd);
  // `timeout` (ms): not answered by then, the board counts as out of reach.
  const signal = timeout ? AbortSignal.timeout(timeout) : undefined;
  try {
    const answer = await send("/api", { method: "POST", headers, body: JSON.stringify(cmd), signal });
    if (kept) keep(kept, answer);
    return answer;
  } catch (e) {
    if (!kept || !e.retryable) throw e;
    const saved = await idb.get("answers", kept).catch(() => null);
    if (!saved) throw e;
    return { ...saved.answer, offline: true, savedAt: saved.savedAt };
  }
}

export function getJSON(path) {
  return send(path);
}

/**
 * A capture with a photo: the file is the body, album and note in the query. `ago`: taken that
 * many seconds ago (queued while the board was out of reach); `key`: an idempotency key.
 */
export function postPhoto(album, note, file, { key, ago } = {}) {
  // %20, not URLSearchParams' "+": the server reads "+" as a plus sign.
  let query = `album=${encodeURIComponent(album)}`;
  if (note) query += `&note=${encodeURIComponent(note)}`;
  if (typeof ago === "number") query += `&ago_s=${ago.toFixed(1)}`;
  const headers = { "Content-Type": file.type || "application/octet-stream" };
  if (key) headers["Idempotency-Key"] = key;
  return send(`/api/captures?${query}`, { method: "POST", headers, body: file });
}
