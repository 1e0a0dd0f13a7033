// The journal: the Events list (newest first, filterable) and the last events over the map.
//
// Reloads resume without a gap or a repeat: the events received (the last 1000) and the last
// seq are kept together in sessionStorage, rendered again at load, and the stream is opened
// with since=<that seq>. An event at or below the last seq is a repeat and is dropped.
//
// A fresh tab starts from the last START_BACK events, not from seq 0 (a board's months of
// journal would be every event); "Older events" pages back (`journal` with `before`).
// The journal's name is kept with them: on another journal the list starts again.
import { command } from "./api.js";
import { emit, on } from "./bus.js";
import { byId, el, showMessage } from "./dom.js";
import { clock, duration, metres } from "./format.js";
import { hooks } from "./hooks.js";
import { regionById } from "./regions.js";
import { anotherJournal } from "./stream.js";

const KEEP = 1000;
const START_BACK = 300;      // a fresh tab's events: the last this many
const PAGE = 200;            // events per "Older events"
const MAX_SHOWN = 5000;      // paging back stops here (treeline events reads the rest)
const STORAGE_KEY = "treeline.journal";
const SAVE_DELAY_MS = 250;

let events = [];   // slim events, arrival order
let lastSeq = 0;
let journal = null; // the journal's name, once the board said it
let oldestAsked = null; // the seq the list starts after (nothing older loaded); null: from seq 0
let cap = KEEP;          // the most events held: more once older ones were asked for
let saveTimer = null;
const typesSeen = new Set();

export function lastSeqSeen() {
  return lastSeq;
}

/** The name of the journal the list counts in, or null (a board that names none). */
export function journalName() {
  return journal;
}

/** The name of the journal the stream started on, for a list that had none (its STATE failed). */
export function adoptJournal(name) {
  if (journal !== null || typeof name !== "string") return;
  journal = name;
  scheduleSave();
}

/**
 * Renders what sessionStorage kept. `serverSeq` is the daemon's last seq: a journal kept with
 * a higher one belongs to another database, and is dropped.
 */
export function restoreJournal(serverSeq, serverJournal) {
  const saved = load();
  const named = typeof serverJournal === "string" ? serverJournal : null;
  journal = named;
  if (saved && !anotherJournal(serverSeq, serverJournal, saved.lastSeq, saved.journal)) {
    // A board out of reach says no name: the list's own, checked when the board answers.
    journal = named ?? (typeof saved.journal === "string" ? saved.journal : null);
    events = saved.events.slice(-KEEP);
    lastSeq = saved.lastSeq;
    oldestAsked = events.length ? events[0].seq - 1 : lastSeq;
  } else {
    if (saved) sessionStorage.removeItem(STORAGE_KEY);
    // A fresh tab: the last few hundred, the rest on demand.
    if (Number.isInteger(serverSeq) && serverSeq > START_BACK) lastSeq = serverSeq - START_BACK;
    oldestAsked = lastSeq;
  }
  // What the stream replays up to serverSeq is history: views that act on news skip it.
  emit("journal-history", Number.isInteger(serverSeq) ? serverSeq : lastSeq);
  render();
}

/** The board's journal is another one now (another name, or its last seq below ours): start from seq 0. */
export function checkJournal(serverSeq, serverJournal) {
  const replaced = anotherJournal(serverSeq, serverJournal, lastSeq, journal);
  if (typeof serverJournal === "string") journal = serverJournal;
  if (!replaced) return;
  events = [];
  lastSeq = 0;
  oldestAsked = 0;  // the stream reads the new journal from its start
  cap = KEEP;
  sessionStorage.removeItem(STORAGE_KEY);
  // The stream starts again from seq 0: the new journal up to serverSeq is history (the views
  // ask again after the outage), and what comes after it is news.
  emit("journal-history", serverSeq);
  render();
}

function render() {
  byId("events-list").replaceChildren(...events.map(row).reverse());
  events.forEach((e) => noteType(e.type));
  renderOverlay();
  updateCount();
  updateOlder();
}

/** "Older events" below the list, while the journal may hold events before the first shown. */
function olderButton() {
  let b = document.getElementById("events-older");
  if (!b) {
    b = el("button", { type: "button", id: "events-older", class: "secondary", text: "Older events", onclick: loadOlder });
    byId("events-list").after(b);
  }
  return b;
}

