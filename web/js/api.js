// The board's HTTP API: POST /api (one socket command), the photo upload, GET of JSON files.
// Every answer of class ERROR, or with an HTTP error status, becomes an ApiError whose message
// is the server's own (meant for the user).
import { hooks } from "./hooks.js";
import { loseSession, sessionLost } from "./session.js";

class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

async function send(path, options = {}) {
  // Access ended: asking again cannot help, and the page says so.
  if (sessionLost()) throw new ApiError("access to the board ended: get a new link with `treeline web` on the board", 401);
  hooks.requests += 1;
  let response;
  try {
    response = await fetch(path, { credentials: "same-origin", cache: "no-store", ...options });
  } catch (e) {
    throw new ApiError(`The board cannot be reached (${e.message}).`, 0);
  }
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

/** One socket command, e.g. {cmd: "state"}: its answer object. */
export function command(cmd) {
  return send("/api", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(cmd),
  });
}

export function getJSON(path) {
  return send(path);
}

/** A capture with a photo: the file is the body, album and note in the query. */
export function postPhoto(album, note, file) {
  // %20, not URLSearchParams' "+": the server reads "+" as a plus sign.
  let query = `album=${encodeURIComponent(album)}`;
  if (note) query += `&note=${encodeURIComponent(note)}`;
  return send(`/api/captures?${query}`, {
    method: "POST",
    headers: { "Content-Type": file.type || "application/octet-stream" },
    body: file,
  });
}
