// The AR view (/ar/): the camera, the panorama of the layout stream placed for the compass's
// heading and pitch, the focus's details, the radar, the options.
//
// Requests: the layout stream (opened again only when an option or the stage's size changes),
// the events stream (once), STATE and REGIONS at start, REGIONS after events that change them,
// and what the user taps (Water, Capture). Turning the phone requests nothing.
import { command } from "../api.js";
import { emit, on } from "../bus.js";
import { byId, el, setText } from "../dom.js";
import { hooks } from "../hooks.js";
import { metres } from "../format.js";
import { isDue, refreshRegions, regionById, scheduleRefresh } from "../regions.js";
import { afterOutage, anotherJournal, openStream } from "../stream.js";
import { currentTarget, measureTarget, targetWhat } from "../target.js";
import { nextCheckpoint, refreshTrails, scheduleTrailsRefresh } from "../trails.js";
import { grabFrame, startCamera } from "./camera.js";
import { setupDetails, showDetails, updateDetails } from "./details.js";
import { closeLayout, openLayout } from "./layout-stream.js";
import { watchOrientation } from "./orientation.js";
import { clean, layoutQuery, loadOptions, saveOptions, setupOptionsPanel } from "./options.js";
import { place } from "./project.js";
import { Radar } from "./radar.js";
import { OrientationSmoother } from "./smoother.js";
import { setupThemeToggle } from "../theme.js";

const FOCUS_MS = 1000;        // the same box nearest the centre this long: focused
const UNFOCUS_MS = 3000;      // nothing near the centre this long: no focus
const FOCUS_REACH = 0.35;     // of W, horizontally from the centre
const NO_COMPASS_MS = 3000;
const RESIZE_MS = 300;
const KIND_LABEL = { plant: "plant", album: "album", reforestation: "area" };
const SIZES_BYTES = 16384;    // the most the sizes may take in the stream's URL (the server reads 80 KiB of head)

const stage = byId("ar-stage");
const lines = byId("ar-lines");
const video = byId("ar-video");
const radar = new Radar(byId("ar-radar"), byId("ar-radar-label"));

let options = loadOptions();
let request = null;           // {query, camera} of the open layout stream
let layout = null;            // the last PANORAMA
let layouts = 0;
let streams = 0;              // layout streams opened; each layout is told with the one it came on
const received = [];          // {n, reason, stream, ids} of the last layouts, for the tests
let heading = 0;
let pitch = 0;
let frames = 0;
let placed = [];              // [{item, p}] of the last frame
let arrows = [];              // [{id, side}]
let focus = null;             // {id, since (ms since the epoch)}
let candidate = { id: null, since: 0 };   // performance.now() ms
let focusTimer = null;
let frameRequested = false;
let videoState = "none";
let layoutState = { state: "connecting", message: "" };
let orientation = null;
let compassSeen = false;      // an absolute orientation has come
let compassMissing = false;   // none within NO_COMPASS_MS
const smoother = new OrientationSmoother();
const boxes = new Map();      // id → {node, name, meta, line, dot, arrow}

const ar = {
  layout: null,
  layouts: 0,
  query: "",
  camera: null,
  frames: 0,
  boxes: () => placed.map(({ item, p }) => ({ id: item.id, x: p.x, y: p.y, level: item.level, visible: p.visible, hidden: Boolean(item.hidden) })),
  // Each box as drawn: where the projector stacked it, its own size.
  sized: () => layout !== null && sizeTimer === null && sizedLayout === layout,
  drawn: () => [...boxes.entries()].filter(([, b]) => !b.node.hidden).map(([id, b]) => ({ id, ...b.rect })),
  // The layouts received, in order: why each was laid out and on which stream the page had open
  // (a new stream after a change of the query: the options, the stage, the boxes' sizes).
  received: () => received.map((r) => ({ ...r, ids: r.ids.slice() })),
  // Whether the page knows a region (REGIONS asked since it was added): a plant's box is
  // measured with its due dot from then on.
  knows: (id) => Boolean(regionById(id)),
  focus: null,
  radar: () => radar.dots.map((d) => ({ ...d })),
  arrows: () => arrows.filter((a) => !a.chip).map((a) => ({ ...a })),
  Smoother: OrientationSmoother,
  orientationSource: null,
  video: "none",
  options: () => ({ ...options }),
  setOptions: (partial) => applyOptions({ ...options, ...partial }),
  grabFrame: () => grabFrame(video),
  checkpoint: () => checkpointId(),
  // The target chosen with "Go there" (on the map's page): its box, or the chip pointing to it.
  target: () => ({ target: currentTarget(), boxes: [...document.querySelectorAll(".ar-box.target")].filter((b) => !b.hidden).map((b) => b.dataset.id),
    chip: targetChip.shown ? { ...targetChip.shown } : null }),
};

