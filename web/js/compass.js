// Bearings as words and arrows, and the phone's compass for the guidance arrow.
import { watchOrientation } from "./ar/orientation.js";
import { AngleSmoother } from "./ar/smoother.js";

const WORDS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"];
const LONG = ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"];
const SVG = "http://www.w3.org/2000/svg";
const FRESH_MS = 2000; // a compass silent this long no longer turns the arrow

/** 44 → "NE"; `long`: "north-east". */
export function compassWord(bearing, long = false) {
  const k = Math.round((((bearing % 360) + 360) % 360) / 45) % 8;
  return (long ? LONG : WORDS)[k];
}

/** An arrow pointing up, as an SVG element (no text, so nothing to escape), `size` px. */
export function arrowSvg(size, className = "arrow") {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "-12 -12 24 24");
  svg.setAttribute("width", String(size));
  svg.setAttribute("height", String(size));
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", className);
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", "M0 -11 L8 9 L0 4.5 L-8 9 Z");
  svg.append(path);
  return svg;
}

/** A small arrow turned to `bearing` (north up), for lists. */
export function bearingArrow(bearing) {
  const svg = arrowSvg(18, "bearing-arrow");
  svg.style.transform = `rotate(${bearing.toFixed(1)}deg)`;
  return svg;
}

/**
 * The phone's heading (where its top points when held flat, where its camera looks when held
 * up), smoothed, from the AR view's sensors: `heading()` is null unless an absolute reading
 * (from north) came within the last 2 s. `onChange()` runs with each new reading.
 */
export function watchHeading(onChange) {
  const smoother = new AngleSmoother({ factor: 0.4, circular: true });
  let value = null;
  let at = 0;
  const watcher = watchOrientation((sample) => {
    if (!sample.absolute) return; // a heading not from north would turn the arrow wrongly
    value = smoother.add(sample.heading, sample.time);
    at = Date.now();
    onChange();
  }, { facing: true });
  return {
    heading: () => (value !== null && Date.now() - at < FRESH_MS ? value : null),
    needsPermission: watcher.needsPermission,
    requestPermission: () => watcher.requestPermission(),
  };
}
