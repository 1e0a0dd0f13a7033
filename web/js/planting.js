// The Planting view: species search, "Can I plant here?", a plan of N trees around you (drawn
// on the map), Plant here and Undo. The server's answers and refusals are shown as they are.
import { command } from "./api.js";
import { act } from "./queue.js";
import { emit, on } from "./bus.js";
import { busy, byId, el, showMessage } from "./dom.js";
import { coordinates, metres } from "./format.js";
import { goButton } from "./go.js";
import { hooks } from "./hooks.js";
import { pointTarget } from "./target.js";
import { refreshTrees } from "./trees.js";
import { roundItems, roundSummary } from "./round.js";
import { showTab } from "./tabs.js";

const SEARCH_DELAY_MS = 250;

let chosen = null;      // the chosen species' Latin name
let searches = 0;       // only the newest search's answer is shown
let searchTimer = null;
let currentPlan = null; // the PLAN shown (its trees in the round's order once ordered)

export function setupPlanting() {
  const search = byId("species-search");
  search.addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(searchSpecies, SEARCH_DELAY_MS);
  });
  // Enter takes the first match.
  search.addEventListener("keydown", (e) => {
    if (e.key !== "Enter") return;
    e.preventDefault();
    const first = byId("species-results").querySelector("li[data-latin]");
    if (first) choose(first.dataset.latin);
  });
  const results = byId("species-results");
  results.addEventListener("click", (e) => {
    const li = e.target.closest("li[data-latin]");
    if (li) choose(li.dataset.latin);
  });
  results.addEventListener("keydown", (e) => {
    const li = e.target.closest("li[data-latin]");
    if (li && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      choose(li.dataset.latin);
    }
  });
  byId("can-plant").addEventListener("click", () => busy(byId("can-plant"), canPlant));
  byId("plan-button").addEventListener("click", () => busy(byId("plan-button"), plan));
  byId("plant-here").addEventListener("click", () => busy(byId("plant-here"), plantHere));
  byId("undo-tree").addEventListener("click", () => busy(byId("undo-tree"), undo));
  byId("plan-show").addEventListener("click", () => {
    showTab("map");
    emit("focus-plan");
  });
  byId("plan-clear").addEventListener("click", () => {
    currentPlan = null;
    emit("plan", { trees: [] });
    emit("round", null);
    byId("plan-summary").hidden = true;
  });
  byId("plan-order").addEventListener("click", () => busy(byId("plan-order"), orderPlan));
  // Once you choose an area, it stays chosen as you walk.
  byId("plan-area").addEventListener("change", (e) => { e.target.dataset.picked = "yes"; });
  on("regions", (answer) => fillAreas(answer.regions));
}

function message(text, kind) {
  showMessage(byId("planting-message"), text, kind);
}

async function searchSpecies() {
  const query = byId("species-search").value.trim();
  const list = byId("species-results");
  const n = ++searches;
  if (!query) {
    list.replaceChildren();
    return;
  }
  try {
    const answer = await command({ cmd: "species", query });
    if (n !== searches) return;
    const found = answer.species || [];
    list.replaceChildren(...(found.length ? found.map(speciesItem) : [el("li", { class: "muted", text: `No species matches “${query}”.` })]));
  } catch (e) {
    if (n === searches) list.replaceChildren(el("li", { class: "muted", text: e.message }));
  }
}

function speciesItem(s) {
  const areas = s.areas && s.areas.length ? `allowed in ${s.areas.join(", ")}` : "in no area here";
  return el("li", { dataset: { latin: s.latin }, class: s.latin === chosen ? "chosen" : null, role: "option", tabindex: "0" },
    el("span", { class: "latin", text: s.latin }),
    el("span", { class: "common", text: s.common || "" }),
    el("span", { class: "facts", text: `spacing ${metres(s.spacing_m)} · ${areas}${s.match === "typo" ? " · (close spelling)" : ""}` }));
}

function choose(latin) {
  chosen = latin;
  for (const li of byId("species-results").querySelectorAll("li[data-latin]")) {
    li.classList.toggle("chosen", li.dataset.latin === latin);
  }
  byId("species-chosen").textContent = latin;
  byId("can-plant-result").textContent = "";
}

/** A species must be chosen first: says so where the answer would go. */
function needSpecies(where) {
  if (chosen) return false;
  showMessage(where, "Choose a species first: search above and tap one.", "error");
  return true;
}

async function canPlant() {
  const out = byId("can-plant-result");
  if (needSpecies(out)) return;
  try {
    const a = await command({ cmd: "can_plant", species: chosen });
    const verdict = a.allowed ? `Yes: ${a.species} can be planted here.` : `No: ${sentence(a.reason || "not allowed here")}`;
    const facts = [a.area && `area ${a.area}`, a.spacing_m && `spacing ${metres(a.spacing_m)}`,
      a.nearest_tree && `nearest tree #${a.nearest_tree} at ${metres(a.nearest_m)}`].filter(Boolean).join(" · ");
    const details = facts.charAt(0).toUpperCase() + facts.slice(1);
    showMessage(out, details ? `${verdict}\n${details}` : verdict, a.allowed ? "ok" : "error");
  } catch (e) {
    showMessage(out, e.message, "error");
  }
}