/** The region of the target chosen with "Go there": its box is highlighted. */
function targetId() {
  const t = currentTarget();
  return t && t.type === "region" ? t.id : null;
}

/** The region of the trail under way's next checkpoint: its box is highlighted. */
function checkpointId() {
  const next = nextCheckpoint();
  return next ? next.region : null;
}
hooks.ar = ar;

// --- Drawing ---

function requestFrame() {
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(draw);
}

/** The camera the frame is drawn with: the layout's own screen, fov, box and projection. */
function currentCamera() {
  const base = layout
    ? { screen: layout.screen.slice(), fov: layout.fov.slice(), box: layout.box.slice(), projection: layout.projection || "linear" }
    : request.camera;
  return { screen: base.screen.slice(), fov: base.fov.slice(), box: base.box.slice(), projection: base.projection, heading, pitch };
}

function draw() {
  frameRequested = false;
  const cam = currentCamera();
  const [W, H] = cam.screen;
  const items = layout ? layout.items : [];
  const seen = new Set();
  placed = [];
  arrows = [];
  // Nearer boxes over farther ones.
  const order = items.map((item, i) => [item.distance, i]).sort((a, b) => b[0] - a[0]);
  const z = new Map(order.map(([, i], k) => [items[i].id, k + 1]));

  for (const item of items) {
    const p = place(item, cam);
    placed.push({ item, p });
    seen.add(item.id);
    const b = boxes.get(item.id) || createBox(item);
    updateBox(b, item);
    if (p.visible) {
      b.node.hidden = false;
      // Drawn as stacked: the box the projector placed, its own size (measured from its text,
      // see sizeBoxes) once the layout has it.
      b.rect = { x: p.x, y: p.y, width: p.w, height: p.h };
      if (b.drawnW !== p.w || b.drawnH !== p.h) {
        b.node.style.width = `${p.w}px`;
        b.node.style.height = `${p.h}px`;
        b.drawnW = p.w;
        b.drawnH = p.h;
      }
      b.node.style.transform = `translate(${p.x}px, ${p.y}px)`;
      b.node.style.zIndex = String(z.get(item.id) + 10);
    } else {
      b.node.hidden = true;
      b.rect = null;
    }
    // A lifted box's line down to where it stood.
    if (p.visible && item.level > 0) {
      const cx = p.x + p.w / 2;
      setLine(b, cx, p.y + p.h, cx, p.anchorY + p.h / 2);
    } else {
      setLine(b, null);
    }
    // Near the view but off its sides: an arrow at the edge.
    const offSide = !p.placed || p.x >= W || p.x + p.w <= 0;
    if (!item.hidden && p.near && offSide && item.id !== targetId()) {
      const side = p.d < 0 ? "left" : "right";
      const yCentre = (p.placed ? p.y : item.y) + p.h / 2;
      const y = Math.min(Math.max(yCentre, 70), H - 40);
      arrows.push({ id: item.id, side, y });
      setArrow(b, item, side, y);
    } else {
      setArrow(b, null);
    }
  }
  for (const [id, b] of boxes) {
    if (!seen.has(id)) removeBox(id, b);
  }
  pointToTarget(cam);
  keepArrowsOffBoxes(W, H);

  updateFocus(cam);
  radar.draw(items, cam, options.maxDistance, focus && focus.id);

  frames += 1;
  ar.frames = frames;
  ar.camera = cam;
}