function updateOlder() {
  const b = olderButton();
  b.hidden = !(oldestAsked > 0) || events.length >= MAX_SHOWN;
}

/** The PAGE events before the oldest shown, from the board's journal. */
async function loadOlder() {
  const b = olderButton();
  if (!(oldestAsked > 0) || b.disabled) return;
  b.disabled = true;
  try {
    const answer = await command({ cmd: "journal", before: oldestAsked + 1, limit: PAGE });
    const older = (answer.events || []).filter((e) => e.seq <= oldestAsked).map(slimEvent);
    oldestAsked = answer.more && older.length ? older[0].seq - 1 : 0;
    events = older.concat(events);
    cap = MAX_SHOWN;
    const list = byId("events-list");
    for (let k = older.length - 1; k >= 0; k--) list.append(row(older[k]));
    older.forEach((e) => noteType(e.type));
    updateCount();
  } catch (e) {
    showMessage(byId("events-notice"), `Older events could not be read: ${e.message}`, "error");
  } finally {
    b.disabled = false;
    updateOlder();
  }
}

/** A journal EVENT from the stream. */
export function receiveEvent(e) {
  if (e.seq <= lastSeq) return;
  lastSeq = e.seq;
  const slim = slimEvent(e);
  events.push(slim);
  const list = byId("events-list");
  list.prepend(row(slim));
  if (events.length > cap) {
    oldestAsked = events.shift().seq;
    list.lastElementChild.remove();
  }
  noteType(slim.type);
  scheduleSummary();
  scheduleSave();
  emit("event", e);
}

// The overlay and the count once a frame: the journal from seq 0 may come by the thousand.
let summaryPending = false;
function scheduleSummary() {
  if (summaryPending) return;
  summaryPending = true;
  requestAnimationFrame(() => {
    summaryPending = false;
    renderOverlay();
    updateCount();
  });
}

export function setupEvents() {
  hooks.seqs = () => events.map((e) => e.seq);
  hooks.eventsShown = () => events.map((e) => ({ seq: e.seq, time: e.time, type: e.type }));
  hooks.loadOlderEvents = loadOlder;
  for (const id of ["events-kind", "events-type", "events-region"]) {
    byId(id).addEventListener("input", applyFilter);
  }
  // A select changed by script or by a WebDriver may send only "change".
  for (const id of ["events-kind", "events-type"]) byId(id).addEventListener("change", applyFilter);
  window.addEventListener("pagehide", save);
  // The stream's own errors (e.g. "events before seq N were pruned") are worth a line here.
  on("notice", (text) => showMessage(byId("events-notice"), text, "info"));
}

/** What the list needs: region_added's whole feature (trail_added's definition) would fill sessionStorage. */
function slimEvent(e) {
  const { feature, definition, class: _, ...rest } = e;
  if (!rest.name && feature && feature.properties) rest.name = feature.properties.name;
  return rest;
}

/** A region's name when the page knows it, else its id. */
function regionName(id) {
  const r = regionById(id);
  return (r && r.name) || id || "";
}

/** A trail event in a short phrase (its name is the trail's, its region the checkpoint's). */
function trailPhrase(e) {
  const of = typeof e.of === "number" ? e.of : "?";
  const k = typeof e.index === "number" ? e.index + 1 : "?";
  const next = typeof e.expected === "number" ? e.expected + 1 : "?";
  const checkpoints = `${of} checkpoint${of === 1 ? "" : "s"}`;
  const action = e.action ? ` (${e.action})` : "";
  switch (e.type) {
    case "trail_added": return `trail of ${checkpoints} added, first ${regionName(e.region)}`;
    case "trail_removed": return "trail removed";
    case "trail_started": return `started: ${checkpoints}, first ${regionName(e.region)}`;
    case "trail_stopped": return `stopped with checkpoint ${next} of ${of} next`;
    case "checkpoint_reached": return `checkpoint ${k} of ${of} reached: ${regionName(e.region)}${action}`;
    case "checkpoint_out_of_order": return `out of order: ${regionName(e.region)} is checkpoint ${k}, ${next} is next`;
    case "trail_completed": {
      const walked = typeof e.walked_m === "number" ? `, ${metres(e.walked_m)} walked` : "";
      const late = e.out_of_order ? `, ${e.out_of_order} out of order` : "";
      return `completed in ${duration(e.took_s || 0)}${walked}${late}`;
    }
    default: return e.type.replaceAll("_", " ");
  }
}

