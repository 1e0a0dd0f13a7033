// Actions done while the board is out of reach (Water, Add plant here, Capture, Plant here):
// kept in IndexedDB, in the order they were made, shown over the page, and sent when the board
// answers again. Each carries an idempotency key, made when the action is, so an action sent
// twice (its answer lost on the way, two tabs sending together) is recorded once: the board
// answers a repeat with its first answer. Each says how long ago it was done (`ago_s`), so the
// board records it when and where it was done, by its own time and track.
import { ApiError, command, postPhoto } from "./api.js";
import { emit, on } from "./bus.js";
import { byId, el, setText } from "./dom.js";
import { duration } from "./format.js";
import { hooks } from "./hooks.js";
import * as idb from "./idb.js";

const RETRY_MS = 15000;
const SENT_SHOWN_MS = 8000;
const FRESH_MS = 30000;  // a position from the board this recent is "here" for an action queued now
const PAGE = Math.random().toString(36).slice(2); // this page's run: its stopwatch is performance.now()
let position = null;     // the board's last POSITION, and when it came
let entries = [];        // what waits, is being sent, was refused or was just sent, oldest first
let sending = null;      // the flush under way
let timer = null;
const rows = new Map();  // key → its row, updated in place (a tap never lands on a moved row)

function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
}

/** Seconds since the action was done: this page's stopwatch when it was made here (a clock set
 * meanwhile does not move it), else the wall clock's difference (a reload in between). */
function secondsAgo(entry) {
  const s = entry.page === PAGE ? (performance.now() - entry.madeAtPerf) / 1000 : (Date.now() - entry.madeAt) / 1000;
  return Math.max(0, s);
}

/** Sends one action; `queued`: it waited, so it says how long ago it was done. */
function send(entry, queued) {
  const ago = queued ? Math.round(secondsAgo(entry) * 10) / 10 : undefined;
  if (entry.photo) {
    const { album, note, file } = entry.photo;
    return postPhoto(album, note, file, { key: entry.key, ago });
  }
  const cmd = ago === undefined ? entry.cmd : { ...entry.cmd, ago_s: ago };
  return command(cmd, { key: entry.key });
}

const pending = (e) => e.state === "waiting" || e.state === "sending";

/** Not the action's fault: worth sending again (out of reach, busy, access to be renewed). */
const later = (e) => e instanceof ApiError && (e.retryable || e.status === 401);

/**
 * Does an action now, or queues it when the board is out of reach (or actions wait already:
 * they go in order). `action`: {label, cmd} or {label, photo: {album, note, file}}.
 * Resolves to {answer} when the board answered, {queued: entry} when it waits; a refusal of
 * the board throws its ApiError as before.
 */
export async function act(action) {
  const entry = { key: newKey(), label: action.label, cmd: action.cmd || null, photo: action.photo || null,
    madeAt: Date.now(), madeAtPerf: performance.now(), page: PAGE, state: "waiting" };
  if (!entries.some(pending)) {
    try {
      return { answer: await send(entry, false) };
    } catch (e) {
      if (!later(e)) throw e;
    }
  }
  // "Here" is where the board was: its last position when that is fresh (the board may be down),
  // else the board's own track at the time (ago_s) tells it.
  if (entry.cmd && (entry.cmd.cmd === "plant" || entry.cmd.cmd === "add_region") && !entry.cmd.at && position
      && entry.madeAt - position.receivedAt <= FRESH_MS) {
    entry.cmd = { ...entry.cmd, at: [position.lat, position.lon] };
  }
  entries.push(entry);
  await save(entry);
  render();
  schedule(2000);
  return { queued: entry };
}

async function save(entry) {
  try {
    await idb.put("queue", entry);
  } catch (e) {
    // Private mode or a full disk: it still waits in this tab, but not over a reload.
    entry.unsaved = true;
    console.warn("queue:", e.message);
  }
}

async function drop(entry) {
  entries = entries.filter((e) => e.key !== entry.key);
  await idb.remove("queue", entry.key).catch(() => {});
  render();
}

/** What another tab queued or cancelled meanwhile (IndexedDB is the queue; this is its view). */
async function reread() {
  let stored;
  try {
    stored = await idb.all("queue");
  } catch {
    return;
  }
  const byKey = new Map(stored.map((e) => [e.key, e]));
  entries = entries.filter((e) => e.unsaved || e.state === "sent" || byKey.has(e.key));
  for (const e of stored) {
    const mine = entries.find((x) => x.key === e.key);
    if (!mine) entries.push(e);
    else if (mine.state !== "sending") mine.state = e.state === "sending" ? "waiting" : e.state;
  }
  entries.sort((a, b) => a.madeAt - b.madeAt);
}