// --- Box sizes: each box as big as its text, and the projector stacks those sizes ---

// The distance's text changes as the walker moves; the box keeps room for the widest text of its
// form (under 1 km, under 10 km, under 100 km), so that walking resizes it (and lays the panorama
// out again) only when the distance crosses one of those.
function reserved(distance) {
  const a = Math.abs(distance);
  const form = a < 1000 ? "888 m" : a < 10000 ? "8.8 km" : a < 100000 ? "88 km" : "";
  // The text itself, its digits as 8s, where it is longer than its form's (1000 m, 10.0 km).
  const own = metres(a).replace(/[0-9]/g, "8");
  return own.length > form.length ? own : form;
}
let measurer = null;

/** [width, height] in whole pixels that the item's box needs: its name (on two lines where
 * needed) and its kind and distance, with the classes it is drawn with. */
function measure(item) {
  if (!measurer) {
    // The box's own structure, so that the same rules (bold name, bold kind and distance) apply.
    const name = el("span", { class: "ar-name" });
    const kind = el("span", { class: "ar-kind" });
    const distance = el("span", { class: "ar-distance" });
    const node = el("div", { "aria-hidden": "true", hidden: true }, name, el("span", { class: "ar-meta" }, kind, " ", distance));
    node.style.visibility = "hidden";
    stage.append(node);
    measurer = { node, name, kind, distance };
  }
  const { node, name, kind, distance } = measurer;
  node.hidden = false;
  const r = item.kind === "plant" ? regionById(item.id) : null;
  node.className = `ar-box kind-${item.kind}${checkpointId() === item.id ? " checkpoint" : ""}${r && isDue(r) ? " due" : ""}`;
  setText(name, item.name || item.id);
  setText(kind, KIND_LABEL[item.kind] || item.kind);
  setText(distance, `${reserved(item.distance)} to centre`);
  const rect = node.getBoundingClientRect();
  const w = Math.ceil(rect.width);
  const h = Math.ceil(rect.height);
  // Idle, it is no box: a query for the boxes (or the checkpoint's) never finds it.
  node.className = "";
  node.hidden = true;
  return [w, h];
}

let sizeTimer = null;
let sizedLayout = null;        // the layout whose boxes are the sizes their texts need

/** Soon: the sizes the layout's boxes need; when they are not those the stream was opened with,
 * the stream is opened again with them. */
function sizeBoxesSoon() {
  clearTimeout(sizeTimer);
  sizeTimer = setTimeout(sizeBoxes, 150);
}

function sizeBoxes() {
  sizeTimer = null;
  if (!layout || !request) return;
  const sent = request.sizes || {};
  const need = {};
  // Within the URL's budget (ids are up to 128 characters, more in a regions file): the boxes
  // first in the layout (by priority, then the nearest) are sized, the others keep the default.
  let bytes = 0;
  for (const item of layout.items) {
    bytes += encodeURIComponent(JSON.stringify(item.id)).length + 20;
    if (bytes > SIZES_BYTES) break;
    need[item.id] = measure(item);
  }
  const same = Object.entries(need).every(([id, [w, h]]) => sent[id] && sent[id][0] === w && sent[id][1] === h);
  if (same) {
    sizedLayout = layout;
    return;
  }
  // The sizes already sent stay (a POI beyond max distance now is sized when it comes back),
  // while they fit under the cap.
  const merged = { ...sent, ...need };
  const within = encodeURIComponent(JSON.stringify(merged)).length <= SIZES_BYTES;
  openLayoutFor(false, within ? merged : need);
}

function createBox(item) {
  const name = el("span", { class: "ar-name" });
  const kind = el("span", { class: "ar-kind" });
  const distance = el("span", { class: "ar-distance" });
  const node = el("div", { class: "ar-box", dataset: { id: item.id }, hidden: true },
    name, el("span", { class: "ar-meta" }, kind, " ", distance));
  stage.append(node);
  const b = { node, name, kind, distance, line: null, dot: null, arrow: null, key: "", drawnW: 0, drawnH: 0 };
  boxes.set(item.id, b);
  return b;
}

