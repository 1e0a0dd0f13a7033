// The Map view: Leaflet on a plain background (no tiles unless web.json names some), a scale,
// a north arrow, the regions, the position and its error circle, the recent track, the
// recorded trees, a plan's numbered spots, a round's route and the trail under way.
import { on } from "./bus.js";
import { byId, el } from "./dom.js";
import { clock } from "./format.js";
import { hooks } from "./hooks.js";
import { drawRegions, drawnIds } from "./map-regions.js";
import { checkpointCentre, regionName, trailsNow } from "./trails.js";

const TRACK_COLOUR = "#a3177a";
const TRACK_POINTS = 500;      // the recent track kept on the map
const POSITION_LOG = 5000;

let map;
const ROUND_COLOUR = "#1f4f99";
const TRAIL_COLOUR = "#8a4b00";

let regionLayer, treeLayer, planLayer, roundLayer, trailLayer;
let guideLine = null;           // from the position to the next checkpoint's centre
let trailDrawn = { points: [], reached: 0, next: null, key: "" };
let marker = null, errorCircle = null, track;
let fitted = false;

export function setupMap() {
  // No tiles, so no zoom limit from them: stop where a phone's GPS stops making sense.
  map = L.map("map", { zoomSnap: 0.5, minZoom: 2, maxZoom: 21 }).setView([20, 0], 2);
  L.control.scale({ metric: true, imperial: false }).addTo(map);
  // No "Leaflet" link in the corner: a 13 px target beside the scale.
  map.attributionControl.setPrefix(false);
  northArrow().addTo(map);
  centreButton().addTo(map);

  // The position above everything, plan spots included; it takes no taps.
  map.createPane("position").style.zIndex = 650;
  map.getPane("position").style.pointerEvents = "none";

  regionLayer = L.featureGroup().addTo(map);
  track = L.polyline([], { color: TRACK_COLOUR, weight: 3, opacity: 0.8, interactive: false }).addTo(map);
  treeLayer = L.featureGroup().addTo(map);
  planLayer = L.featureGroup().addTo(map);
  trailLayer = L.featureGroup().addTo(map);
  roundLayer = L.featureGroup().addTo(map);
  hooks.mapRegionIds = drawnIds;
  // The tests open a region's popup (as a tap would) to measure its close button.
  hooks.openFirstPopup = () => {
    const layers = [];
    regionLayer.eachLayer((l) => { if (l.getPopup && l.getPopup()) layers.push(l); });
    const inView = layers.find((l) => l.getBounds && map.getBounds().contains(l.getBounds().getCenter())) || layers[0];
    if (inView) inView.openPopup(inView.getBounds ? inView.getBounds().getCenter() : undefined);
    return Boolean(inView);
  };
  hooks.closePopup = () => map.closePopup();
  // An open popup is not hidden under the last events.
  map.on("popupopen", () => document.body.classList.add("popup-open"));
  map.on("popupclose", () => document.body.classList.remove("popup-open"));
  hooks.mapRound = () => roundLayer.getLayers().filter((l) => l instanceof L.Polyline).map((l) => l.getLatLngs().map((p) => [p.lat, p.lng]));
  hooks.mapTrail = () => ({ ...trailDrawn, points: trailDrawn.points.map((p) => [p.lat, p.lon]) });

  on("regions", (answer) => {
    drawRegions(regionLayer, answer.regions);
    fitOnce();
  });
  on("position", (p) => showPosition(p, true));
  on("trees", drawTrees);
  on("plan", drawPlan);
  on("focus-plan", () => {
    if (planLayer.getLayers().length) map.fitBounds(planLayer.getBounds(), { padding: [40, 40], maxZoom: 19 });
  });
  on("round", drawRound);
  on("focus-round", () => {
    if (roundLayer.getLayers().length) map.fitBounds(roundLayer.getBounds(), { padding: [40, 40], maxZoom: 19 });
  });
  on("focus-trail", () => {
    const p = hooks.position;
    if (!trailLayer.getLayers().length) return;
    const bounds = trailLayer.getBounds();
    if (p) bounds.extend([p.lat, p.lon]);
    map.fitBounds(bounds, { padding: [40, 40], maxZoom: 19 });
  });
  on("trails", drawTrail);
  on("regions", drawTrail);
  on("position", updateGuideLine);
  // The guidance bar coming and going resizes the map.
  if (typeof ResizeObserver === "function") new ResizeObserver(() => map.invalidateSize()).observe(byId("map"));
  // A map sized while hidden needs to measure itself again.
  on("tab", (name) => {
    if (name !== "map") return;
    map.invalidateSize();
    fitOnce();
  });
}

