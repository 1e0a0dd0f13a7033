// Where a panorama item's box goes for a heading and a pitch: the same operations, in the same
// order, as the server's Swift projector, so the numbers are bit-identical.

/** The bearing's difference from the heading, wrapped into (−180, 180]. */
export function delta(bearing, heading) {
  let d = (bearing - heading) % 360;
  if (d < 0) d += 360;
  if (d > 180) d -= 360;
  return d;
}

/**
 * cam: {screen:[W,H], fov:[HF,VF], box:[BW,BH], projection, heading, pitch}; the item's own
 * `size` [w, h] where it has one (a box sized to its text), else the camera's box.
 * Returns {x, y, w, h, anchorY, d, near, placed, visible}: placed is false for a pinhole box at 90°
 * or more from the heading (it has no place on the screen).
 */
export function place(item, cam) {
  const [W, H] = cam.screen;
  const [HF, VF] = cam.fov;
  const [BW, BH] = item.size || cam.box;
  const d = delta(item.bearing, cam.heading);
  const near = Math.abs(d) < HF;
  let x;
  let dy;
  if (cam.projection === "pinhole") {
    if (!(Math.abs(d) < 90)) return { x: NaN, y: NaN, w: BW, h: BH, anchorY: NaN, d, near, placed: false, visible: false };
    const f = (W / 2) / Math.tan(HF / 2 * Math.PI / 180);
    const fv = (H / 2) / Math.tan(VF / 2 * Math.PI / 180);
    x = W / 2 - BW / 2 + f * Math.tan(d * Math.PI / 180);
    dy = fv * Math.tan(cam.pitch * Math.PI / 180);
  } else {
    x = W / 2 - BW / 2 + d * (W / HF);
    dy = cam.pitch * (H / VF);
  }
  const y = item.y + dy;
  const anchorY = item.anchor_y + dy;
  const visible = !item.hidden && x < W && x + BW > 0 && y < H && y + BH > 0;
  return { x, y, w: BW, h: BH, anchorY, d, near, placed: true, visible };
}
