// Rounds: the shortest walk from here through stops (ROUND). In the Plants view, the round of
// the plants due: its numbered order, each leg's distance and bearing, the total, drawn on the
// map, and "Save as trail" (its checkpoints in that order, each to be watered).
import { command } from "./api.js";
import { emit } from "./bus.js";
import { busy, byId, el, showMessage } from "./dom.js";
import { bearingArrow, compassWord } from "./compass.js";
import { metres } from "./format.js";
import { hooks } from "./hooks.js";
import { showTab } from "./tabs.js";
import { refreshTrails } from "./trails.js";

let round = null; // the ROUND shown in the Plants view

export function setupRound() {
  hooks.round = () => round;
  byId("round-button").addEventListener("click", () => busy(byId("round-button"), plantRound));
  byId("round-show").addEventListener("click", () => {
    showTab("map");
    emit("focus-round");
  });
  byId("round-clear").addEventListener("click", () => {
    round = null;
    byId("round-result").hidden = true;
    emit("round", null);
  });
  byId("round-save").addEventListener("submit", (e) => {
    e.preventDefault();
    busy(byId("round-save-button"), saveAsTrail);
  });
}

function message(text, kind) {
  showMessage(byId("plants-message"), text, kind);
}

/** "3 stops · 412 m · the shortest order" */
export function roundSummary(a) {
  const stops = `${a.stops} stop${a.stops === 1 ? "" : "s"}`;
  return `${stops} · ${metres(a.length_m)} in all · ${a.exact ? "the shortest order" : "a short order (not proven the shortest)"}`;
}

/** The legs as list items: name (`label(leg)`), the leg's distance and its bearing. */
export function roundItems(a, label) {
  return a.legs.map((leg) => el("li", { dataset: leg.region !== undefined ? { region: leg.region } : { point: String(leg.point) } },
    el("span", { class: "stop-name", text: label(leg) }),
    el("span", { class: "stop-leg" },
      `${metres(leg.distance_m)} `,
      bearingArrow(leg.bearing),
      el("span", { class: "stop-bearing", title: `${leg.bearing.toFixed(0)}° from north`, text: ` ${compassWord(leg.bearing)} ${leg.bearing.toFixed(0)}°` }))));
}

async function plantRound() {
  try {
    const a = await command({ cmd: "round", kind: "plant", due: true });
    round = a;
    byId("round-summary").textContent = roundSummary(a);
    byId("round-list").replaceChildren(...roundItems(a, (leg) => leg.name || leg.region));
    byId("round-trail-name").value = `Watering round ${new Date().toLocaleDateString([], { day: "numeric", month: "short" })}`;
    byId("round-result").hidden = false;
    byId("plants-message").hidden = true;
    emit("round", { answer: a, markers: true });
  } catch (e) {
    // No round now (none due, no fix): the one shown before would mislead.
    round = null;
    byId("round-result").hidden = true;
    emit("round", null);
    message(e.message, "error");
  }
}

/** A trail id from the time: "round-20260501-091205". */
function trailId() {
  const t = new Date();
  const two = (n) => String(n).padStart(2, "0");
  return `round-${t.getFullYear()}${two(t.getMonth() + 1)}${two(t.getDate())}-${two(t.getHours())}${two(t.getMinutes())}${two(t.getSeconds())}`;
}

async function saveAsTrail() {
  if (!round) return;
  const name = byId("round-trail-name").value.trim();
  if (!name) return message("Give the trail a name.", "error");
  try {
    const checkpoints = round.legs.map((leg) => ({ region: leg.region, action: "water" }));
    await command({ cmd: "add_trail", trail: trailId(), name, checkpoints });
    message(`Saved as the trail “${name}”: ${checkpoints.length} checkpoint${checkpoints.length === 1 ? "" : "s"} to water, in this order.`, "ok");
    await refreshTrails();
  } catch (e) {
    message(e.message, "error");
  }
}