function updateBox(b, item) {
  const checkpoint = checkpointId() === item.id;
  const target = targetId() === item.id;
  const key = `${item.name}\u0000${item.kind}\u0000${item.distance}\u0000${checkpoint}\u0000${target}`;
  if (b.key !== key) {
    b.key = key;
    b.node.className = `ar-box kind-${item.kind}${checkpoint ? " checkpoint" : ""}${target ? " target" : ""}`;
    setText(b.name, item.name || item.id);
    setText(b.kind, KIND_LABEL[item.kind] || item.kind);
    setText(b.distance, `${metres(item.distance)} to centre`);
    b.node.title = `${target ? "your target · " : ""}${checkpoint ? "next checkpoint · " : ""}${item.name} · ${KIND_LABEL[item.kind] || item.kind} · ${metres(item.distance)} to its centre`;
  }
  const r = item.kind === "plant" ? regionById(item.id) : null;
  const due = Boolean(r && isDue(r));
  if (b.node.classList.contains("due") !== due) {
    b.node.classList.toggle("due", due);
    sizeBoxesSoon(); // a plant due by the clock: its dot widens the box
  }
  b.node.classList.toggle("focused", Boolean(focus && focus.id === item.id));
}

function removeBox(id, b) {
  b.node.remove();
  if (b.line) b.line.remove();
  if (b.dot) b.dot.remove();
  if (b.arrow) b.arrow.remove();
  boxes.delete(id);
}

const SVG = "http://www.w3.org/2000/svg";

function setLine(b, x1, y1, x2, y2) {
  if (x1 === null) {
    if (b.line) b.line.style.display = "none";
    if (b.dot) b.dot.style.display = "none";
    return;
  }
  if (!b.line) {
    b.line = document.createElementNS(SVG, "line");
    b.dot = document.createElementNS(SVG, "circle");
    b.dot.setAttribute("r", "3");
    lines.append(b.line, b.dot);
  }
  b.line.style.display = "";
  b.dot.style.display = "";
  b.line.setAttribute("x1", x1);
  b.line.setAttribute("y1", y1);
  b.line.setAttribute("x2", x2);
  b.line.setAttribute("y2", y2);
  b.dot.setAttribute("cx", x2);
  b.dot.setAttribute("cy", y2);
}

function setArrow(b, item, side, y) {
  if (!item) {
    if (b.arrow) b.arrow.hidden = true;
    return;
  }
  if (!b.arrow) {
    b.arrowHead = el("span", { class: "ar-arrow-head" });
    b.arrowText = el("span", { class: "ar-arrow-text" });
    b.arrow = el("div", { class: "ar-arrow", dataset: { arrowId: item.id } }, b.arrowHead, b.arrowText);
    stage.append(b.arrow);
  }
  b.arrow.hidden = false;
  b.arrow.dataset.side = side;
  b.arrow.classList.toggle(`kind-${item.kind}`, true);
  b.arrow.classList.toggle("checkpoint", checkpointId() === item.id);
  setText(b.arrowHead, side === "left" ? "‹" : "›");
  setText(b.arrowText, `${item.name} · ${metres(item.distance)} to centre`);
  b.arrowY = y;
}

/**
 * Edge arrows never over a box: each goes down (then up) from where it points until it
 * crosses no box drawn and no arrow already placed; with no room it is not drawn.
 */
function keepArrowsOffBoxes(W, H) {
  const taken = [];
  for (const b of boxes.values()) if (b.rect) taken.push(b.rect);
  const top = 60;
  const overlaps = (r) => taken.find((t) => r.x < t.x + t.width && t.x < r.x + r.width && r.y < t.y + t.height && t.y < r.y + r.height);
  for (const a of arrows) {
    const b = a.chip ? { arrow: a.chip } : boxes.get(a.id);
    if (!b || !b.arrow) continue;
    const w = b.arrow.offsetWidth;
    const h = b.arrow.offsetHeight;
    const x = a.side === "left" ? 2 : a.side === "right" ? W - 2 - w : Math.min(Math.max(a.x - w / 2, 2), W - 2 - w);
    if (a.side === "ahead") b.arrow.style.left = `${x}px`;
    let placedAt = null;
    for (const direction of [1, -1]) {
      let y = Math.min(Math.max(a.y - h / 2, top), H - h - 4);
      for (let k = 0; k < 40 && y >= top && y + h <= H - 4; k += 1) {
        const hit = overlaps({ x, y, width: w, height: h });
        if (!hit) {
          placedAt = y;
          break;
        }
        y = direction > 0 ? hit.y + hit.height + 3 : hit.y - h - 3;
      }
      if (placedAt !== null) break;
    }
    if (placedAt === null) {
      b.arrow.hidden = true;
      a.hidden = true;
      continue;
    }
    taken.push({ x, y: placedAt, width: w, height: h });
    b.arrow.style.transform = `translateY(${placedAt}px)`;
    a.y = placedAt + h / 2;
  }
}

