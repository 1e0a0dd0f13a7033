// The Map view: Leaflet on a plain background (no tiles unless web.json names some: the board's
// MBTiles layers or a tile URL), a scale, a north arrow, the regions and their names, the
// position with its error circle and heading, the recent track, the recorded trees, a plan's
// numbered spots, a round's route, the trail under way and the way to the target ("Go there");
// the crew (other boards and phones on the broker) and its list are crew.js's.
//
// The map follows the position (on at start): each fix centres it, until the user pans or
// zooms it by hand (Leaflet's dragstart or zoomstart while the page is not moving it itself);
// ◎ follows again (aria-pressed says which). Showing a plan, a round or a trail stops it too.
import { on } from "./bus.js";
import { byId, el } from "./dom.js";
import { setupCrew } from "./crew.js";
import { clock } from "./format.js";
import { currentHeading, setupHeading } from "./heading.js";
import { hooks } from "./hooks.js";
import { setupLabels, updateLabels } from "./map-labels.js";
import { drawRegions, drawnIds, layerOf } from "./map-regions.js";
import { regionsNow, setRegionsView } from "./regions.js";
import { goButton, goTo } from "./go.js";
import { currentTarget, measureTarget, nearestAlbum, nextDuePlant, pointTarget, regionTarget } from "./target.js";
import { checkpointCentre, regionName, trailsNow } from "./trails.js";

const TRACK_COLOUR = "#a3177a";
const TRACK_POINTS = 500;      // the recent track kept on the map
const POSITION_LOG = 5000;

let map;
const ROUND_COLOUR = "#1f4f99";
const TRAIL_COLOUR = "#8a4b00";
const TARGET_COLOUR = "#b3006b";

let regionLayer, treeLayer, planLayer, roundLayer, trailLayer;
let guideLine = null;           // from the position to the next checkpoint's centre
let trailDrawn = { points: [], reached: 0, next: null, key: "" };
let marker = null, errorCircle = null, headingMarker = null, track;
let fitted = false;
let following = true;           // the map follows the position
let selfMoving = 0;             // >0 while the page moves the map itself (not the user)
let centredOnce = false;        // the first centring zooms in to FOLLOW_ZOOM
const FOLLOW_ZOOM = 17;
let targetLine = null, targetRing = null;

