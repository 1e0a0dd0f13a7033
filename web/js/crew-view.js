// The crew on the map (crew.js asks, this shows): each member a marker with its tracker id
// (tid), its name beside it, a circle of its accuracy, and in its popup, its title and the Crew
// list "board-8 · 12 s ago · ±12 m". A position older than 5 minutes is greyed and dashed, and
// says its age on the map too.
//
// The Crew button on the map opens the list (for screen readers and small screens): each member
// a button that centres the map on it. The map shrinks to make room (the list below it, or
// beside it on a phone on its side), so nothing of the map is hidden under it.
//
// Names and ids come from anyone who may publish on the broker: text only (textContent, never
// markup), control and direction characters taken out, cut for display; a position out of range
// is left out.
import { arrange, byId, el, setText } from "./dom.js";
import { duration, metres } from "./format.js";
import { hooks } from "./hooks.js";

const STALE_S = 300;           // older than this: greyed, dashed, its age on the map
const MAX_MEMBERS = 200;       // as the board keeps at most
const NAME_CHARS = 32;         // a name is cut to this for display
const MAX_CIRCLE_M = 10000;    // a wider accuracy circle is not drawn (its figure is said)
const FOCUS_ZOOM = 17;
const FOCUS_RING_MS = 4000;    // a member centred from the list is ringed this long
const LABEL_GAP = 4;

let map = null;
let stopFollowing = () => {};
let toggle = null;
const members = new Map();     // key → entry {id, key, m, marker, circle, pin, label, item, meta, popupMeta}
let nextId = 1;
let answeredAt = 0;            // Date.now() at the answer's moment (when it was kept, for a kept one)
let offline = false;
let ticker = null, focusTimer = null;

/** The crew's pane, its button and list, once its styles are in; `onFocus` is called before
 * the page moves the map to a member (the map stops following the position). */
export async function setupCrewView(leafletMap, onFocus) {
  await new Promise((resolve) => {
    document.head.append(el("link", { rel: "stylesheet", href: "crew.css", onload: resolve, onerror: resolve }));
  });
  map = leafletMap;
  stopFollowing = onFocus || stopFollowing;
  map.createPane("crew").style.zIndex = 640; // over the markers, under the position (650) and popups
  crewButton().addTo(map);
  // The list, in the map's view (hidden until the Crew button opens it).
  byId("view-map").append(el("section", { id: "crew-panel", class: "crew-panel", "aria-labelledby": "crew-title", hidden: true,
    onkeydown: (e) => { if (e.key === "Escape") openList(false); } },
  el("div", { class: "crew-head" },
    el("h2", { id: "crew-title" }, "Crew ", el("small", { id: "crew-count" })),
    el("button", { id: "crew-close", type: "button", class: "secondary", "aria-label": "Close the crew list", text: "×", onclick: () => openList(false) })),
  el("p", { id: "crew-note", class: "crew-note", role: "status" }),
  el("ul", { id: "crew-list", class: "crew-list" })));
  map.on("zoomend moveend resize", placeLabels);
  hooks.crewFocus = (name) => {
    const e = [...members.values()].find((x) => x.name === name);
    if (e) focus(e);
    return Boolean(e);
  };
}

/** Ages said every second while crew.js asks (the map shown), not otherwise. */
export function running(on) {
  clearInterval(ticker);
  ticker = on ? setInterval(tick, 1000) : null;
  if (on) tick();
}

// --- An answer ---

/** Text for display: a string or a number, without control, format (direction marks among
 * them) or separator characters, at most two combining marks in a row, cut to `n` characters
 * (code points) with "…". Blank (e.g. only U+3164): "". */
function cleanText(value, n) {
  if (typeof value !== "string" && typeof value !== "number") return "";
  const s = String(value).replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, "").replace(/(\p{M}{2})\p{M}+/gu, "$1")
    .replace(/^[\s\u2800\u3164\uffa0]+|[\s\u2800\u3164\uffa0]+$/gu, "");
  const chars = Array.from(s);
  return chars.length > n ? `${chars.slice(0, n - 1).join("")}…` : s;
}

function finite(x, min = -Infinity, max = Infinity) {
  return typeof x === "number" && Number.isFinite(x) && x >= min && x <= max ? x : null;
}

