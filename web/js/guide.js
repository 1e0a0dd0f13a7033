// The guidance bar: while a trail is under way, its next checkpoint's name, the distance to its
// centre and an arrow along the geodesic's initial bearing from the position (turned with the
// phone's compass when it has one, else north up, and the bar says so); and what the trail's
// events say: a checkpoint reached, one out of order, the trail completed or stopped.
//
// "Go there" (a region's popup, a plant's or an album's card, a plan's spot, a tree) makes a
// target: the bar then leads to it instead: its name, the distance to a region's edge (positive
// inside, as REGIONS' distance_m) or to the point, the arrow to the region's nearest edge (its
// centre once inside) or to the point, and "Arrived" when the monitor reports the enter (a
// point: within the fix's error), until × closes it. The user's choice wins over a trail under
// way: the bar says the trail goes on, and closing the target brings the checkpoint back;
// starting a trail replaces the target.
import { emit, on } from "./bus.js";
import { byId, setText } from "./dom.js";
import { compassWord, watchHeading } from "./compass.js";
import { duration, metres } from "./format.js";
import { toward } from "./geo.js";
import { hooks } from "./hooks.js";
import { regionById } from "./regions.js";
import { showTab } from "./tabs.js";
import { clearTarget, currentTarget, markArrived, measureTarget, targetWhat } from "./target.js";
import { checkpointCentre, nextCheckpoint, regionName, trailById, trailsNow } from "./trails.js";

let newsAfter = Infinity;   // events at or below this seq are history (the journal replayed), not news
let news = "";               // the last trail event's phrase for the user
let finished = false;        // the last run ended (completed, stopped): the bar shows how until closed
let compass = null;
let newsTimer = null;
const NEWS_MS = 20000;       // while a trail is under way its news goes after this long (the bar stays small)
let drawPending = false;
const newsLog = [];          // every phrase shown, for the tests
const TARGET_LOG = 600;      // the last distances shown to the target, by fix, for the tests
const targetLog = [];
let targetNews = "";         // "Arrived at …" (announced once)
let targetKey = "";          // which target targetNews is about

export function setupGuide() {
  compass = watchHeading(requestDraw);
  hooks.guide = () => ({ ...shown });
  hooks.guideNews = () => newsLog.slice();
  hooks.guideLog = () => targetLog.slice();
  on("position", requestDraw);
  on("regions", requestDraw);
  on("target", (t) => {
    // Another target (or none): the last one's arrival is no news about it.
    const key = t ? `${t.type} ${t.id || t.name} ${t.since}` : "";
    if (key !== targetKey) targetNews = "";
    targetKey = key;
    requestDraw();
  });
  on("trails", (t) => {
    if (t.active) finished = false;
    requestDraw();
  });
  on("event", (e) => {
    if (!(e.seq > newsAfter)) return;
    arrivals(e);
    if (e.kind !== "trail") return;
    // A trail started now is the latest choice: it replaces the target.
    if (e.type === "trail_started") clearTarget();
    const phrase = guidePhrase(e);
    if (!phrase) return;
    news = phrase;
    newsLog.push(phrase);
    if (e.type === "trail_completed" || e.type === "trail_stopped") finished = true;
    if (e.type === "trail_started") finished = false;
    clearTimeout(newsTimer);
    if (!finished) {
      newsTimer = setTimeout(() => {
        if (news === phrase && !finished) news = "";
        requestDraw();
      }, NEWS_MS);
    }
    requestDraw();
  });
  byId("guide-close").addEventListener("click", () => {
    if (currentTarget()) {
      clearTarget();
      requestDraw();
      return;
    }
    finished = false;
    news = "";
    requestDraw();
  });
  byId("guide-dial").addEventListener("click", async () => {
    if (compass.needsPermission && compass.heading() === null) {
      try {
        await compass.requestPermission();
      } catch (e) {
        console.warn(`compass: ${e.message}`);
      }
    }
    showTab("map");
    if (!currentTarget()) emit("focus-trail");
  });
}

/** The monitor's enter (exit) of the target's region: arrived (on the way again). */
function arrivals(e) {
  const t = currentTarget();
  if (!t || t.type !== "region" || e.region !== t.id) return;
  if (e.type === "enter") {
    markArrived(true);
    targetNews = `Arrived at ${t.name}.`;
    newsLog.push(targetNews);
  } else if (e.type === "exit") {
    markArrived(false);
    targetNews = "";
  }
  requestDraw();
}

