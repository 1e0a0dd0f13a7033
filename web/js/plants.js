// The Plants view: due first, each with a live countdown, Water and Remove; "Add plant here".
// Rows are kept per id and updated in place (a tap must never land on a row just replaced).
import { command } from "./api.js";
import { act } from "./queue.js";
import { on } from "./bus.js";
import { arrange, busy, byId, el, setText, showMessage } from "./dom.js";
import { days } from "./format.js";
import { goButton } from "./go.js";
import { dueIn, dueText, isDue, refreshRegions, regionById, whereText } from "./regions.js";
import { regionTarget } from "./target.js";

const rows = new Map(); // id → {li, due, distance, …}
let plants = [];

export function setupPlants() {
  on("regions", (answer) => {
    plants = answer.regions.filter((r) => r.kind === "plant");
    render();
  });
  setInterval(tick, 1000);
  loadSpecies();
  byId("plant-form").addEventListener("submit", (e) => {
    e.preventDefault();
    busy(byId("plant-add"), addPlant);
  });
}

function message(text, kind) {
  showMessage(byId("plants-message"), text, kind);
}

/** Due first (most overdue on top), then by time left; never-watered ones count as due now. */
function order(a, b) {
  const left = (p) => (dueIn(p) ?? (p.due ? -Infinity : Infinity));
  return isDue(b) - isDue(a) || left(a) - left(b) || a.name.localeCompare(b.name);
}

function render() {
  const list = byId("plants-list");
  const seen = new Set();
  const nodes = plants.slice().sort(order).map((p) => {
    seen.add(p.id);
    const row = rows.get(p.id) || createRow(p.id);
    update(row, p);
    return row.li;
  });
  for (const id of rows.keys()) if (!seen.has(id)) rows.delete(id);
  arrange(list, nodes);
  byId("plants-empty").hidden = plants.length > 0;
  updateBadge();
}

function createRow(id) {
  const row = {
    name: el("span", { class: "name" }),
    id: el("span", { class: "id", text: id }),
    due: el("span", { class: "due" }),
    facts: el("span", { class: "facts" }),
    water: el("button", { type: "button", class: "water", text: "Water" }),
    undo: el("button", { type: "button", class: "undo-water secondary", text: "Undo watering", hidden: true }),
    remove: el("button", { type: "button", class: "remove secondary", text: "Remove…" }),
    confirm: el("div", { class: "confirm", hidden: true }),
    go: goButton(() => regionTarget(regionById(id) || { id, name: id, kind: "plant" })),
  };
  // Remove is apart from Water (below a line, at the other side) and asks first.
  row.li = el("li", { class: "card", dataset: { id } },
    el("div", { class: "card-head" }, row.name, row.id),
    row.due, row.facts,
    el("div", { class: "actions" }, row.water, row.undo, row.go),
    el("div", { class: "remove-row" }, row.remove),
    row.confirm);
  row.water.addEventListener("click", () => busy(row.water, () => water(id, row)));
  row.undo.addEventListener("click", () => busy(row.undo, () => undoWater(id, row)));
  row.remove.addEventListener("click", () => askRemove(id, row));
  rows.set(id, row);
  return row;
}

function update(row, p) {
  setText(row.name, p.name);
  row.remove.title = p.layer === "user" ? "Remove this plant" : `From a regions file (${p.layer} layer): edit the file to remove it`;
  row.remove.classList.toggle("muted", p.layer !== "user");
  updateTimes(row, p);
}

/** What changes with time: the countdown, the due flag, the distance. */
function updateTimes(row, p) {
  const due = isDue(p);
  if (row.li.dataset.due !== String(due)) row.li.dataset.due = String(due);
  setText(row.due, dueText(p));
  setText(row.facts, `${p.species ? `${p.species} · ` : ""}every ${days(p.interval_days)} · ${whereText(p)}`);
}

function tick() {
  for (const p of plants) {
    const row = rows.get(p.id);
    if (row) updateTimes(row, p);
  }
  updateBadge();
}

/** The Plants tab shows how many are due. */
function updateBadge() {
  const n = plants.filter(isDue).length;
  setText(byId("plants-badge"), n ? String(n) : "");
}

const UNDO_MS = 120000;   // a watering made by mistake can be taken back this long from here