/** A member of the answer as the page shows it, or null when it cannot be placed. */
function member(m) {
  if (!m || typeof m !== "object") return null;
  const lat = finite(m.lat, -90, 90), lon = finite(m.lon, -180, 180);
  if (lat === null || lon === null) return null;
  const name = cleanText(m.name, NAME_CHARS) || cleanText(m.user, NAME_CHARS) || "(no name)";
  const tid = Array.from(cleanText(m.tid, 99) || name).slice(0, 2).join("");
  // One marker per OwnTracks user and device (the name is what to show, not who it is).
  const key = JSON.stringify(typeof m.user === "string" || typeof m.device === "string" ? [m.user, m.device] : [name]);
  return { key, name, tid, lat, lon, acc: finite(m.acc, 0), age: finite(m.age_s, 0), vel: finite(m.vel, 0), tst: finite(m.tst) };
}

/** An answer of `crew`, standing for the moment `at` (Date.now()'s clock). */
export function apply(answer, at) {
  offline = Boolean(answer && answer.offline);
  answeredAt = at;
  const given = answer && Array.isArray(answer.members) ? answer.members.slice(0, MAX_MEMBERS) : [];
  const now = new Map();
  for (const raw of given) {
    const m = member(raw);
    if (!m) hooks.crewRefused += 1;
    else if (!now.has(m.key)) now.set(m.key, m);
  }
  const list = byId("crew-list");
  const focused = list.contains(document.activeElement) ? document.activeElement : null;
  let left = null; // the place of a focused entry whose member left
  for (const [key, e] of members) {
    if (now.has(key)) continue;
    e.marker.remove();
    if (e.circle) e.circle.remove();
    // Out of the list first: the entries that stay keep their place, and focus with them.
    if (focused && e.item.contains(focused)) left = e.item.previousElementSibling || e.item.nextElementSibling;
    e.item.remove();
    members.delete(key);
  }
  for (const m of now.values()) show(m);
  const sorted = [...members.values()].sort((a, b) => a.name.localeCompare(b.name) || a.key.localeCompare(b.key));
  arrange(list, sorted.map((e) => e.item));
  // An entry moved (a rename) loses focus in the move; one whose member left hands it on.
  if (focused && focused.isConnected && document.activeElement !== focused) focused.focus();
  else if (focused && !focused.isConnected) (left?.querySelector("button") || byId("crew-close")).focus();
  setText(toggle.querySelector(".crew-count"), String(members.size));
  setText(byId("crew-count"), `(${members.size})`);
  tick();
  placeLabels();
}

/** A member's marker, circle and list entry: made the first time, updated in place after. */
function show(m) {
  let e = members.get(m.key);
  const at = [m.lat, m.lon];
  if (!e) {
    e = { id: `crew-${nextId++}`, key: m.key };
    e.dot = el("span", { class: "crew-dot" });
    e.labelName = el("span", { class: "crew-label-name", dir: "auto" });
    e.labelAge = el("span", { class: "crew-label-age" });
    e.label = el("span", { class: "crew-label" }, e.labelName, e.labelAge);
    e.pin = el("div", { class: "crew-pin" }, e.dot, e.label);
    const icon = L.divIcon({ className: "crew-marker", html: e.pin, iconSize: [44, 44] });
    e.marker = L.marker(at, { icon, pane: "crew", keyboard: false }).addTo(map);
    e.popupName = el("strong");
    e.popupMeta = el("div");
    e.marker.bindPopup(el("div", { class: "region-popup crew-popup" }, e.popupName, e.popupMeta));
    e.tid = el("span", { class: "crew-tid", "aria-hidden": "true" });
    e.itemName = el("span", { class: "crew-name", dir: "auto" });
    e.meta = el("span", { class: "crew-meta" });
    e.button = el("button", { type: "button", class: "crew-item", onclick: () => focus(e) },
      e.tid, el("span", { class: "crew-text" }, e.itemName, e.meta));
    e.item = el("li", { dataset: { crew: e.id } }, e.button);
    members.set(m.key, e);
  } else {
    e.marker.setLatLng(at);
  }
  e.m = m;
  e.name = m.name;
  setText(e.dot, m.tid);
  setText(e.popupName, m.name);
  setText(e.itemName, m.name);
  setText(e.tid, m.tid);
  const radius = m.acc !== null && m.acc <= MAX_CIRCLE_M ? m.acc : 0;
  if (radius > 0 && !e.circle) {
    e.circle = L.circle(at, { radius, interactive: false, weight: 2, fillOpacity: 0.1, className: `crew-accuracy${e.stale ? " stale" : ""}` }).addTo(map);
  } else if (radius > 0) {
    e.circle.setLatLng(at).setRadius(radius);
  } else if (e.circle) {
    e.circle.remove();
    e.circle = null;
  }
}

