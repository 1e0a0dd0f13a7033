// The rear camera's heading and pitch from the phone's orientation sensors.
//
// Chrome on Android sends `deviceorientationabsolute` (alpha from north); its `deviceorientation`
// is relative (alpha from wherever the page started) unless `absolute` is true. Safari on iOS
// sends `deviceorientation` with `webkitCompassHeading` (after DeviceOrientationEvent.
// requestPermission(), which must be called from a tap). Absolute readings win: once one has
// come, relative ones are ignored; before that a relative one still drives the view (its pitch
// is right, its heading is not north-based: the status line says "no compass").

const RAD = Math.PI / 180;

/**
 * The direction the rear camera looks (device −z) for W3C angles in degrees (Z-X'-Y''
 * intrinsic; earth X east, Y north, Z up): {heading (0 = north, clockwise), pitch (up > 0)}.
 */
export function cameraDirection(alpha, beta, gamma) {
  const a = alpha * RAD;
  const b = beta * RAD;
  const g = gamma * RAD;
  const dx = -Math.sin(g) * Math.cos(a) - Math.cos(g) * Math.sin(b) * Math.sin(a);
  const dy = -Math.sin(g) * Math.sin(a) + Math.cos(g) * Math.sin(b) * Math.cos(a);
  const dz = -Math.cos(g) * Math.cos(b);
  const heading = (Math.atan2(dx, dy) / RAD + 360) % 360;
  const pitch = Math.asin(Math.min(1, Math.max(-1, dz))) / RAD;
  return { heading, pitch };
}

/**
 * Where the phone faces for a guidance arrow on its screen: the horizontal part of its top edge
 * (device +y) plus its rear camera's direction (device −z). Held flat, that is where the top
 * points; held up, where the camera looks; in between both agree. Degrees from north, clockwise.
 */
export function facingHeading(alpha, beta, gamma) {
  const a = alpha * RAD;
  const b = beta * RAD;
  const g = gamma * RAD;
  // Device +y and −z in the earth's frame (east, north), as in cameraDirection.
  const topX = -Math.cos(b) * Math.sin(a);
  const topY = Math.cos(b) * Math.cos(a);
  const camX = -Math.sin(g) * Math.cos(a) - Math.cos(g) * Math.sin(b) * Math.sin(a);
  const camY = -Math.sin(g) * Math.sin(a) + Math.cos(g) * Math.sin(b) * Math.cos(a);
  return (Math.atan2(topX + camX, topY + camY) / RAD + 360) % 360;
}

function screenAngle() {
  const o = window.screen && window.screen.orientation;
  if (o && typeof o.angle === "number") return o.angle;
  return typeof window.orientation === "number" ? window.orientation : 0;
}

/**
 * Listens to the sensors; `onSample({heading, pitch, time, source, absolute})` for each usable
 * reading (time in seconds). `facing`: the heading is `facingHeading`'s (for an arrow on the
 * screen), not the camera's. Returns {source(), absoluteSeen(), needsPermission, requestPermission()}.
 */
export function watchOrientation(onSample, { facing = false } = {}) {
  const direction = (alpha, beta, gamma) => {
    const d = cameraDirection(alpha, beta, gamma);
    return facing ? { heading: facingHeading(alpha, beta, gamma), pitch: d.pitch } : d;
  };
  let absoluteSeen = false;
  let source = null;

  function emit(direction, time, from, absolute) {
    if (!Number.isFinite(direction.heading) || !Number.isFinite(direction.pitch)) return;
    source = from;
    onSample({ heading: direction.heading, pitch: direction.pitch, time, source: from, absolute });
  }

  function time(e) {
    const t = typeof e.timeStamp === "number" && e.timeStamp > 0 ? e.timeStamp : performance.now();
    return t / 1000;
  }

  function usable(e) {
    return typeof e.alpha === "number" && typeof e.beta === "number" && typeof e.gamma === "number";
  }

  window.addEventListener("deviceorientationabsolute", (e) => {
    if (!usable(e)) return;
    absoluteSeen = true;
    emit(direction(e.alpha, e.beta, e.gamma), time(e), "deviceorientationabsolute", true);
  });

  window.addEventListener("deviceorientation", (e) => {
    if (typeof e.webkitCompassHeading === "number" && e.webkitCompassHeading >= 0 && typeof e.beta === "number") {
      absoluteSeen = true;
      // iOS: the compass heading as it is; the pitch from beta when upright in portrait.
      const pitch = screenAngle() === 0 || typeof e.gamma !== "number"
        ? e.beta - 90
        : cameraDirection(0, e.beta, e.gamma).pitch;
      emit({ heading: e.webkitCompassHeading, pitch }, time(e), "webkitCompassHeading", true);
      return;
    }
    if (!usable(e)) return;
    if (e.absolute === true) {
      absoluteSeen = true;
      emit(direction(e.alpha, e.beta, e.gamma), time(e), "deviceorientation", true);
    } else if (!absoluteSeen) {
      emit(direction(e.alpha, e.beta, e.gamma), time(e), "deviceorientation", false);
    }
  });

  const needsPermission = typeof DeviceOrientationEvent !== "undefined"
    && typeof DeviceOrientationEvent.requestPermission === "function";

  return {
    source: () => source,
    absoluteSeen: () => absoluteSeen,
    needsPermission,
    /** iOS: must run from a tap. Resolves to "granted" or "denied". */
    async requestPermission() {
      if (!needsPermission) return "granted";
      return DeviceOrientationEvent.requestPermission();
    },
  };
}