export function setupMap() {
  // No tiles, so no zoom limit from them: stop where a phone's GPS stops making sense.
  map = L.map("map", { zoomSnap: 0.5, minZoom: 2, maxZoom: 21 }).setView([20, 0], 2);
  L.control.scale({ metric: true, imperial: false }).addTo(map);
  // No "Leaflet" link in the corner: a 13 px target beside the scale.
  map.attributionControl.setPrefix(false);
  northArrow().addTo(map);
  centreButton().addTo(map);
  shortcuts().addTo(map);
  setupLabels(map);
  setupFollowing();
  setupCrew(map, () => setFollowing(false)); // a member centred by the page: the map stops following
  setupHeading();

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
  hooks.firstRegionsDrawnMs = null;
  // A large board's regions are asked for what the map shows, when it stops moving.
  const tellView = () => {
    const b = map.getBounds();
    setRegionsView([b.getWest(), b.getSouth(), b.getEast(), b.getNorth()], map.getZoom());
  };
  map.on("moveend", tellView);
  tellView();
  viewNote().addTo(map);
  // The tests open a region's popup (as a tap would) to measure its close button.
  hooks.openFirstPopup = () => {
    const layers = [];
    regionLayer.eachLayer((l) => { if (l.getPopup && l.getPopup()) layers.push(l); });
    const inView = layers.find((l) => l.getBounds && map.getBounds().contains(l.getBounds().getCenter())) || layers[0];
    if (inView) inView.openPopup(inView.getBounds ? inView.getBounds().getCenter() : undefined);
    return Boolean(inView);
  };
  hooks.closePopup = () => map.closePopup();
  hooks.openRegionPopup = (id) => {
    const layer = layerOf(id);
    if (layer) layer.openPopup(layer.getBounds ? layer.getBounds().getCenter() : undefined);
    return Boolean(layer);
  };
  // An open popup is not hidden under the last events.
  map.on("popupopen", () => document.body.classList.add("popup-open"));
  map.on("popupclose", () => document.body.classList.remove("popup-open"));
  // The tests move the map as a hand would (the page stops following; mapView says where it is).
  hooks.mapSetView = (lat, lon, zoom) => { setFollowing(false); map.setView([lat, lon], zoom, { animate: false }); };
  hooks.mapPanBy = (dx, dy) => { setFollowing(false); map.panBy([dx, dy], { animate: true, duration: 1 }); };
  hooks.mapRound = () => roundLayer.getLayers().filter((l) => l instanceof L.Polyline).map((l) => l.getLatLngs().map((p) => [p.lat, p.lng]));
  hooks.mapTrail = () => ({ ...trailDrawn, points: trailDrawn.points.map((p) => [p.lat, p.lon]) });

  on("regions", (answer) => {
    const started = performance.now();
    const added = drawRegions(regionLayer, answer.regions);
    hooks.regionsDrawMs = performance.now() - started;
    if (added && hooks.firstRegionsDrawnMs === null) {
      // Painted at the next frame (the canvas redraws then): the time since navigation.
      requestAnimationFrame(() => { if (hooks.firstRegionsDrawnMs === null) hooks.firstRegionsDrawnMs = performance.now(); });
    }
    showViewNote(answer);
    updateLabels({ regions: answer.regions });
    fitOnce();
    drawTarget();
    updateShortcuts(answer.regions);
  });
  // A large board: the map looks where its regions are before any is drawn (unless it follows).
  on("regions-bounds", ([west, south, east, north]) => {
    if (fitted || (following && hooks.position) || !map.getSize().x) return;
    fitted = true;
    ourMove(() => map.fitBounds([[south, west], [north, east]], { padding: [16, 16], animate: false }));
  });
  on("position", (p) => showPosition(p, true));
  on("heading", showHeading);
  on("target", (t) => {
    updateLabels({ targetId: t && t.type === "region" ? t.id : null });
    drawTarget();
  });
  on("go", () => map.closePopup()); // "Go there" in a popup: the way is under it
  const t = currentTarget();
  updateLabels({ targetId: t && t.type === "region" ? t.id : null });
  on("trees", drawTrees);
  on("plan", drawPlan);
  // Showing a whole plan, round or trail: the map stops following (the next fix would undo it).
  on("focus-plan", () => {
    if (!planLayer.getLayers().length) return;
    setFollowing(false);
    map.fitBounds(planLayer.getBounds(), { padding: [40, 40], maxZoom: 19 });
  });
  on("round", drawRound);
  on("focus-round", () => {
    if (!roundLayer.getLayers().length) return;
    setFollowing(false);
    map.fitBounds(roundLayer.getBounds(), { padding: [40, 40], maxZoom: 19 });
  });
  on("focus-trail", () => {
    const p = hooks.position;
    if (!trailLayer.getLayers().length) return;
    const bounds = trailLayer.getBounds();
    if (p) bounds.extend([p.lat, p.lon]);
    setFollowing(false);
    map.fitBounds(bounds, { padding: [40, 40], maxZoom: 19 });
  });
  on("trails", drawTrail);
  on("regions", drawTrail);
  on("position", updateGuideLine);
  on("position", drawTarget);
  // The guidance bar coming and going resizes the map.
  if (typeof ResizeObserver === "function") new ResizeObserver(() => map.invalidateSize()).observe(byId("map"));
  // A map sized while hidden needs to measure itself again.
  on("tab", (name) => {
    if (name !== "map") return;
    map.invalidateSize();
    fitOnce();
    if (following && hooks.position) follow([hooks.position.lat, hooks.position.lon]);
  });
}