/** Trail events after `seq` are news (the ones before it were replayed from the journal). */
export function guideNewsAfter(seq) {
  newsAfter = Number.isFinite(seq) ? seq : 0;
}

/** What the bar says about a trail event, or "" for none. */
function guidePhrase(e) {
  const n = e.of;
  switch (e.type) {
    case "trail_started":
      return `Trail started: ${n} checkpoint${n === 1 ? "" : "s"}.`;
    case "checkpoint_reached":
      return `Checkpoint ${e.index + 1} of ${n} reached: ${regionName(e.region)}.`;
    case "checkpoint_out_of_order": {
      const t = trailById(e.trail);
      const expected = t && t.checkpoints[e.expected] ? regionName(t.checkpoints[e.expected].region) : `checkpoint ${e.expected + 1}`;
      return `Out of order: go to ${expected} first.`;
    }
    case "trail_completed":
      return `Trail “${e.name}” completed in ${duration(e.took_s || 0)}, ${metres(e.walked_m || 0)} walked.`;
    case "trail_stopped":
      return `Trail “${e.name}” stopped.`;
    default:
      return "";
  }
}

let shown = { state: "none" };

/** Draws again (the position shown changed without a POSITION: STATE's last fix at load). */
export function redrawGuide() {
  requestDraw();
}

function requestDraw() {
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(() => {
    drawPending = false;
    draw();
  });
}

function draw() {
  const bar = byId("guide");
  const next = nextCheckpoint();
  const p = hooks.position;
  const t = currentTarget();
  byId("guide-trail").hidden = true;
  if (t) {
    drawTarget(bar, t, next, p);
    return;
  }
  bar.setAttribute("aria-label", "Trail: the next checkpoint");
  byId("guide-close").setAttribute("aria-label", "Close");
  delete bar.dataset.arrived;
  if (!next && !finished) {
    bar.hidden = true;
    shown = { state: "none" };
    return;
  }
  bar.hidden = false;
  setText(byId("guide-news"), news);
  byId("guide-news").hidden = !news;
  if (!next) {
    // The run ended: how, until the bar is closed.
    bar.dataset.state = "finished";
    delete bar.dataset.region;
    byId("guide-dial").hidden = true;
    byId("guide-text").hidden = true;
    byId("guide-close").hidden = false;
    if (!news) {
      setText(byId("guide-news"), "Trail ended.");
      byId("guide-news").hidden = false;
    }
    shown = { state: "finished", news };
    return;
  }
  bar.dataset.state = "active";
  bar.dataset.region = next.region;
  byId("guide-dial").hidden = false;
  byId("guide-text").hidden = false;
  byId("guide-close").hidden = true;
  setText(byId("guide-step"), `${next.index + 1}/${next.of}`);
  byId("guide-step").title = `checkpoint ${next.index + 1} of ${next.of} of ${trailsNow().active.name}`;
  setText(byId("guide-name"), regionName(next.region));
  const c = checkpointCentre(next.region);
  const heading = setFrame();
  const dial = byId("guide-dial");
  if (!c || !p) {
    setText(byId("guide-distance"), p ? "where it is: unknown" : "waiting for a fix");
    byId("guide-arrow").style.visibility = "hidden";
    shown = { state: "active", region: next.region, index: next.index, of: next.of };
    return;
  }
  const { distance, bearing } = toward(p.lat, p.lon, c.lat, c.lon);
  const rotation = (((bearing - (heading || 0)) % 360) + 360) % 360;
  const arrow = byId("guide-arrow");
  arrow.style.visibility = "";
  arrow.style.transform = `rotate(${rotation.toFixed(2)}deg)`;
  arrow.dataset.bearing = bearing.toFixed(2);
  setText(byId("guide-distance"), `${metres(distance)} to the centre · ${compassWord(bearing)}`);
  dial.setAttribute("aria-label", `${compassWord(bearing, true)}, ${metres(distance)}: show on the map`);
  shown = { state: "active", region: next.region, index: next.index, of: next.of, distance, bearing, rotation,
    frame: dial.dataset.frame, from: { lat: p.lat, lon: p.lon }, to: c };
}