/** web.json's tiles, when the board has a network to fetch them from. */
export function addTiles(settings) {
  if (!settings || !settings.tiles) return;
  // Servers stop at 19; closer in, the last tiles are scaled up.
  L.tileLayer(settings.tiles, { attribution: settings.attribution || "", maxNativeZoom: 19, maxZoom: 21 }).addTo(map);
}

/** STATE's last fix at load: the marker, not a POSITION (so not in positionLog). */
export function showLastFix(fix) {
  if (fix && !hooks.position) showPosition(fix, false);
}

/** TRACK's points at load, merged before whatever POSITIONs came meanwhile. */
export function showTrack(points) {
  const live = track.getLatLngs();
  const firstLive = hooks.positionLog.length ? hooks.positionLog[0].time : null;
  const old = points.filter((p) => !firstLive || p.time < firstLive).map((p) => [p.lat, p.lon]);
  track.setLatLngs(old.concat(live).slice(-TRACK_POINTS));
}

function showPosition(p, isPosition) {
  const at = [p.lat, p.lon];
  const radius = p.error_m || 0;
  if (!marker) {
    const style = { pane: "position", interactive: false };
    errorCircle = L.circle(at, { ...style, radius, color: TRACK_COLOUR, weight: 1, fillOpacity: 0.12 }).addTo(map);
    marker = L.circleMarker(at, { ...style, radius: 7, color: "#fff", weight: 2, fillColor: TRACK_COLOUR, fillOpacity: 1 }).addTo(map);
  } else {
    marker.setLatLng(at);
    errorCircle.setLatLng(at).setRadius(radius);
  }
  const shownAt = Date.now();
  hooks.position = { lat: p.lat, lon: p.lon, error_m: p.error_m, time: p.time, shownAt };
  if (!isPosition) return;
  hooks.positionLog.push({ time: p.time, shownAt });
  if (hooks.positionLog.length > POSITION_LOG) hooks.positionLog.shift();
  track.addLatLng(at);
  // Trimmed in steps, not at every fix.
  const points = track.getLatLngs();
  if (points.length > TRACK_POINTS * 1.2) track.setLatLngs(points.slice(-TRACK_POINTS));
  if (!fitted && !regionLayer.getLayers().length) {
    fitted = true;
    map.setView(at, 17);
  }
}

/** The first regions answer sets the view: every region in sight (once the map has a size). */
function fitOnce() {
  if (fitted || !regionLayer.getLayers().length || !map.getSize().x) return;
  fitted = true;
  map.fitBounds(regionLayer.getBounds(), { padding: [16, 16] });
}

function drawTrees(answer) {
  treeLayer.clearLayers();
  for (const t of answer.trees || []) {
    L.circleMarker([t.lat, t.lon], { radius: 4, color: "#0b3d0b", weight: 1, fillColor: "#1b5e20", fillOpacity: 1 })
      .bindPopup(el("div", { class: "region-popup" },
        el("strong", { text: `Tree #${t.id}` }),
        el("div", { text: t.species || "" }),
        el("div", { text: [t.planted && `planted ${clock(t.planted)}`, t.area, t.project].filter(Boolean).join(" · ") })))
      .addTo(treeLayer);
  }
}

function drawPlan(answer) {
  planLayer.clearLayers();
  (answer.trees || []).forEach((t, i) => {
    const icon = L.divIcon({ className: "plan-spot", html: String(i + 1), iconSize: [22, 22] });
    L.marker([t.lat, t.lon], { icon, keyboard: false, title: `${i + 1}. ${answer.species}` }).addTo(planLayer);
  });
}

/** A numbered marker: a round's stop or a trail's checkpoint. */
function numbered(at, n, className, title) {
  const icon = L.divIcon({ className, html: String(n), iconSize: [30, 30] });
  return L.marker(at, { icon, keyboard: false, title });
}