/**
 * web.json's basemaps: the board's own MBTiles layers (offline; the first shown, a switcher when
 * there are more), else a tile URL for a board with a network. Each layer keeps to its file's
 * bounds and zooms: past its maxzoom its deepest tiles are scaled up, two zooms below its minzoom
 * its shallowest are scaled down, so nothing is asked that the file cannot have.
 */
export function addTiles(settings) {
  if (!settings) return;
  const layers = Array.isArray(settings.layers) ? settings.layers : [];
  if (layers.length > 0) {
    const named = {};
    for (const l of layers) {
      const b = Array.isArray(l.bounds) && l.bounds.length === 4 ? l.bounds : null;
      const options = { attribution: l.attribution || "", maxZoom: 21 };
      if (Number.isInteger(l.maxzoom)) options.maxNativeZoom = l.maxzoom;
      // Below its minzoom its shallowest tiles are scaled down for two zooms, then the layer
      // hides: scaled from a world view, Leaflet would walk billions of tile addresses.
      if (Number.isInteger(l.minzoom)) {
        options.minNativeZoom = l.minzoom;
        options.minZoom = Math.max(0, l.minzoom - 2);
      }
      if (b) options.bounds = L.latLngBounds([b[1], b[0]], [b[3], b[2]]);
      let name = l.name || `layer ${l.id}`;
      while (named[name]) name += " ·";
      named[name] = L.tileLayer(l.url, options);
    }
    const first = Object.values(named)[0];
    first.addTo(map);
    if (layers.length > 1) L.control.layers(named, null, { collapsed: true, position: "topright" }).addTo(map);
    hooks.basemaps = () => Object.keys(named);
    return;
  }
  if (!settings.tiles) return;
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
    // The heading: a wedge outside the dot, turned about it (hidden while no heading is known).
    const icon = L.divIcon({ className: "heading-marker", iconSize: [56, 56],
      html: '<svg viewBox="-28 -28 56 56" width="56" height="56" aria-hidden="true"><path d="M0 -26 L9 -11 Q0 -14 -9 -11 Z"/></svg>' });
    headingMarker = L.marker(at, { pane: "position", icon, interactive: false, keyboard: false }).addTo(map);
    showHeading(currentHeading());
  } else {
    marker.setLatLng(at);
    errorCircle.setLatLng(at).setRadius(radius);
    headingMarker.setLatLng(at);
  }
  const shownAt = Date.now();
  hooks.position = { lat: p.lat, lon: p.lon, error_m: p.error_m, time: p.time, shownAt };
  updateLabels({ position: hooks.position });
  if (following) follow(at);
  if (!isPosition) return;
  hooks.positionLog.push({ time: p.time, shownAt, lat: p.lat, lon: p.lon });
  if (hooks.positionLog.length > POSITION_LOG) hooks.positionLog.shift();
  track.addLatLng(at);
  // Trimmed in steps, not at every fix.
  const points = track.getLatLngs();
  if (points.length > TRACK_POINTS * 1.2) track.setLatLngs(points.slice(-TRACK_POINTS));
}

/** The position's arrow: the compass's heading, else the course while moving; none without. */
function showHeading(h) {
  if (!headingMarker) return;
  const node = headingMarker.getElement();
  if (!node) return;
  const svg = node.firstElementChild;
  if (!h) {
    node.dataset.source = "none";
    svg.style.visibility = "hidden";
    return;
  }
  node.dataset.source = h.source;
  node.dataset.heading = h.value.toFixed(2);
  svg.style.visibility = "";
  svg.style.transform = `rotate(${h.value.toFixed(2)}deg)`;
}

// --- Following the position ---

/** Runs `move` (which moves the map) as the page's own move: no user's pan or zoom. */
function ourMove(move) {
  selfMoving += 1;
  try {
    move();
  } finally {
    selfMoving -= 1;
  }
}