async function water(id, row) {
  const name = (regionById(id) || {}).name || id;
  try {
    const done = await act({ label: `Water ${name}`, cmd: { cmd: "water", plant: id } });
    if (done.queued) return message(`The board is out of reach: watering ${name} waits at the top of the page, and is recorded when the board answers, at the time you watered.`, "info");
    const e = done.answer;
    message(`Watered ${name} (seq ${e.seq}).`, "ok");
    row.undo.hidden = false;
    clearTimeout(row.undoTimer);
    row.undoTimer = setTimeout(() => { row.undo.hidden = true; }, UNDO_MS);
    await refreshRegions();
  } catch (e) {
    message(e.message, "error");
  }
}

/** The board's undo_water: the watering before is in force again, through the journal. */
async function undoWater(id, row) {
  const name = (regionById(id) || {}).name || id;
  try {
    const e = await command({ cmd: "undo_water", plant: id });
    message(`The watering of ${name} taken back (seq ${e.seq}).`, "ok");
    row.undo.hidden = true;
    await refreshRegions();
  } catch (e) {
    message(e.message, "error");
  }
}

function askRemove(id, row) {
  const name = (regionById(id) || {}).name || id;
  const yes = el("button", { type: "button", class: "danger", text: "Remove" });
  const no = el("button", { type: "button", class: "secondary", text: "Keep" });
  row.confirm.replaceChildren(
    el("p", { class: "confirm-question", text: `Remove ${name}? Its waterings stay in the journal, but the plant is gone from the board.` }),
    el("div", { class: "actions" }, no, yes));
  row.confirm.hidden = false;
  row.remove.hidden = true;
  const close = () => {
    row.confirm.hidden = true;
    row.remove.hidden = false;
  };
  no.addEventListener("click", close);
  yes.addEventListener("click", () => busy(yes, () => remove(id)).then(close));
  no.focus();
}

async function remove(id) {
  const name = (regionById(id) || {}).name || id;
  try {
    const e = await command({ cmd: "remove_region", region: id });
    message("", "ok"); // the undo bar says it
    offerRestore(id, name, e.seq);
    await refreshRegions();
  } catch (e) {
    message(e.message, "error");
  }
}

/** The species pick-list: the board's catalog (`species`), Latin and common names. */
async function loadSpecies() {
  const select = byId("plant-species");
  try {
    const answer = await command({ cmd: "species" });
    const found = (answer.species || []).slice().sort((a, b) => (a.common || a.latin).localeCompare(b.common || b.latin));
    select.replaceChildren(select.options[0],
      ...found.map((sp) => el("option", { value: sp.latin, dataset: { common: sp.common || "" },
        text: sp.common ? `${sp.common} (${sp.latin})` : sp.latin })));
  } catch (e) {
    console.warn(`species: ${e.message}`);
  }
}

let undoTimer = null;

/** After Remove: "Undo" brings the plant back (the board's restore_region, through the journal). */
function offerRestore(id, name, seq) {
  const bar = byId("plants-undo");
  setText(byId("plants-undo-text"), `Removed ${name} (seq ${seq}).`);
  const button = byId("plants-undo-button");
  button.textContent = `Undo: bring ${name} back`;
  button.onclick = () => busy(button, async () => {
    try {
      const e = await command({ cmd: "restore_region", region: id });
      message(`${name} is back (seq ${e.seq}).`, "ok");
      bar.hidden = true;
      await refreshRegions();
    } catch (e) {
      message(e.message, "error");
    }
  });
  bar.hidden = false;
  clearTimeout(undoTimer);
  undoTimer = setTimeout(() => { bar.hidden = true; }, UNDO_MS);
}

async function addPlant() {
  const select = byId("plant-species");
  const chosen = select.selectedOptions[0];
  const species = select.value;
  let name = byId("plant-name").value.trim();
  if (!name && species) name = chosen.dataset.common || species;
  const interval = Number(byId("plant-interval").value);
  const radius = Number(byId("plant-radius").value);
  if (!name) return message("Give the plant a name, or pick its species.", "error");
  if (!(interval > 0)) return message("The interval is a number of days above 0.", "error");
  if (!(radius > 0)) return message("The radius is a number of metres above 0.", "error");
  try {
    const done = await act({ label: `Add plant ${name} here`, cmd: { cmd: "add_region", kind: "plant", name, interval_days: interval, radius_m: radius,
      species: species || undefined } });
    if (done.queued) {
      byId("plant-name").value = "";
      return message(`The board is out of reach: ${name} waits at the top of the page, and is added where the board was now when it answers.`, "info");
    }
    const e = done.answer;
    message(`Added ${name} as ${e.region} here (seq ${e.seq}).`, "ok");
    byId("plant-name").value = "";
    await refreshRegions();
  } catch (e) {
    message(e.message, "error");
  }
}