function describe(e) {
  if (e.kind === "trail") return trailPhrase(e);
  if (e.type === "base_layer") {
    return `regions files: ${e.added || 0} added, ${e.updated || 0} changed, ${e.removed || 0} removed (${e.regions || 0} in all)`;
  }
  const extra = [];
  if (e.initial) extra.push("initial");
  if (e.transit) extra.push("transit");
  if (e.type.startsWith("region_") && e.layer) extra.push(`${e.layer} layer`);
  if (typeof e.distance_m === "number" && !e.type.startsWith("region_")) extra.push(`${metres(e.distance_m)} ${e.distance_m >= 0 ? "inside" : "outside"}`);
  return extra.join(" · ");
}

function row(e) {
  const search = `${e.name || ""} ${e.region || ""}`.toLowerCase();
  const li = el("li", { dataset: { seq: e.seq, kind: e.kind || "", type: e.type, search } },
    el("div", { class: "event-head" },
      el("span", { class: "seq", text: `#${e.seq}` }),
      el("time", { datetime: e.time, text: clock(e.time) }),
      el("span", { class: `type type-${e.type}`, text: e.type.replaceAll("_", " ") })),
    el("div", { class: "event-body" },
      el("span", { class: `kind-dot kind-${e.kind}`, title: e.kind }),
      el("span", { class: "name", text: e.name || e.region || "" }),
      e.name ? el("span", { class: "id", text: e.region }) : null,
      el("span", { class: e.kind === "trail" ? "extra phrase" : "extra", text: describe(e) })));
  li.hidden = !matches(li);
  return li;
}

function matches(li) {
  const kind = byId("events-kind").value;
  const type = byId("events-type").value;
  const text = byId("events-region").value.trim().toLowerCase();
  return (!kind || li.dataset.kind === kind) &&
    (!type || li.dataset.type === type) &&
    (!text || li.dataset.search.includes(text));
}

function applyFilter() {
  for (const li of byId("events-list").children) li.hidden = !matches(li);
  updateCount();
}

function updateCount() {
  const list = byId("events-list");
  const shown = list.querySelectorAll("li:not([hidden])").length;
  const total = `${events.length} event${events.length === 1 ? "" : "s"}`;
  byId("events-count").textContent = shown === events.length ? total : `${shown} of ${total} shown`;
}

/** The type filter offers the types received so far. */
function noteType(type) {
  if (typesSeen.has(type)) return;
  typesSeen.add(type);
  const select = byId("events-type");
  const options = [...select.options].slice(1);
  const before = options.find((o) => o.value > type) || null;
  select.insertBefore(el("option", { value: type, text: type.replaceAll("_", " ") }), before);
}

function renderOverlay() {
  const overlay = byId("map-events");
  overlay.replaceChildren(...events.slice(-3).reverse().map((e) =>
    el("li", {},
      el("time", { text: clock(e.time) }), " ",
      el("b", { text: e.type.replaceAll("_", " ") }), " ",
      e.name || e.region || "")));
  overlay.hidden = events.length === 0;
}

function load() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY));
    if (saved && Array.isArray(saved.events) && Number.isInteger(saved.lastSeq)) return saved;
  } catch {
    // Unreadable: start again from the journal.
  }
  return null;
}

function scheduleSave() {
  if (!saveTimer) saveTimer = setTimeout(save, SAVE_DELAY_MS);
}

// The list and its last seq are written together: a reload resumes after exactly what it shows.
function save() {
  clearTimeout(saveTimer);
  saveTimer = null;
  let kept = events.slice(-KEEP);
  while (kept.length) {
    try {
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ lastSeq, journal, events: kept }));
      return;
    } catch {
      kept = kept.slice(Math.ceil(kept.length / 2)); // over the quota: keep the newer half
    }
  }
}
