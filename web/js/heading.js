// The walker's heading, for the arrow on the position's marker: the phone's compass where it has
// one (read as the AR view and the guidance bar read it), else the course over ground while
// moving (faster than 0.5 m/s), else none.
//
// The course is the fix's own when the board's POSITION carries it (`course` or `track`, with
// `speed`); the board sends only time, place and error today, so it is worked out from the
// fixes themselves: the geodesic from the oldest fix of the last 5 s (by the fixes' own times)
// to the newest, its length over their time apart for the speed. Over 5 s the receiver's
// wander (about a metre, slowly) turns it by a few degrees where a fix-to-fix bearing would
// swing by tens.
import { emit, on } from "./bus.js";
import { watchHeading } from "./compass.js";
import { toward } from "./geo.js";
import { hooks } from "./hooks.js";

export const MOVING_MPS = 0.5;
const WINDOW_MS = 5000;     // the course over this long
const MIN_SPAN_MS = 2000;   // and not from less than this
let compass = null;
let course = null;          // {value, speed, from, to, given}
let recent = [];            // {t, lat, lon} of the last fixes, oldest first
let last = null;            // what was last emitted, to emit only changes

export function setupHeading() {
  compass = watchHeading(changed);
  on("position", (p) => {
    course = courseFrom(p);
    changed();
  });
  // A compass falls silent without an event: look again now and then.
  setInterval(changed, 1000);
  hooks.heading = () => {
    const h = currentHeading();
    return h && { ...h, course: course && { ...course } };
  };
}

/** {source: "compass" | "course", value (degrees from north)}, or null when neither is known. */
export function currentHeading() {
  const c = compass ? compass.heading() : null;
  if (c !== null) return { source: "compass", value: c };
  if (course && course.speed > MOVING_MPS && Number.isFinite(course.value)) {
    return { source: "course", value: course.value, speed: course.speed };
  }
  return null;
}

function changed() {
  const h = currentHeading();
  const key = h ? `${h.source} ${h.value.toFixed(2)}` : "none";
  if (key === last) return;
  last = key;
  emit("heading", h);
}

function courseFrom(p) {
  const t = Date.parse(p.time);
  const given = Number.isFinite(p.course) ? p.course : Number.isFinite(p.track) ? p.track : null;
  if (given !== null && Number.isFinite(p.speed)) {
    recent = [];
    return { value: ((given % 360) + 360) % 360, speed: p.speed, given: true, time: p.time };
  }
  if (!Number.isFinite(t)) return null;
  // Fixes from before a gap (an outage, a reload) or out of order start again.
  if (recent.length && (t <= recent[recent.length - 1].t || t - recent[recent.length - 1].t > WINDOW_MS)) recent = [];
  recent.push({ t, lat: p.lat, lon: p.lon, time: p.time });
  while (recent.length > 1 && recent[0].t < t - WINDOW_MS) recent.shift();
  const from = recent[0];
  const span = t - from.t;
  if (span < MIN_SPAN_MS) return null;
  const { distance, bearing } = toward(from.lat, from.lon, p.lat, p.lon);
  return {
    value: bearing,
    speed: distance / (span / 1000),
    given: false,
    from: { time: from.time, lat: from.lat, lon: from.lon },
    to: { time: p.time, lat: p.lat, lon: p.lon },
  };
}