/** The server's reason as a sentence: with its full stop. */
function sentence(text) {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/**
 * The areas to plan in. Unless you chose one, the one you are in: inside by the monitor's
 * word, else the one with the greatest distance_m (positive inside, negative outside).
 */
function fillAreas(regions) {
  const select = byId("plan-area");
  const areas = regions.filter((r) => r.kind === "reforestation");
  const here = areas.find((r) => r.inside) ||
    areas.reduce((best, r) => (best && best.distance_m >= r.distance_m ? best : r), null);
  const picked = select.dataset.picked === "yes" ? select.value : (here ? here.id : select.value);
  const options = areas.map((r) => [r.id, `${r.name}${r.inside ? " (you are here)" : ""}`]);
  // Rebuilt only when it changed: a select open on a phone closes when its options go.
  const key = JSON.stringify(options);
  if (select.dataset.key !== key) {
    select.dataset.key = key;
    select.replaceChildren(...options.map(([value, text]) => el("option", { value, text })));
  }
  if (areas.some((r) => r.id === picked)) select.value = picked;
}

async function plan() {
  if (needSpecies(byId("planting-message"))) return;
  const area = byId("plan-area").value;
  const count = Number(byId("plan-count").value);
  if (!area) return message("No reforestation area to plan in.", "error");
  if (!(Number.isInteger(count) && count > 0)) return message("The number of trees is a whole number above 0.", "error");
  try {
    const a = await command({ cmd: "plan", area, species: chosen, count });
    currentPlan = a;
    emit("plan", a);
    emit("round", null);
    byId("plan-order-summary").hidden = true;
    const text = `Plan: ${a.placed} of ${a.asked ?? count} ${a.species} in ${a.area} at ${metres(a.spacing_m)} spacing.`;
    message(a.reason ? `${text}\n${sentence(a.reason)}` : text, a.placed ? "ok" : "error");
    byId("plan-summary").hidden = !a.placed;
    byId("plan-spots").replaceChildren(...(a.trees || []).map((t, i) => el("li", { class: "plan-spot-item" },
      el("span", { text: coordinates(t.lat, t.lon) }), spotButton(a, t, i))));
  } catch (e) {
    message(e.message, "error");
  }
}

/** The plan's spots in the order of the shortest walk from here through them (ROUND). */
async function orderPlan() {
  const plan = currentPlan;
  if (!plan || !(plan.trees || []).length) return;
  try {
    const a = await command({ cmd: "round", points: plan.trees.map((t) => [t.lat, t.lon]) });
    if (plan !== currentPlan) return; // planned again meanwhile
    const ordered = { ...plan, trees: a.order.map((k) => plan.trees[k]) };
    hooks.planRound = { points: plan.trees.map((t) => [t.lat, t.lon]), round: a };
    currentPlan = ordered;
    byId("plan-spots").replaceChildren(...roundItems(a, (leg) => coordinates(leg.at[0], leg.at[1])).map((li, i) => {
      li.append(spotButton(ordered, ordered.trees[i], i));
      return li;
    }));
    const summary = byId("plan-order-summary");
    summary.textContent = `In this order: ${roundSummary(a)}.`;
    summary.hidden = false;
    emit("plan", ordered);
    emit("round", { answer: a, markers: false });
  } catch (e) {
    message(e.message, "error");
  }
}

/** "Go there" for a plan's spot: named by its number in the list and the species. */
function spotButton(plan, t, i) {
  return goButton(() => pointTarget(`Spot ${i + 1} (${plan.species})`, t.lat, t.lon, "spot"));
}

async function plantHere() {
  if (needSpecies(byId("planting-message"))) return;
  try {
    const done = await act({ label: `Plant ${chosen} here`, cmd: { cmd: "plant", species: chosen } });
    if (done.queued) {
      return message(`The board is out of reach: the ${chosen} waits at the top of the page, and is checked and recorded where the board was now when it answers.`, "info");
    }
    const a = done.answer;
    if (a.allowed === false) {
      message(`Not planted: ${sentence(a.reason || "refused")}`, "error");
      return;
    }
    message(`Tree #${a.tree} (${a.species || chosen}) recorded${a.area ? ` in ${a.area}` : ""} at ${coordinates(a.lat, a.lon)}.`, "ok");
    await refreshTrees();
  } catch (e) {
    message(e.message, "error");
  }
}

async function undo() {
  try {
    const a = await command({ cmd: "undo_tree" });
    const t = a.tree || {};
    message(`Removed tree #${t.id}${t.species ? ` (${t.species})` : ""}.`, "ok");
    await refreshTrees();
  } catch (e) {
    message(e.message, "error");
  }
}
