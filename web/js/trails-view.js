// The Trails list (in the Plants view): each trail with its checkpoints and progress, locked
// ones with what unlocks them; Start, Stop, and Remove after a confirmation.
// Rows are kept per id and updated in place (a tap must never land on a row just replaced).
import { command } from "./api.js";
import { on } from "./bus.js";
import { arrange, busy, byId, el, setText, showMessage } from "./dom.js";
import { clock, metres } from "./format.js";
import { refreshTrails, regionName, trailsNow } from "./trails.js";

const ACTIONS = { water: "water", capture: "capture", plant: "plant" };
const rows = new Map(); // id → {li, …}

export function setupTrailsView() {
  on("trails", render);
  on("regions", render); // checkpoint names
  byId("trails-message").addEventListener("click", (e) => { e.currentTarget.hidden = true; });
}

function message(text, kind) {
  showMessage(byId("trails-message"), text, kind);
}

function render() {
  const { active, trails } = trailsNow();
  const seen = new Set();
  const nodes = trails.map((t) => {
    seen.add(t.id);
    const row = rows.get(t.id) || createRow(t.id);
    update(row, t, active, trails);
    return row.li;
  });
  for (const id of rows.keys()) if (!seen.has(id)) rows.delete(id);
  arrange(byId("trails-list"), nodes);
  byId("trails-empty").hidden = trails.length > 0;
}

function createRow(id) {
  const row = {
    name: el("span", { class: "name" }),
    badge: el("span", { class: "badge" }),
    progress: el("p", { class: "trail-progress" }),
    checkpoints: el("ol", { class: "trail-checkpoints" }),
    start: el("button", { type: "button", class: "trail-start", text: "Start" }),
    stop: el("button", { type: "button", class: "trail-stop", text: "Stop" }),
    remove: el("button", { type: "button", class: "trail-remove secondary", text: "Remove" }),
    question: el("p", { class: "confirm-question" }),
    confirm: el("button", { type: "button", class: "trail-remove-confirm danger", text: "Remove" }),
    keep: el("button", { type: "button", class: "trail-remove-cancel secondary", text: "Keep" }),
  };
  row.confirmBox = el("div", { class: "confirm", hidden: true, role: "group", "aria-label": "Remove the trail?" },
    row.question, el("div", { class: "actions" }, row.confirm, row.keep));
  row.actions = el("div", { class: "actions" }, row.start, row.stop, row.remove);
  row.li = el("li", { class: "card trail", dataset: { id } },
    el("div", { class: "card-head" }, row.name, row.badge),
    row.progress, row.checkpoints, row.actions, row.confirmBox);
  row.start.addEventListener("click", () => busy(row.start, () => start(id)).then(() => render()));
  row.stop.addEventListener("click", () => busy(row.stop, stop).then(() => render()));
  row.remove.addEventListener("click", () => {
    row.actions.hidden = true;
    row.confirmBox.hidden = false;
    row.keep.focus();
  });
  row.keep.addEventListener("click", () => closeConfirm(row));
  row.confirm.addEventListener("click", () => busy(row.confirm, () => remove(id)).then(() => closeConfirm(row)));
  rows.set(id, row);
  return row;
}

function closeConfirm(row) {
  row.confirmBox.hidden = true;
  row.actions.hidden = false;
}

/** What the trail is now: active, locked, broken (a checkpoint gone), completed or ready. */
function stateOf(t, active) {
  if (active && active.trail === t.id) return "active";
  if (t.missing && t.missing.length) return "broken";
  if (t.locked) return "locked";
  return t.completed ? "completed" : "ready";
}

function update(row, t, active, trails) {
  const state = stateOf(t, active);
  if (row.li.dataset.state !== state) row.li.dataset.state = state;
  setText(row.name, t.name || t.id);
  const n = t.checkpoints.length;
  const count = `${n} checkpoint${n === 1 ? "" : "s"}`;
  const badge = { active: "under way", locked: "locked", broken: "cannot start", completed: "completed", ready: "" }[state];
  setText(row.badge, badge);
  row.badge.className = `badge trail-${state}`;
  row.badge.hidden = !badge;

  let progress;
  if (state === "active") {
    progress = `Checkpoint ${active.next + 1} of ${n} next: ${regionName(active.next_region)} · ${metres(active.walked_m || 0)} walked` +
      (active.out_of_order ? ` · ${active.out_of_order} out of order` : "");
  } else if (state === "broken") {
    progress = `No longer in force: ${t.missing.map(regionName).join(", ")}. Remove the trail and save it again without ${t.missing.length === 1 ? "it" : "them"}.`;
  } else if (state === "locked") {
    const names = t.requires.filter((id) => {
      const r = trails.find((x) => x.id === id);
      return !r || !r.completed;
    }).map((id) => {
      const r = trails.find((x) => x.id === id);
      return `“${(r && r.name) || id}”`;
    });
    progress = `Locked: unlocks after ${names.join(" and ")}.`;
  } else if (state === "completed") {
    progress = `${count} · completed ${clock(t.completed)}`;
  } else {
    progress = `${count} · not walked yet`;
  }
  setText(row.progress, progress);

  // The checkpoints: reached ones ticked (all of them once completed), the next one marked.
  const reachedBefore = state === "active" ? active.next : state === "completed" ? n : 0;
  const key = JSON.stringify([t.checkpoints, reachedBefore, state, t.checkpoints.map((c) => regionName(c.region))]);
  if (row.checkpoints.dataset.key !== key) {
    row.checkpoints.dataset.key = key;
    row.checkpoints.replaceChildren(...t.checkpoints.map((c, k) => {
      const reached = k < reachedBefore;
      const next = state === "active" && k === active.next;
      return el("li", { dataset: { region: c.region, reached: String(reached), next: String(next) } },
        el("span", { class: "tick", "aria-hidden": "true", text: reached ? "✓" : next ? "➜" : "" }),
        el("span", { text: regionName(c.region) }),
        c.action ? el("span", { class: "action", text: ` · ${ACTIONS[c.action] || c.action}` }) : null,
        reached ? el("span", { class: "sr-only", text: " (reached)" }) : next ? el("span", { class: "sr-only", text: " (next)" }) : null);
    }));
  }

  const other = active && active.trail !== t.id;
  row.start.hidden = state === "active";
  row.stop.hidden = state !== "active";
  if (!row.start.classList.contains("busy")) {
    row.start.disabled = state === "locked" || state === "broken" || Boolean(other);
  }
  row.start.title = other ? `“${active.name}” is under way: stop it first` : state === "locked" ? progress : "";
  row.start.textContent = state === "completed" ? "Walk again" : "Start";
  row.remove.disabled = state === "active";
  row.remove.title = state === "active" ? "Stop the trail first" : "";
  setText(row.question, `Remove “${t.name || t.id}”? Its progress goes with it.`);
}

async function start(id) {
  try {
    await command({ cmd: "start_trail", trail: id });
    byId("trails-message").hidden = true;
    await refreshTrails();
  } catch (e) {
    message(e.message, "error");
  }
}

async function stop() {
  try {
    await command({ cmd: "stop_trail" });
    byId("trails-message").hidden = true;
    await refreshTrails();
  } catch (e) {
    message(e.message, "error");
  }
}

async function remove(id) {
  const t = trailsNow().trails.find((x) => x.id === id);
  try {
    await command({ cmd: "remove_trail", trail: id });
    message(`Removed the trail “${(t && t.name) || id}”.`, "ok");
    await refreshTrails();
  } catch (e) {
    message(e.message, "error");
  }
}