function setupFollowing() {
  // Leaflet fires dragstart only for a drag by hand; zoomstart for any zoom, so the page's own
  // (always unanimated, so synchronous) are told apart by selfMoving. A zoom by the buttons,
  // the wheel, a pinch or a double tap is animated, and starts outside ourMove.
  const byHand = () => {
    if (!selfMoving) setFollowing(false);
  };
  map.on("dragstart", byHand);
  map.on("zoomstart", byHand);
  // Panning with the keyboard's arrows (Leaflet pans without a dragstart).
  map.on("keydown", (e) => {
    if (/^Arrow/.test(e.originalEvent.key)) setFollowing(false);
  });
  hooks.mapView = () => {
    const c = map.getCenter();
    return { lat: c.lat, lon: c.lng, zoom: map.getZoom(), following };
  };
  hooks.setMapZoom = (z) => map.setZoom(z, { animate: false }); // as a user's zoom: stops following
}

function setFollowing(on) {
  following = on;
  const button = byId("centre-me");
  if (button) {
    button.setAttribute("aria-pressed", String(on));
    button.title = on ? "Following your position: tap to stop" : "Follow my position";
  }
}

/** Centres the map on `at` (the first time zoomed in to FOLLOW_ZOOM), unless a popup is open. */
function follow(at) {
  if (!map.getSize().x) return; // hidden: centred when shown
  if (document.body.classList.contains("popup-open")) return; // the popup stays where it is
  const zoom = centredOnce ? map.getZoom() : Math.max(map.getZoom(), FOLLOW_ZOOM);
  centredOnce = true;
  fitted = true;
  ourMove(() => map.setView(at, zoom, { animate: false }));
}

/** Before the first fix, every region in sight (once the map has a size). */
function fitOnce() {
  if (fitted || !regionLayer.getLayers().length || !map.getSize().x) return;
  fitted = true;
  if (following && hooks.position) {
    follow([hooks.position.lat, hooks.position.lon]);
    return;
  }
  ourMove(() => map.fitBounds(regionLayer.getBounds(), { padding: [16, 16], animate: false }));
}

// --- The target ("Go there") ---

/** A dotted line from the position to the target's edge (or point), a ring on a point target. */
function drawTarget() {
  const t = currentTarget();
  const p = hooks.position;
  const m = t && p ? measureTarget(t, p.lat, p.lon) : null;
  if (!m) {
    if (targetLine) targetLine.remove();
    if (targetRing) targetRing.remove();
    targetLine = targetRing = null;
    return;
  }
  const line = [[p.lat, p.lon], [m.to.lat, m.to.lon]];
  if (!targetLine) {
    targetLine = L.polyline(line, { color: TARGET_COLOUR, weight: 3, opacity: 0.95, dashArray: "2 7", interactive: false, className: "target-line" }).addTo(map);
  } else {
    targetLine.setLatLngs(line);
  }
  if (t.type === "point") {
    if (!targetRing) {
      targetRing = L.circleMarker([t.lat, t.lon], { radius: 12, color: TARGET_COLOUR, weight: 3, fill: false, interactive: false, className: "target-ring" }).addTo(map);
    } else {
      targetRing.setLatLng([t.lat, t.lon]);
    }
  } else if (targetRing) {
    targetRing.remove();
    targetRing = null;
  }
}

function drawTrees(answer) {
  treeLayer.clearLayers();
  for (const t of answer.trees || []) {
    const name = `Tree #${t.id}${t.species ? ` (${t.species})` : ""}`;
    L.circleMarker([t.lat, t.lon], { radius: 4, color: "#0b3d0b", weight: 1, fillColor: "#1b5e20", fillOpacity: 1 })
      .bindPopup(el("div", { class: "region-popup" },
        el("strong", { text: `Tree #${t.id}` }),
        el("div", { text: t.species || "" }),
        el("div", { text: [t.planted && `planted ${clock(t.planted)}`, t.area, t.project].filter(Boolean).join(" · ") }),
        goButton(() => pointTarget(name, t.lat, t.lon, "tree"))))
      .addTo(treeLayer);
  }
}