/** A ROUND: the line from where it was asked through its stops; numbered stops unless the
 * stops are drawn already (a plan's spots, numbered in the round's order). */
function drawRound(r) {
  roundLayer.clearLayers();
  if (!r || !r.answer) return;
  const a = r.answer;
  const line = [a.from, ...a.legs.map((leg) => leg.at)];
  L.polyline(line, { color: ROUND_COLOUR, weight: 4, opacity: 0.85, dashArray: "8 6", interactive: false, className: "round-line" }).addTo(roundLayer);
  if (!r.markers) return;
  a.legs.forEach((leg, i) => {
    numbered(leg.at, i + 1, "round-spot", `${i + 1}. ${leg.name || leg.region || `spot ${leg.point + 1}`}`).addTo(roundLayer);
  });
}

/** The trail under way: a line through its checkpoints' centres, numbered, reached ones dimmed. */
function drawTrail() {
  const { active, trails } = trailsNow();
  const t = active && trails.find((x) => x.id === active.trail);
  const points = t ? t.checkpoints.map((c) => checkpointCentre(c.region)) : [];
  const key = JSON.stringify([t && t.checkpoints, active && active.next, points]);
  if (key === trailDrawn.key) return;
  trailLayer.clearLayers();
  guideLine = null;
  trailDrawn = { points: [], reached: 0, next: null, key };
  // A round's stops would sit under the trail's numbers: while a trail is under way, only it.
  if (t && map.hasLayer(roundLayer)) map.removeLayer(roundLayer);
  if (!t && !map.hasLayer(roundLayer)) roundLayer.addTo(map);
  if (!t || points.some((p) => !p)) return;
  const at = points.map((p) => [p.lat, p.lon]);
  const reached = active.next;
  // The part walked, dimmed; the rest, bold.
  if (reached > 0) {
    L.polyline(at.slice(0, reached + 1), { color: TRAIL_COLOUR, weight: 4, opacity: 0.35, interactive: false, className: "trail-done" }).addTo(trailLayer);
  }
  L.polyline(at.slice(reached), { color: TRAIL_COLOUR, weight: 5, opacity: 0.9, interactive: false, className: "trail-line" }).addTo(trailLayer);
  t.checkpoints.forEach((c, k) => {
    const state = k < reached ? " reached" : k === reached ? " next" : "";
    numbered(at[k], k + 1, `trail-spot${state}`, `${k + 1}. ${regionName(c.region)}${k < reached ? " (reached)" : ""}`).addTo(trailLayer);
  });
  guideLine = L.polyline([], { color: TRAIL_COLOUR, weight: 2, opacity: 0.9, dashArray: "2 6", interactive: false, className: "guide-line" }).addTo(trailLayer);
  trailDrawn = { points, reached, next: active.next_region, key };
  updateGuideLine();
}

function updateGuideLine() {
  const p = hooks.position;
  const target = trailDrawn.points[trailDrawn.reached];
  if (guideLine && p && target) guideLine.setLatLngs([[p.lat, p.lon], [target.lat, target.lon]]);
}

function northArrow() {
  const Arrow = L.Control.extend({
    options: { position: "topright" },
    onAdd() {
      // The map is never rotated: north is up.
      const div = L.DomUtil.create("div", "leaflet-control north-arrow");
      div.title = "North is up";
      div.innerHTML = '<svg viewBox="0 0 24 36" width="24" height="36" aria-hidden="true">' +
        '<text x="12" y="10" text-anchor="middle" font-size="10" font-weight="bold">N</text>' +
        '<path d="M12 12 L19 34 L12 28 L5 34 Z"/></svg>';
      return div;
    },
  });
  return new Arrow();
}

function centreButton() {
  const Centre = L.Control.extend({
    options: { position: "bottomright" },
    onAdd() {
      const button = L.DomUtil.create("button", "leaflet-control centre-me");
      button.type = "button";
      button.id = "centre-me";
      button.title = "Centre on me";
      button.setAttribute("aria-label", "Centre on me");
      button.textContent = "◎";
      L.DomEvent.disableClickPropagation(button);
      L.DomEvent.on(button, "click", centreOnMe);
      return button;
    },
  });
  return new Centre();
}

function centreOnMe() {
  const p = hooks.position;
  if (p) map.setView([p.lat, p.lon], Math.max(map.getZoom(), 18));
}
