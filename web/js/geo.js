// Distances, bearings and centres on WGS84: enough for "how far, which way" while walking.
const R = 6371008.8; // mean Earth radius, metres
const A = 6378137; // WGS84 semi-major axis
const F = 1 / 298.257223563;
const E2 = F * (2 - F);
const RAD = Math.PI / 180;

export function haversine(lat1, lon1, lat2, lon2) {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** The ellipsoid's radii of curvature at a latitude: [meridian M, prime vertical N], metres. */
function radii(lat) {
  const s = Math.sin(lat * RAD);
  const w = Math.sqrt(1 - E2 * s * s);
  return [A * (1 - E2) / (w * w * w), A / w];
}

/** Shorter of the two ways round in longitude, in degrees. */
function deltaLon(lon1, lon2) {
  let d = (lon2 - lon1) % 360;
  if (d > 180) d -= 360;
  if (d <= -180) d += 360;
  return d;
}

/**
 * The geodesic from one point to another: {distance (m), bearing (initial, degrees from true
 * north, [0, 360))}. On the ellipsoid's plane at the mean latitude, with the meridians'
 * convergence taken off for the initial bearing: within 0.0001° and 0.0001 % of the exact geodesic
 * (Vincenty's) below 10 km; beyond that the sphere's great circle (within about 0.3° and 0.5 %).
 */
export function toward(lat1, lon1, lat2, lon2) {
  const dLon = deltaLon(lon1, lon2);
  const mid = (lat1 + lat2) / 2;
  const [M, N] = radii(mid);
  const dx = N * Math.cos(mid * RAD) * dLon * RAD;
  const dy = M * (lat2 - lat1) * RAD;
  let distance = Math.hypot(dx, dy);
  let bearing;
  if (distance < 10000) {
    bearing = Math.atan2(dx, dy) / RAD - (dLon * Math.sin(mid * RAD)) / 2;
  } else {
    const p1 = lat1 * RAD, p2 = lat2 * RAD, l = dLon * RAD;
    bearing = Math.atan2(Math.sin(l) * Math.cos(p2), Math.cos(p1) * Math.sin(p2) - Math.sin(p1) * Math.cos(p2) * Math.cos(l)) / RAD;
    distance = haversine(lat1, lon1, lat2, lon2);
  }
  return { distance, bearing: ((bearing % 360) + 360) % 360 };
}

/**
 * The point that stands for a region (REGIONS' geometry): a circle's centre, a polygon's area
 * centroid (holes taken off), worked out as the daemon does (Shape.centroid) in a local
 * east/north plane around the vertices' mean. {lat, lon}, or null without a geometry.
 */
export function centre(geometry) {
  if (!geometry) return null;
  if (geometry.type === "Point") return { lat: geometry.coordinates[1], lon: geometry.coordinates[0] };
  const parts = geometry.type === "Polygon" ? [geometry.coordinates]
    : geometry.type === "MultiPolygon" ? geometry.coordinates : null;
  if (!parts) return null;
  const vertices = parts.flat(2);
  if (!vertices.length) return null;
  const lat0 = vertices.reduce((s, v) => s + v[1], 0) / vertices.length;
  const lon0 = vertices.reduce((s, v) => s + v[0], 0) / vertices.length;
  const [M, N] = radii(lat0);
  const kx = N * Math.cos(lat0 * RAD) * RAD, ky = M * RAD;
  let area = 0, sx = 0, sy = 0;
  for (const rings of parts) {
    rings.forEach((ring, k) => {
      const pts = ring.map(([lon, lat]) => [deltaLon(lon0, lon) * kx, (lat - lat0) * ky]);
      let a = 0, mx = 0, my = 0;
      for (let i = 0; i < pts.length; i++) {
        const [px, py] = pts[i];
        const [qx, qy] = pts[(i + 1) % pts.length];
        const cross = px * qy - qx * py;
        a += cross;
        mx += (px + qx) * cross;
        my += (py + qy) * cross;
      }
      // Whatever the winding, the outer ring adds its area and a hole takes its own away.
      const sign = (k === 0) === (a >= 0) ? 1 : -1;
      area += sign * a / 2;
      sx += sign * mx / 6;
      sy += sign * my / 6;
    });
  }
  if (Math.abs(area) < 1e-9) return { lat: lat0, lon: lon0 };
  return { lat: lat0 + sy / area / ky, lon: lon0 + sx / area / kx };
}

/**
 * How far a point is from a region's boundary, as REGIONS' `distance_m` says it (positive
 * inside), and the boundary's nearest point: {distance (m), nearest {lat, lon}}, or null without
 * a geometry. A circle (Point + radius) by the geodesic to its centre; a polygon in a local
 * east/north plane around the point (within a few centimetres of the geodesic below 1 km).
 */
export function edgeDistance(geometry, radius, lat, lon) {
  if (!geometry) return null;
  if (geometry.type === "Point") {
    const [clon, clat] = geometry.coordinates;
    const { distance, bearing } = toward(lat, lon, clat, clon);
    const r = typeof radius === "number" ? radius : 0;
    // The nearest point of the circle, along the way to its centre (its centre when on it).
    const k = distance > 0 ? (distance - r) / distance : 0;
    const nearest = distance > 0 ? offset(lat, lon, bearing, distance * k) : { lat: clat, lon: clon };
    return { distance: r - distance, nearest, centre: { lat: clat, lon: clon } };
  }
  const polygons = geometry.type === "Polygon" ? [geometry.coordinates]
    : geometry.type === "MultiPolygon" ? geometry.coordinates : null;
  if (!polygons || !polygons.length) return null;
  const [M, N] = radii(lat);
  const kx = N * Math.cos(lat * RAD) * RAD, ky = M * RAD;
  const xy = ([vlon, vlat]) => [deltaLon(lon, vlon) * kx, (vlat - lat) * ky];
  let best = Infinity, bx = 0, by = 0, inside = false;
  for (const rings of polygons) {
    let inThis = false;
    rings.forEach((ring, k) => {
      const pts = ring.map(xy);
      let crossings = false;
      for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
        const [ax, ay] = pts[j];
        const [qx, qy] = pts[i];
        // The nearest point of this side to the origin (the walker).
        const dx = qx - ax, dy = qy - ay;
        const len = dx * dx + dy * dy;
        const t = len > 0 ? Math.max(0, Math.min(1, -(ax * dx + ay * dy) / len)) : 0;
        const nx = ax + t * dx, ny = ay + t * dy;
        const d = Math.hypot(nx, ny);
        if (d < best) {
          best = d;
          bx = nx;
          by = ny;
        }
        if ((ay > 0) !== (qy > 0) && 0 < ax + (0 - ay) * (qx - ax) / (qy - ay)) crossings = !crossings;
      }
      if (k === 0) inThis = crossings;
      else if (crossings) inThis = false; // in a hole
    });
    if (inThis) inside = true;
  }
  const nearest = { lat: lat + by / ky, lon: lon + bx / kx };
  return { distance: inside ? best : -best, nearest, centre: centre(geometry) };
}

/** The point `metres` from (lat, lon) along `bearing` (degrees), on the local plane. */
function offset(lat, lon, bearing, metres) {
  const [M, N] = radii(lat);
  const b = bearing * RAD;
  return {
    lat: lat + (metres * Math.cos(b)) / (M * RAD),
    lon: lon + (metres * Math.sin(b)) / (N * Math.cos(lat * RAD) * RAD),
  };
}