function drawPlan(answer) {
  planLayer.clearLayers();
  (answer.trees || []).forEach((t, i) => {
    const icon = L.divIcon({ className: "plan-spot", html: String(i + 1), iconSize: [22, 22] });
    const name = `Spot ${i + 1} (${answer.species})`;
    L.marker([t.lat, t.lon], { icon, keyboard: false, title: `${i + 1}. ${answer.species}` })
      .bindPopup(el("div", { class: "region-popup" }, el("strong", { text: name }),
        goButton(() => pointTarget(name, t.lat, t.lon, "spot"))))
      .addTo(planLayer);
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

/** "Showing 1,500 of 98,113 regions here: zoom in to see them all", while a view is cut. */
function viewNote() {
  const Note = L.Control.extend({
    options: { position: "topleft" },
    onAdd() {
      const div = L.DomUtil.create("div", "leaflet-control view-note");
      div.id = "view-note";
      div.setAttribute("role", "status");
      div.hidden = true;
      Object.assign(div.style, { background: "#fff", color: "#1a1a1a", font: "16px/1.3 system-ui, sans-serif", padding: "4px 8px",
        borderRadius: "4px", maxWidth: "14em", boxShadow: "0 1px 4px rgba(0,0,0,.4)" });
      return div;
    },
  });
  return new Note();
}

function showViewNote(answer) {
  const note = byId("view-note");
  if (!note) return;
  const v = answer.view;
  const cut = answer.mode === "view" && v && v.truncated;
  note.hidden = !cut;
  if (cut) note.textContent = `Showing the ${v.shown.toLocaleString("en")} largest of ${v.total.toLocaleString("en")} regions here: zoom in to see them all`;
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
      // A toggle: pressed while the map follows the position.
      const button = L.DomUtil.create("button", "leaflet-control centre-me");
      button.type = "button";
      button.id = "centre-me";
      button.setAttribute("aria-label", "Follow my position");
      button.setAttribute("aria-pressed", String(following));
      button.title = following ? "Following your position: tap to stop" : "Follow my position";
      button.textContent = "◎";
      L.DomEvent.disableClickPropagation(button);
      L.DomEvent.on(button, "click", centreOnMe);
      return button;
    },
  });
  return new Centre();
}

function centreOnMe() {
  if (following) {
    setFollowing(false);
    return;
  }
  setFollowing(true);
  const p = hooks.position;
  if (p) ourMove(() => map.setView([p.lat, p.lon], Math.max(map.getZoom(), FOLLOW_ZOOM), { animate: false }));
}

// --- Shortcuts: go to the next due plant, the nearest album ---

function shortcuts() {
  const Shortcuts = L.Control.extend({
    options: { position: "bottomleft" },
    onAdd() {
      const box = L.DomUtil.create("div", "leaflet-control go-shortcuts");
      box.setAttribute("role", "group");
      box.setAttribute("aria-label", "Go to");
      // Side by side; on a narrow screen their short names ("Due plant", "Album").
      const button = (id, long, short, pick) => el("button", { type: "button", id, class: "go-shortcut", "aria-label": long, title: `Go to the ${long.toLowerCase()}`,
        hidden: true, onclick: () => goNext(pick) }, el("span", { class: "long", text: long }), el("span", { class: "short", text: short }));
      box.append(button("go-due-plant", "Next due plant", "Due plant", nextDuePlant), button("go-album", "Nearest album", "Album", nearestAlbum));
      L.DomEvent.disableClickPropagation(box);
      L.DomEvent.disableScrollPropagation(box);
      return box;
    },
  });
  return new Shortcuts();
}

function goNext(pick) {
  const r = pick(regionsNow(), hooks.position);
  if (r) goTo(regionTarget(r));
}

/** The shortcuts only when there is something to go to. */
function updateShortcuts(regions) {
  const plant = nextDuePlant(regions);
  const album = nearestAlbum(regions);
  const due = byId("go-due-plant");
  due.hidden = !plant;
  byId("go-album").hidden = !album;
}