/** The dial's frame: turned with the compass, else north up (and the bar says so). Its heading, or null. */
function setFrame() {
  const heading = compass.heading();
  const dial = byId("guide-dial");
  dial.dataset.frame = heading === null ? "north" : "heading";
  byId("guide-north").style.transform = `rotate(${(-(heading || 0)).toFixed(1)}deg)`;
  byId("guide-frame").hidden = heading !== null;
  return heading;
}

const WHAT = { plant: "Plant", album: "Album", area: "Area", spot: "Spot", tree: "Tree" };

/** The bar leading to the target: where it is, or "Arrived". */
function drawTarget(bar, t, next, p) {
  bar.hidden = false;
  bar.dataset.state = "target";
  if (t.type === "region") bar.dataset.region = t.id;
  else delete bar.dataset.region;
  bar.setAttribute("aria-label", `Going to ${t.name}`);
  byId("guide-dial").hidden = false;
  byId("guide-text").hidden = false;
  const close = byId("guide-close");
  close.hidden = false;
  close.setAttribute("aria-label", `Stop going to ${t.name}`);
  const what = targetWhat(t);
  setText(byId("guide-step"), WHAT[what] || what);
  byId("guide-step").title = `going to this ${what}`;
  const r = t.type === "region" ? regionById(t.id) : null;
  setText(byId("guide-name"), (r && r.name) || t.name);
  // The trail goes on meanwhile: its news still shows, and × goes back to it.
  const trailNote = next ? `Trail “${trailsNow().active.name}” goes on: close this to go back to checkpoint ${next.index + 1}/${next.of}.` : "";
  setText(byId("guide-trail"), trailNote);
  byId("guide-trail").hidden = !trailNote;
  const newsNow = targetNews || (next ? news : "");
  setText(byId("guide-news"), newsNow);
  byId("guide-news").hidden = !newsNow;
  const heading = setFrame();
  const dial = byId("guide-dial");
  const arrow = byId("guide-arrow");
  const m = p ? measureTarget(t, p.lat, p.lon) : null;
  if (!m) {
    setText(byId("guide-distance"), p ? "where it is: unknown" : "waiting for a fix");
    arrow.style.visibility = "hidden";
    delete bar.dataset.arrived;
    shown = { state: "target", target: { ...t } };
    return;
  }
  // A region: the monitor's word (its enter); a point: within the fix's error.
  const arrived = t.type === "region" ? Boolean(t.arrived) : m.distance <= (p.error_m || 0);
  bar.dataset.arrived = String(arrived);
  const rotation = (((m.bearing - (heading || 0)) % 360) + 360) % 360;
  arrow.style.visibility = "";
  arrow.style.transform = `rotate(${rotation.toFixed(2)}deg)`;
  arrow.dataset.bearing = m.bearing.toFixed(2);
  let text;
  if (m.edge) {
    // Over the line but not entered yet: the monitor waits for evidence beyond the boundary.
    text = m.distance < 0 ? `${metres(-m.distance)} to the edge · ${compassWord(m.bearing)}`
      : arrived ? `inside, ${metres(m.distance)} from the edge` : "at the edge";
  } else {
    text = `${metres(m.distance)} to the ${what} · ${compassWord(m.bearing)}`;
  }
  if (arrived) text = `Arrived: ${m.edge ? text : `${metres(m.distance)} from the ${what}`}`;
  setText(byId("guide-distance"), text);
  dial.setAttribute("aria-label", `${arrived ? "Arrived" : `${compassWord(m.bearing, true)}, ${metres(Math.abs(m.distance))}`}: show on the map`);
  shown = { state: "target", target: { ...t }, distance: m.distance, edge: m.edge, bearing: m.bearing, rotation, heading,
    frame: dial.dataset.frame, arrived, text, from: { lat: p.lat, lon: p.lon, time: p.time }, to: m.to };
  if (p.time && (!targetLog.length || targetLog[targetLog.length - 1].time !== p.time || targetLog[targetLog.length - 1].id !== (t.id || t.name))) {
    targetLog.push({ time: p.time, id: t.id || t.name, distance: m.distance, text, rotation, bearing: m.bearing, heading });
    if (targetLog.length > TARGET_LOG) targetLog.shift();
  }
}
