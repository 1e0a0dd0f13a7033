// The guidance bar: while a trail is under way, its next checkpoint's name, the distance to its
// centre and an arrow along the geodesic's initial bearing from the position (turned with the
// phone's compass when it has one, else north up); and what the trail's events say: a
// checkpoint reached, one out of order, the trail completed or stopped.
import { emit, on } from "./bus.js";
import { byId, setText } from "./dom.js";
import { compassWord, watchHeading } from "./compass.js";
import { duration, metres } from "./format.js";
import { toward } from "./geo.js";
import { hooks } from "./hooks.js";
import { showTab } from "./tabs.js";
import { checkpointCentre, nextCheckpoint, regionName, trailById, trailsNow } from "./trails.js";

let newsAfter = Infinity;   // events at or below this seq are history (the journal replayed), not news
let news = "";               // the last trail event's phrase for the user
let finished = false;        // the last run ended (completed, stopped): the bar shows how until closed
let compass = null;
let newsTimer = null;
const NEWS_MS = 20000;       // while a trail is under way its news goes after this long (the bar stays small)
let drawPending = false;
const newsLog = [];          // every phrase shown, for the tests

export function setupGuide() {
  compass = watchHeading(requestDraw);
  hooks.guide = () => ({ ...shown });
  hooks.guideNews = () => newsLog.slice();
  on("position", requestDraw);
  on("regions", requestDraw);
  on("trails", (t) => {
    if (t.active) finished = false;
    requestDraw();
  });
  on("event", (e) => {
    if (e.kind !== "trail" || !(e.seq > newsAfter)) return;
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
    emit("focus-trail");
  });
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
  const heading = compass.heading();
  const dial = byId("guide-dial");
  dial.dataset.frame = heading === null ? "north" : "heading";
  byId("guide-north").style.transform = `rotate(${(-(heading || 0)).toFixed(1)}deg)`;
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