// --- The target ("Go there" on the map's page): its box framed, else a chip pointing to it ---

const targetChip = { node: null, head: null, text: null, shown: null };
let lastPosition = null;      // the last POSITION of the events stream

/**
 * The target's box is framed (updateBox). When it has no box on the screen (turned away, beyond
 * the distance shown, or a point: a plan's spot, a tree), a chip points to it: at the side to
 * turn to, or over where it is when it is in view.
 */
function pointToTarget(cam) {
  const t = currentTarget();
  const [W] = cam.screen;
  const from = lastPosition || (layout ? { lat: layout.lat, lon: layout.lon } : null);
  const id = targetId();
  const boxShown = id !== null && placed.some(({ item, p }) => item.id === id && p.visible);
  const m = t && from && !boxShown ? measureTarget(t, from.lat, from.lon) : null;
  if (!m) {
    if (targetChip.node) targetChip.node.hidden = true;
    targetChip.shown = null;
    return;
  }
  if (!targetChip.node) {
    targetChip.head = el("span", { class: "ar-arrow-head" });
    targetChip.text = el("span", { class: "ar-arrow-text" });
    targetChip.node = el("div", { id: "ar-target", class: "ar-arrow target" }, targetChip.head, targetChip.text);
    stage.append(targetChip.node);
  }
  const delta = ((((m.bearing - cam.heading) % 360) + 540) % 360) - 180;
  const ahead = Math.abs(delta) <= cam.fov[0] / 2;
  const side = ahead ? "ahead" : delta < 0 ? "left" : "right";
  const what = targetWhat(t);
  const where = m.edge ? (m.distance >= 0 ? "inside" : `${metres(-m.distance)} to the edge`) : `${metres(m.distance)} to the ${what}`;
  targetChip.node.hidden = false;
  targetChip.node.dataset.side = side;
  if (side !== "ahead") targetChip.node.style.left = "";
  setText(targetChip.head, side === "left" ? "‹" : side === "right" ? "›" : "▾");
  setText(targetChip.text, `${t.name} · ${where}`);
  const x = W / 2 + (delta * W) / cam.fov[0];
  arrows.push({ id: "\u0000target", side, y: cam.screen[1] * 0.3, x, chip: targetChip.node });
  targetChip.shown = { side, text: targetChip.text.textContent, bearing: m.bearing, delta };
}

// --- Focus: the box nearest the centre, for a second ---

function updateFocus(cam) {
  const [W, H] = cam.screen;
  let best = null;
  let bestDistance = Infinity;
  for (const { item, p } of placed) {
    if (!p.visible) continue;
    const dx = p.x + p.w / 2 - W / 2;
    const dy = p.y + p.h / 2 - H / 2;
    if (Math.abs(dx) > FOCUS_REACH * W) continue;
    const d = Math.hypot(dx, dy);
    if (d < bestDistance) {
      bestDistance = d;
      best = item;
    }
  }
  const now = performance.now();
  const id = best ? best.id : null;
  if (candidate.id !== id) candidate = { id, since: now };
  const currentId = focus ? focus.id : null;
  if (candidate.id !== currentId) {
    const wait = (candidate.id === null ? UNFOCUS_MS : FOCUS_MS) - (now - candidate.since);
    if (wait <= 0) {
      setFocus(candidate.id === null ? null : best, candidate.since);
    } else {
      clearTimeout(focusTimer);
      focusTimer = setTimeout(requestFrame, wait + 5);
    }
  } else if (focus && best) {
    showDetails(best); // the same POI: its item may be a newer layout's
  }
}