// --- Ages, said every second ---

/** Seconds since the member's position was taken: its age in the answer plus the time since
 * the answer (a kept answer's too), or null when the board did not say. */
function ageOf(e) {
  if (e.m.age === null) return null;
  return e.m.age + Math.max(0, (Date.now() - answeredAt) / 1000);
}

function ageText(s) {
  if (s === null) return "age unknown";
  return s < 60 ? `${Math.floor(s)} s ago` : `${duration(Math.floor(s))} ago`;
}

/** One unit, for a label on the map: "40 s ago", "7 min ago", "3 h ago", "2 d ago". */
function shortAge(s) {
  if (s === null) return "age unknown";
  const [unit, size] = s < 60 ? ["s", 1] : s < 3600 ? ["min", 60] : s < 86400 ? ["h", 3600] : ["d", 86400];
  return `${Math.floor(s / size)} ${unit} ago`;
}

/** "12 s ago · ±12 m · 3 km/h" (without the name). */
function details(e, age) {
  const parts = [ageText(age)];
  if (e.m.acc !== null) parts.push(`±${metres(e.m.acc)}`);
  if (e.m.vel !== null && e.m.vel >= 1) parts.push(`${Math.round(e.m.vel)} km/h`);
  return parts.join(" · ");
}

function tick() {
  let moved = false; // a label's text or look changed: the labels are placed again
  for (const e of members.values()) {
    const age = ageOf(e);
    const stale = age === null || age > STALE_S;
    const text = details(e, age);
    setText(e.meta, text);
    setText(e.popupMeta, text);
    // The name isolated (FSI … PDI): a right-to-left name never carries the age across it.
    e.marker.getElement()?.setAttribute("title", `\u2068${e.name}\u2069 · ${text}`);
    // A fresh position shows its name; a stale one its age too ("board-8 · 7 min ago"), the
    // name cut before the age.
    const labelAge = stale ? `\u00a0· ${shortAge(age)}` : ""; // (a flex item loses a plain leading space)
    if (e.labelName.textContent !== e.name || e.labelAge.textContent !== labelAge) {
      e.labelName.textContent = e.name;
      e.labelAge.textContent = labelAge;
      e.labelSize = null;
    }
    if (e.stale !== stale) {
      e.stale = stale;
      e.pin.classList.toggle("stale", stale);
      e.item.classList.toggle("stale", stale);
      e.circle?.getElement()?.classList.toggle("stale", stale);
      moved = true;
    }
    if (!e.labelSize) moved = true;
  }
  if (moved) placeLabels();
  // A live region: said when it changes, so it names the moment, not a running age.
  const note = byId("crew-note");
  const when = offline ? `Board out of reach: as it said at ${new Date(answeredAt).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}.` : "";
  setText(note, members.size ? when : `${when} Nobody to show: boards and phones show here when their positions reach this board's broker.`.trim());
}

// --- Names on the map: none over another ---

/** Each label right of its marker, else left, else hidden when it would cover another label, a
 * marker, a control or the last events (fresh positions first, then by name). */