/** Sends what waits, oldest first, until none does; stops at the first that cannot go now. */
export function flush() {
  if (sending) return sending;
  const run = async () => {
    await reread();
    let entry;
    while ((entry = entries.find((e) => e.state === "waiting"))) {
      // Still there (not cancelled here or in another tab)?
      if (!entry.unsaved && !(await idb.get("queue", entry.key).catch(() => entry))) {
        entries = entries.filter((e) => e !== entry);
        continue;
      }
      entry.state = "sending";
      render();
      let answer;
      try {
        answer = await send(entry, true);
      } catch (e) {
        if (later(e)) {
          entry.state = "waiting";
          entry.message = e.status === 401 ? "access to the board ended: open a new link" : e.message;
          render();
          if (e.status !== 401) schedule(RETRY_MS);
          return;
        }
        await refuse(entry, e.message);
        continue;
      }
      if (answer && (answer.allowed === false || answer.recorded === false)) {
        // Answered, but not done: a tree the rules refuse there, a capture outside the album.
        hooks.queueSent.push({ key: entry.key, label: entry.label, request: entry.cmd || { album: entry.photo.album, note: entry.photo.note }, answer });
        await refuse(entry, answer.reason || "not recorded");
        continue;
      }
      await idb.remove("queue", entry.key).catch(() => {});
      // Shown as sent for a moment, then gone.
      entry.state = "sent";
      entry.message = null;
      render();
      const shown = entry;
      setTimeout(() => { entries = entries.filter((e) => e !== shown); render(); }, SENT_SHOWN_MS);
      hooks.queueSent.push({ key: entry.key, label: entry.label, request: entry.cmd || { album: entry.photo.album, note: entry.photo.note }, answer });
      emit("queue-sent", { entry, answer });
    }
  };
  // One tab sends at a time (two would only repeat keys, but need not).
  const locked = navigator.locks ? navigator.locks.request("treeline-queue", run) : run();
  sending = locked.finally(() => { sending = null; });
  return sending;
}

async function refuse(entry, message) {
  entry.state = "refused";
  entry.message = message;
  await idb.put("queue", entry).catch(() => {});
  render();
}

/** A refused action sent again (the board's disk was full, a plant was restored meanwhile). */
async function retry(entry) {
  entry.state = "waiting";
  entry.message = null;
  await idb.put("queue", entry).catch(() => {});
  render();
  schedule(0);
}

function schedule(ms) {
  clearTimeout(timer);
  if (!entries.some((e) => e.state === "waiting")) return;
  timer = setTimeout(() => flush().catch((e) => console.warn("queue:", e.message)), ms);
}

function ago(entry) {
  const s = secondsAgo(entry);
  return s < 60 ? "just now" : `${duration(s)} ago`;
}

/** One entry's row, made once and updated in place. */
function row(entry) {
  let r = rows.get(entry.key);
  if (!r) {
    r = { what: el("strong", { text: entry.label }), state: el("span"),
      cancel: el("button", { type: "button", class: "secondary", onclick: () => drop(entry) }),
      again: el("button", { type: "button", class: "secondary", text: "Retry", "aria-label": `Retry: ${entry.label}`, onclick: () => retry(entry) }) };
    r.li = el("li", { dataset: { key: entry.key } }, el("span", { class: "queue-what" }, r.what, r.state), r.again, r.cancel);
    rows.set(entry.key, r);
  }
  const refused = entry.state === "refused";
  const words = { refused: `refused: ${entry.message}`, sending: "sending…", sent: "recorded" }[entry.state]
    || (entry.message ? `waiting (${entry.message})` : "waiting");
  setText(r.state, ` · ${ago(entry)} · ${words}${entry.unsaved ? " · kept in this tab only" : ""}`);
  r.li.dataset.state = entry.state;
  r.cancel.hidden = entry.state === "sending" || entry.state === "sent";
  setText(r.cancel, refused ? "Dismiss" : "Cancel");
  r.cancel.setAttribute("aria-label", `${refused ? "Dismiss" : "Cancel"}: ${entry.label}`);
  r.again.hidden = !refused;
  return r.li;
}

function render() {
  const box = byId("queue");
  if (!box) return;
  const waiting = entries.filter(pending).length;
  const refused = entries.some((e) => e.state === "refused");
  box.hidden = entries.length === 0;
  box.dataset.state = waiting ? "waiting" : refused ? "refused" : "sent";
  setText(byId("queue-summary"), waiting
    ? `${waiting} ${waiting === 1 ? "action waits" : "actions wait"} for the board: sent when it answers again.`
    : refused ? "The board did not do what waited:" : "Sent to the board:");
  const list = byId("queue-list");
  const items = entries.map(row);
  for (const key of rows.keys()) if (!entries.some((e) => e.key === key)) rows.delete(key);
  // Only what changed moves: rows stay the same elements, in the queue's order.
  items.forEach((li, k) => { if (list.children[k] !== li) list.insertBefore(li, list.children[k] || null); });
  while (list.children.length > items.length) list.lastChild.remove();
}

export async function setupQueue() {
  hooks.queueSent = [];
  hooks.queue = () => entries.map((e) => ({ key: e.key, label: e.label, state: e.state, message: e.message || null }));
  await reread();
  for (const e of entries) if (e.state === "sending") e.state = "waiting";
  render();
  on("reach", (now) => { if (now) schedule(0); });
  on("position", (p) => { position = { lat: p.lat, lon: p.lon, receivedAt: Date.now() }; });
  window.addEventListener("online", () => schedule(0));
  setInterval(render, 30000); // "3 min ago" moves on
  // Ask the browser not to clear the site's storage under pressure: the queue lives there.
  if (navigator.storage && navigator.storage.persist) navigator.storage.persist().catch(() => {});
  schedule(1000);
}
