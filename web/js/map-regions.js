// The regions as vector layers, coloured by kind as in the SVG maps: plants and albums are
// circles (Point + radius_m), areas polygons with their holes. Tapping one opens its details.
import { el } from "./dom.js";
import { clock, days, metres } from "./format.js";
import { goButton } from "./go.js";
import { dueText, isDue, regionById, whereText } from "./regions.js";
import { regionTarget } from "./target.js";

const COLOURS = {
  reforestation: { fillColor: "#3a9e4f", color: "#1f6b32" },
  plant: { fillColor: "#3b7dd8", color: "#1f4f99" },
  album: { fillColor: "#f08c1a", color: "#b25f00" },
};

const drawn = new Map(); // id → {layer, shape}: shape tells when the geometry changed

export function drawnIds() {
  return [...drawn.keys()];
}

/** The layer drawn for a region, or undefined. */
export function layerOf(id) {
  const entry = drawn.get(id);
  return entry && entry.layer;
}

/** Brings `group` in line with `regions`: new ones added, changed ones redrawn, gone ones removed. */
export function drawRegions(group, regions) {
  const ids = new Set(regions.map((r) => r.id));
  for (const [id, { layer }] of drawn) {
    if (!ids.has(id)) {
      group.removeLayer(layer);
      drawn.delete(id);
    }
  }
  for (const r of regions) {
    const shape = JSON.stringify([r.geometry, r.radius_m]);
    let entry = drawn.get(r.id);
    if (entry && entry.shape !== shape) {
      group.removeLayer(entry.layer);
      entry = null;
    }
    if (!entry) {
      entry = { layer: makeLayer(r), shape };
      if (!entry.layer) continue;
      entry.layer.bindPopup(() => details(regionById(r.id) || r), { maxWidth: 260 });
      group.addLayer(entry.layer);
      drawn.set(r.id, entry);
    }
    entry.layer.setStyle(style(r));
    if (entry.layer.isPopupOpen()) entry.layer.getPopup().update(); // its content is worked out again
  }
}

function makeLayer(r) {
  const g = r.geometry;
  if (!g) return null;
  if (g.type === "Point") {
    const [lon, lat] = g.coordinates;
    return L.circle([lat, lon], { radius: r.radius_m || 1 });
  }
  return L.geoJSON(g);
}

function style(r) {
  const colours = COLOURS[r.kind] || COLOURS.reforestation;
  return {
    ...colours,
    weight: r.inside ? 4 : 2,
    fillOpacity: r.kind === "reforestation" ? 0.2 : 0.3,
    // A plant that needs water is outlined with dashes.
    dashArray: r.kind === "plant" && isDue(r) ? "6 4" : null,
  };
}

/** The popup: name, kind, id, layer, distance, and what the kind adds. */
function details(r) {
  const lines = [
    `${r.kind} · ${r.id} · ${r.layer} layer`,
    whereText(r),
  ];
  if (r.kind === "plant") {
    if (r.species) lines.push(r.species);
    lines.push(`${dueText(r)} · every ${days(r.interval_days)}`);
    lines.push(r.last_watered ? `last watered ${clock(r.last_watered)}` : "never watered");
  } else if (r.kind === "album") {
    lines.push(`radius ${metres(r.radius_m)} · capture ${r.inside ? "allowed" : "locked"}`);
  } else if (r.kind === "reforestation") {
    lines.push(r.species && r.species.length ? `species: ${r.species.join(", ")}` : "any species");
  }
  return el("div", { class: "region-popup" },
    el("strong", { text: r.name || r.id }),
    ...lines.map((text) => el("div", { text })),
    goButton(() => regionTarget(regionById(r.id) || r)));
}
