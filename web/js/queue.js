// Actions done while the board is out of reach (Water, Add plant here, Capture, Plant here):
// kept in IndexedDB, in the order they were made, shown over the page, and sent when the board
// answers again. Each carries an idempotency key, made when the action is, so an action sent
// twice (its answer lost on the way, two tabs sending together) is recorded once: the board
// answers a repeat with its first answer. Each says how long ago it was done (`ago_s`), so the
// board records it when and where it was done: its own time and track, never the phone's clock.
import { ApiError, command, postPhoto } from "./api.js";
import { emit, on } from "./bus.js";
import { byId, el, setText } from "./dom.js";
import { duration } from "./format.js";
import { hooks } from "./hooks.js";
import * as idb from "./idb.js";

const RETRY_MS = 15000;
const FRESH_MS = 30000;  // a position from the board this recent is "here" for an action queued now
let position = null;     // the board's last POSITION, and when it came
const SENT_SHOWN_MS = 8000;
let entries = [];     // what waits or was refused, oldest first
let sending = null;   // the flush under way
let timer = null;

function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
}

/** Sends one action; `queued`: it waited, so it says how long ago it was done. */
function send(entry, queued) {
  const ago = queued ? Math.max(0, (Date.now() - entry.madeAt) / 1000) : undefined;
  if (entry.photo) {
    const { album, note, file } = entry.photo;
    return postPhoto(album, note, file, { key: entry.key, ago });
  }
  const cmd = ago === undefined ? entry.cmd : { ...entry.cmd, ago_s: Math.round(ago * 10) / 10 };
  return command(cmd, { key: entry.key });
}

/**
 * Does an action now, or queues it when the board is out of reach (or actions wait already:
 * they go in order). `action`: {label, cmd} or {label, photo: {album, note, file}}.
 * Resolves to {answer} when the board answered, {queued: entry} when it waits; a refusal of
 * the board throws its ApiError as before.
 */
export async function act(action) {
  const entry = { key: newKey(), label: action.label, cmd: action.cmd || null, photo: action.photo || null, madeAt: Date.now(), state: "waiting" };
  if (!entries.some((e) => e.state === "waiting")) {
    try {
      return { answer: await send(entry, false) };
    } catch (e) {
      if (!(e instanceof ApiError) || !e.retryable) throw e;
    }
  }
  // "Here" is where the board was: its last position when that is fresh (the board may be down),
  // else the board's own track at the time (ago_s) tells it.
  if (entry.cmd && (entry.cmd.cmd === "plant" || entry.cmd.cmd === "add_region") && !entry.cmd.at && position
      && entry.madeAt - position.receivedAt <= FRESH_MS) {
    entry.cmd = { ...entry.cmd, at: [position.lat, position.lon] };
  }
  await keep(entry);
  schedule(2000);
  return { queued: entry };
}

async function keep(entry) {
  entries.push(entry);
  try {
    await idb.put("queue", entry);
  } catch (e) {
    // Private mode or a full disk: it still waits in this tab.
    console.warn("queue:", e.message);
  }
  render();
}

async function drop(entry) {
  entries = entries.filter((e) => e.key !== entry.key);
  await idb.remove("queue", entry.key).catch(() => {});
  render();
}

/** Sends what waits, oldest first; stops at the first that cannot reach the board. */
export function flush() {
  if (sending) return sending;
  const run = async () => {
    for (const entry of entries.filter((e) => e.state === "waiting")) {
      if (!entries.includes(entry)) continue; // cancelled meanwhile
      entry.state = "sending";
      render();
      try {
        const answer = await send(entry, true);
        if (answer && (answer.allowed === false || answer.recorded === false)) {
          // Answered, but not done: a tree the rules refuse there, a capture outside the album.
          entry.state = "refused";
          entry.message = answer.reason || "not recorded";
          await idb.put("queue", entry).catch(() => {});
          render();
          hooks.queueSent.push({ key: entry.key, label: entry.label, answer });
          continue;
        }
        await idb.remove("queue", entry.key).catch(() => {});
        // Shown as sent for a moment, then gone.
        entry.state = "sent";
        render();
        setTimeout(() => { entries = entries.filter((e) => e !== entry); render(); }, SENT_SHOWN_MS);
        hooks.queueSent.push({ key: entry.key, label: entry.label, answer });
        emit("queue-sent", { entry, answer });
      } catch (e) {
        if (e instanceof ApiError && e.retryable) {
          entry.state = "waiting";
          render();
          schedule(RETRY_MS);
          return;
        }
        entry.state = "refused";
        entry.message = e.message;
        await idb.put("queue", entry).catch(() => {});
        render();
      }
    }
  };
  // One tab sends at a time (two would only repeat keys, but need not).
  const locked = navigator.locks ? navigator.locks.request("treeline-queue", run) : run();
  sending = locked.finally(() => { sending = null; });
  return sending;
}

function schedule(ms) {
  clearTimeout(timer);
  if (!entries.some((e) => e.state === "waiting")) return;
  timer = setTimeout(() => flush().catch((e) => console.warn("queue:", e.message)), ms);
}

function ago(entry) {
  const s = (Date.now() - entry.madeAt) / 1000;
  return s < 60 ? "just now" : `${duration(s)} ago`;
}

function render() {
  const box = byId("queue");
  if (!box) return;
  const waiting = entries.filter((e) => e.state === "waiting" || e.state === "sending").length;
  const refused = entries.some((e) => e.state === "refused");
  box.hidden = entries.length === 0;
  box.dataset.state = waiting ? "waiting" : refused ? "refused" : "sent";
  setText(byId("queue-summary"), waiting
    ? `${waiting} ${waiting === 1 ? "action waits" : "actions wait"} for the board: sent when it answers again.`
    : refused ? "The board refused what waited:" : "Sent to the board:");
  const list = byId("queue-list");
  list.replaceChildren(...entries.map((entry) => {
    const state = { refused: `refused: ${entry.message}`, sending: "sending…", sent: "recorded" }[entry.state] || "waiting";
    const button = entry.state === "sending" || entry.state === "sent" ? null
      : el("button", { type: "button", class: "secondary", "aria-label": `${entry.state === "refused" ? "Dismiss" : "Cancel"}: ${entry.label}`, onclick: () => drop(entry) },
        entry.state === "refused" ? "Dismiss" : "Cancel");
    return el("li", { dataset: { key: entry.key, state: entry.state } },
      el("span", { class: "queue-what" }, el("strong", { text: entry.label }), ` · ${ago(entry)} · ${state}`), button);
  }));
}

export async function setupQueue() {
  try {
    entries = (await idb.all("queue")).sort((a, b) => a.madeAt - b.madeAt);
  } catch (e) {
    console.warn("queue:", e.message);
  }
  for (const e of entries) if (e.state === "sending") e.state = "waiting";
  render();
  on("reach", (now) => { if (now) schedule(0); });
  on("position", (p) => { position = { lat: p.lat, lon: p.lon, receivedAt: Date.now() }; });
  window.addEventListener("online", () => schedule(0));
  setInterval(render, 30000); // "3 min ago" moves on
  hooks.queueSent = [];
  hooks.queue = () => entries.map((e) => ({ key: e.key, label: e.label, state: e.state, message: e.message || null }));
  schedule(1000);
}