function setFocus(item, since) {
  const previous = focus ? focus.id : null;
  focus = item ? { id: item.id, since: Date.now() - (performance.now() - since) } : null;
  ar.focus = focus;
  for (const [id, b] of boxes) b.node.classList.toggle("focused", Boolean(focus && focus.id === id));
  if ((focus && focus.id) !== previous) showDetails(item);
}

// --- The layout stream ---

function stageSize() {
  return [stage.clientWidth || window.innerWidth, stage.clientHeight || window.innerHeight];
}

function openLayoutFor(force = false, sizes = request && request.sizes) {
  const [W, H] = stageSize();
  const next = layoutQuery(options, W, H, sizes);
  if (!force && request && request.query === next.query) return;
  request = next;
  ar.query = next.query;
  streams += 1;
  const stream = streams;
  openLayout(next.query, { onLayout: (panorama) => receiveLayout(panorama, stream), onState: showLayoutState });
}

function receiveLayout(panorama, stream) {
  layout = panorama;
  layouts += 1;
  received.push({ n: layouts, reason: panorama.reason, stream, ids: panorama.items.map((i) => i.id) });
  if (received.length > 100) received.shift();
  ar.layout = panorama;
  ar.layouts = layouts;
  renderStatus();
  requestFrame();
  sizeBoxesSoon();
}

function showLayoutState(state, message) {
  layoutState = { state, message };
  renderStatus();
}

function renderStatus() {
  const node = byId("ar-status");
  const { state, message } = layoutState;
  const text = {
    connecting: "connecting…",
    live: layout ? `live · ${layout.items.length} around` : "live",
    reconnecting: "reconnecting…",
    waiting: `waiting for a fix${message ? `: ${message}` : ""}`,
    offline: `offline${message ? `: ${message}` : ""}`,
  }[state] || state;
  const full = compassMissing && !compassSeen ? `${text} · no compass` : text;
  setText(node, full);
  node.title = full;
  node.dataset.state = state;
}

function applyOptions(next) {
  options = clean(next);
  saveOptions(options);
  panel.fill(options);
  openLayoutFor();
  requestFrame();
  return { ...options };
}

// --- Orientation ---

function receiveOrientation(sample) {
  const [h, p] = smoother.add(sample.heading, sample.pitch, sample.time);
  ar.orientationSource = sample.source;
  if (sample.absolute) compassSeen = true;
  if (h !== heading || p !== pitch) {
    heading = h;
    pitch = p;
    requestFrame();
  }
  if (compassSeen && !byId("ar-compass").hidden) {
    byId("ar-compass").hidden = true;
    renderStatus();
  }
  if (!byId("ar-start").hidden) byId("ar-start").hidden = true; // the sensors are allowed
}


function checkCompass() {
  if (compassSeen) return;
  compassMissing = true;
  renderStatus();
  const hint = byId("ar-compass");
  hint.textContent = orientation.source()
    ? "no compass: the heading here is not from north. Allow motion sensors, or move the phone in a figure 8 to calibrate."
    : orientation.needsPermission
      ? "no compass yet: tap Start to allow the motion sensors."
      : "no compass: this device sends no orientation; the view faces north. Try a phone, over HTTPS.";
  hint.hidden = false;
}

// --- The events stream: regions refreshed after events that change them ---