function placeLabels() {
  if (!map || !members.size) return;
  const size = map.getSize();
  if (!size.x) return; // hidden: placed when shown (Leaflet's resize)
  const taken = [];
  const order = [...members.values()].sort((a, b) => Number(a.stale) - Number(b.stale) || a.name.localeCompare(b.name));
  const points = new Map(order.map((e) => [e, map.latLngToContainerPoint([e.m.lat, e.m.lon])]));
  for (const p of points.values()) taken.push({ x: p.x - 18, y: p.y - 18, w: 36, h: 36 });
  // Nor over the map's controls and the last events.
  const box = map.getContainer().getBoundingClientRect();
  for (const c of [...map.getContainer().querySelectorAll(".leaflet-control"), byId("map-events")]) {
    const visible = c && (c.checkVisibility ? c.checkVisibility({ visibilityProperty: true }) : c.offsetParent && getComputedStyle(c).visibility !== "hidden");
    if (!visible) continue;
    const r = c.getBoundingClientRect();
    if (r.width && r.height) taken.push({ x: r.left - box.left, y: r.top - box.top, w: r.width, h: r.height });
  }
  for (const e of order) {
    const p = points.get(e);
    if (!e.labelSize) {
      e.label.classList.remove("left");
      e.labelSize = { w: e.label.offsetWidth, h: e.label.offsetHeight };
    }
    const { w, h } = e.labelSize;
    const right = { x: p.x + 24, y: p.y - h / 2, w, h };
    const left = { x: p.x - 24 - w, y: p.y - h / 2, w, h };
    const fits = (b) => b.x >= 0 && b.x + b.w <= size.x && !taken.some((t) => overlaps(b, t));
    const spot = fits(right) ? right : fits(left) ? left : null;
    e.label.classList.toggle("hidden", !spot);
    e.label.classList.toggle("left", spot === left);
    if (spot) taken.push(spot);
  }
}

function overlaps(a, b) {
  return a.x < b.x + b.w + LABEL_GAP && b.x < a.x + a.w + LABEL_GAP && a.y < b.y + b.h + LABEL_GAP && b.y < a.y + a.h + LABEL_GAP;
}

// --- The list ---

function crewButton() {
  const Crew = L.Control.extend({
    options: { position: "bottomright" },
    onAdd() {
      toggle = el("button", { type: "button", id: "crew-toggle", class: "leaflet-control crew-toggle",
        "aria-expanded": "false", "aria-controls": "crew-panel", title: "The crew: boards and phones on this board's broker",
        onclick: () => openList(byId("crew-panel").hidden) },
      el("span", { text: "Crew " }), el("span", { class: "crew-count", text: "0" }));
      L.DomEvent.disableClickPropagation(toggle);
      return toggle;
    },
  });
  return new Crew();
}

function openList(open) {
  const panel = byId("crew-panel");
  const wasOpen = !panel.hidden;
  panel.hidden = !open;
  byId("view-map").classList.toggle("crew-open", open);
  toggle.setAttribute("aria-expanded", String(open));
  // The map's size changed: measured again (ResizeObserver does it too, a frame later).
  map.invalidateSize();
  if (!open && wasOpen && panel.contains(document.activeElement)) toggle.focus();
  placeLabels();
}

/** Centres the map on a member (the part of the screen the map has) and rings its marker for a
 * few seconds. No popup: it would pan the map off the member, and the list says the same. */
function focus(e) {
  stopFollowing();
  map.invalidateSize();
  map.closePopup();
  map.setView([e.m.lat, e.m.lon], Math.max(map.getZoom(), FOCUS_ZOOM), { animate: false });
  for (const other of members.values()) other.pin.classList.remove("focused");
  e.pin.classList.add("focused");
  clearTimeout(focusTimer);
  focusTimer = setTimeout(() => e.pin.classList.remove("focused"), FOCUS_RING_MS);
}

/** What the tests read (window.treeline.crew()): each member as shown. */
export function shown() {
  const box = map.getContainer().getBoundingClientRect();
  return [...members.values()].map((e) => {
    const p = map.latLngToContainerPoint(e.marker.getLatLng());
    const label = e.label.getBoundingClientRect();
    return {
      name: e.name, tid: e.dot.textContent, lat: e.marker.getLatLng().lat, lon: e.marker.getLatLng().lng,
      tst: e.m.tst, acc: e.m.acc, circle_m: e.circle ? e.circle.getRadius() : null, age_s: ageOf(e), stale: e.stale,
      x: box.left + p.x, y: box.top + p.y, label: e.label.textContent, label_shown: !e.label.classList.contains("hidden"),
      label_width: label.width, item: e.button.textContent, title: e.marker.getElement()?.getAttribute("title") || "",
      offline,
    };
  });
}
