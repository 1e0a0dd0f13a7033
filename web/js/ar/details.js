// The card of the POI in focus: a plant's due time and Water; an album's capture state and
// Capture (a frame of the camera, or a note alone without one); an area's species.
import { command, postPhoto } from "../api.js";
import { busy, byId, el, setText } from "../dom.js";
import { days, metres } from "../format.js";
import { dueText, isDue, refreshRegions, regionById, whereText } from "../regions.js";
import { grabFrame } from "./camera.js";

const KIND_TEXT = { plant: "plant", album: "album", reforestation: "area" };

let shownId = null;
let dismissedId = null;   // closed by the user: not shown again until another POI is in focus
let item = null;          // the panorama's item in focus
let hasCamera = () => false;
let video = null;
const parts = {};

export function setupDetails(options) {
  hasCamera = options.hasCamera;
  video = options.video;
  const card = byId("ar-details");
  parts.card = card;
  parts.name = byId("ar-details-name");
  parts.kind = byId("ar-details-kind");
  parts.facts = byId("ar-details-facts");
  parts.actions = byId("ar-details-actions");
  parts.message = byId("ar-details-message");
  parts.message.addEventListener("click", () => { parts.message.hidden = true; });
  byId("ar-details-close").addEventListener("click", () => {
    dismissedId = shownId;
    card.hidden = true;
  });
}

function message(text, kind) {
  parts.message.textContent = text;
  parts.message.className = `message ${kind}`;
  parts.message.hidden = !text;
}

/** Shows the card for `it` (a panorama item) or hides it (null). */
export function showDetails(it) {
  item = it;
  if (!it) {
    parts.card.hidden = true;
    shownId = null;
    dismissedId = null;
    return;
  }
  if (it.id !== dismissedId) dismissedId = null;
  if (shownId !== it.id) {
    shownId = it.id;
    message("", "info");
    parts.card.dataset.kind = it.kind;
    parts.card.dataset.id = it.id;
    buildActions(it);
  }
  parts.card.hidden = dismissedId === it.id;
  updateDetails();
}

/** The card's text again (the regions answer changed, a second passed). */
export function updateDetails() {
  if (!item || parts.card.hidden) return;
  const r = regionById(item.id);
  setText(parts.name, item.name || item.id);
  // Two distances, each saying what it measures: this one to the region's centre (the box's
  // point), whereText's to its edge (the board's distance_m).
  setText(parts.kind, `${KIND_TEXT[item.kind] || item.kind} · ${metres(item.distance)} to its centre`);
  const lines = [];
  if (item.kind === "plant") {
    if (r) {
      if (r.species) lines.push(r.species);
      lines.push(`${dueText(r)} · every ${days(r.interval_days)}`);
      lines.push(whereText(r));
      if (!r.inside) lines.push("Water is offered inside its circle: walk to the plant.");
    }
    parts.card.dataset.due = String(Boolean(r && isDue(r)));
    // Water only where the plant is: inside its circle.
    if (parts.water) parts.water.hidden = !(r && r.inside);
  } else if (item.kind === "album") {
    if (r) {
      lines.push(r.inside ? "capture allowed" : "capture locked: walk into the album");
      lines.push(`radius ${metres(r.radius_m)} · ${whereText(r)}`);
    }
    // Capture (and its note) only inside the album, where the board takes it.
    const inside = Boolean(r && r.inside);
    if (parts.capture && !parts.capture.classList.contains("busy")) parts.capture.disabled = !inside;
    if (parts.capture) parts.capture.hidden = !inside;
    if (parts.note) parts.note.hidden = !inside;
  } else if (item.kind === "reforestation") {
    if (r) {
      lines.push(r.species && r.species.length ? `species allowed: ${r.species.join(", ")}` : "any species");
      if (typeof r.spacing_m === "number") lines.push(`spacing ${metres(r.spacing_m)}`);
      lines.push(whereText(r));
    }
  }
  if (!r) lines.push("loading the region's state…");
  const text = lines.join("\n");
  setText(parts.facts, text);
}

function buildActions(it) {
  parts.capture = null;
  parts.note = null;
  parts.water = null;
  const nodes = [];
  if (it.kind === "plant") {
    const water = el("button", { type: "button", class: "water", dataset: { action: "water" }, "aria-label": `Water ${it.name}`, text: "Water" });
    water.addEventListener("click", () => busy(water, () => doWater(it)));
    water.hidden = true; // until the regions say the walker is inside
    parts.water = water;
    nodes.push(water);
  } else if (it.kind === "album") {
    parts.note = el("input", { type: "text", class: "capture-note", placeholder: "Note (optional)", maxlength: "200", "aria-label": "Note" });
    const capture = el("button", { type: "button", class: "capture", dataset: { action: "capture" }, "aria-label": `Capture in ${it.name}`, text: "Capture", disabled: true });
    capture.addEventListener("click", () => busy(capture, () => doCapture(it)).then(() => {
      const r = regionById(it.id);
      capture.disabled = !(r && r.inside); // busy() re-enabled it
    }));
    parts.capture = capture;
    nodes.push(parts.note, capture);
  }
  parts.actions.replaceChildren(...nodes);
  parts.actions.hidden = nodes.length === 0;
}

async function doWater(it) {
  try {
    const e = await command({ cmd: "water", plant: it.id });
    message(`Watered ${it.name} (seq ${e.seq}).`, "ok");
    await refreshRegions();
  } catch (e) {
    message(e.message, "error");
  }
}

async function doCapture(it) {
  const note = parts.note ? parts.note.value.trim() : "";
  try {
    const blob = hasCamera() ? await grabFrame(video) : null;
    const answer = blob ? await postPhoto(it.id, note, blob) : await command({ cmd: "capture", album: it.id, note: note || undefined });
    if (answer.recorded === false) {
      message(answer.reason || "not recorded", "error");
      return;
    }
    const c = answer.capture || {};
    message(`Capture #${c.id} recorded in ${it.name}${blob ? " with a frame of the camera" : ""}.`, "ok");
    if (parts.note) parts.note.value = "";
  } catch (e) {
    message(e.message, "error");
  }
}