async function startEvents() {
  let lastSeq = 0;
  let journal = null; // the journal's name (the board's STATE), which the stream is sent with
  try {
    const s = await command({ cmd: "state" });
    if (typeof s.seq === "number") lastSeq = s.seq;
    if (typeof s.journal === "string") journal = s.journal;
  } catch (e) {
    console.warn(`state: ${e.message}`);
  }
  // The stream starts after lastSeq: nothing it brings is the journal's history, so every
  // region's event is news (regions.js asks for the regions it names again: a plant added or
  // watered elsewhere gets its due dot here). Without this, regions.js waits for the Events
  // view's word on where history ends, which this page never gives, and skips every event.
  emit("journal-history", lastSeq);
  afterOutage(() => {
    scheduleRefresh();
    scheduleTrailsRefresh();
  });
  hooks.requests += 1; // the events stream's EventSource (stream.js opens it)
  openStream(() => lastSeq, (e) => {
    if (typeof e.seq === "number" && e.seq <= lastSeq) return;
    if (typeof e.seq === "number") lastSeq = e.seq;
    emit("event", e);
  }, async () => {
    const s = await command({ cmd: "state" });
    const replaced = typeof s.seq === "number" && anotherJournal(s.seq, s.journal, lastSeq, journal);
    if (typeof s.journal === "string") journal = s.journal;
    if (replaced) {
      // A new journal: the stream goes on from its last seq, and every event after it is news
      // (else regions.js would skip them until the new journal passed the old one's seq).
      lastSeq = s.seq;
      emit("journal-history", s.seq);
    }
  }, () => journal, (name) => { if (journal === null) journal = name; });
}

// --- Start ---

const panel = setupOptionsPanel(options, applyOptions);

function start() {
  setupThemeToggle();
  document.getElementById("theme-toggle").addEventListener("click", () => {
    sizeBoxesSoon(); // measured again in the new theme
    requestFrame();
  });
  panel.fill(options);
  setupDetails({ hasCamera: () => videoState === "playing", video });
  on("regions", () => {
    updateDetails();
    requestFrame();
    sizeBoxesSoon(); // a plant due or watered: its dot
  });
  on("trails", () => {
    requestFrame();
    sizeBoxesSoon(); // the next checkpoint's mark
  });
  on("target", requestFrame);
  on("position", (p) => {
    lastPosition = p;
    if (currentTarget()) requestFrame();
  });
  setInterval(updateDetails, 1000); // the countdown; no request

  const [W, H] = stageSize();
  request = layoutQuery(options, W, H);
  ar.query = request.query;
  ar.camera = { ...request.camera, heading, pitch };
  openLayoutFor(true);

  orientation = watchOrientation(receiveOrientation);
  if (orientation.needsPermission) {
    const button = byId("ar-start");
    button.hidden = false;
    button.addEventListener("click", async () => {
      try {
        const answer = await orientation.requestPermission();
        if (answer === "granted") button.hidden = true;
        else {
          byId("ar-compass").textContent = "motion sensors not allowed: the boxes cannot follow the phone (allow them in Safari's settings for this site)";
          byId("ar-compass").hidden = false;
        }
      } catch (e) {
        byId("ar-compass").textContent = `motion sensors: ${e.message}`;
        byId("ar-compass").hidden = false;
      }
    });
  }
  setTimeout(checkCompass, NO_COMPASS_MS);

  let resizeTimer = null;
  const resized = () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => openLayoutFor(), RESIZE_MS);
  };
  if (typeof ResizeObserver === "function") new ResizeObserver(resized).observe(stage);
  else window.addEventListener("resize", resized);

  const cameraHint = setTimeout(() => {
    const m = byId("ar-camera-message");
    m.textContent = "Waiting for the camera: allow it to see the boxes over the view.";
    m.hidden = false;
  }, NO_COMPASS_MS);
  startCamera(video).then((state) => {
    clearTimeout(cameraHint);
    byId("ar-camera-message").hidden = true;
    videoState = state;
    ar.video = state;
    if (state !== "playing") {
      document.body.classList.add("no-camera");
      const m = byId("ar-camera-message");
      m.textContent = state === "none"
        ? "No camera here: the boxes still follow the compass."
        : `No camera (${state}): the boxes still follow the compass.`;
      m.hidden = false;
    }
  });

  refreshRegions().catch((e) => console.warn(`regions: ${e.message}`));
  refreshTrails().catch((e) => console.warn(`trails: ${e.message}`));
  startEvents();
  window.addEventListener("pagehide", () => closeLayout());
  window.addEventListener("pageshow", (e) => { if (e.persisted) openLayoutFor(true); });
  requestFrame();
}

start();
