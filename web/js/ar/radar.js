// The radar: a small disc, heading up, with the POIs within its radius R (max_distance when set,
// else the farthest item's distance, at least 50 m), the field of view's wedge, the focus
// highlighted. dots() gives the dots as drawn (CSS px in the disc).
import { metres } from "../format.js";

const COLOURS = { plant: "#3b7dd8", album: "#f08c1a", reforestation: "#3a9e4f" };
const MIN_RADIUS_M = 50;

export class Radar {
  constructor(canvas, label) {
    this.canvas = canvas;
    this.label = label;
    this.dots = [];
    this.size = 0;
  }

  /** items: the panorama's; cam: heading and fov; maxDistance: 0 for none; focusId or null. */
  draw(items, cam, maxDistance, focusId) {
    const size = this.canvas.clientWidth || 120;
    const ratio = window.devicePixelRatio || 1;
    if (this.size !== size || this.canvas.width !== Math.round(size * ratio)) {
      this.size = size;
      this.canvas.width = Math.round(size * ratio);
      this.canvas.height = Math.round(size * ratio);
    }
    const farthest = items.reduce((m, i) => Math.max(m, i.distance), 0);
    const R = maxDistance > 0 ? maxDistance : Math.max(farthest, MIN_RADIUS_M);
    const c = size / 2;
    const r = c - 6; // the dots' room, inside the rim
    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, size, size);

    ctx.beginPath();
    ctx.arc(c, c, c - 1, 0, 2 * Math.PI);
    ctx.fillStyle = "rgba(12, 24, 16, 0.62)";
    ctx.fill();
    ctx.lineWidth = 1;
    ctx.strokeStyle = "rgba(255, 255, 255, 0.55)";
    ctx.stroke();
    ctx.beginPath();
    ctx.arc(c, c, r / 2, 0, 2 * Math.PI);
    ctx.strokeStyle = "rgba(255, 255, 255, 0.2)";
    ctx.stroke();

    // The field of view, straight up (heading up): ±HF/2 (at most a half-turn each way).
    const half = Math.min(cam.fov[0] / 2, 180) * Math.PI / 180;
    ctx.beginPath();
    ctx.moveTo(c, c);
    ctx.arc(c, c, c - 1, -Math.PI / 2 - half, -Math.PI / 2 + half);
    ctx.closePath();
    ctx.fillStyle = "rgba(255, 255, 255, 0.16)";
    ctx.fill();

    this.dots = [];
    for (const item of items) {
      if (!(item.distance <= R)) continue;
      const a = (item.bearing - cam.heading) * Math.PI / 180;
      const k = (item.distance / R) * r;
      const x = c + k * Math.sin(a);
      const y = c - k * Math.cos(a);
      this.dots.push({ id: item.id, x, y });
      const focused = item.id === focusId;
      ctx.beginPath();
      ctx.arc(x, y, focused ? 5 : 3.2, 0, 2 * Math.PI);
      ctx.fillStyle = COLOURS[item.kind] || "#ccc";
      ctx.fill();
      ctx.lineWidth = focused ? 2 : 1;
      ctx.strokeStyle = focused ? "#fff" : "rgba(0, 0, 0, 0.6)";
      ctx.stroke();
    }
    // You, in the middle.
    ctx.beginPath();
    ctx.arc(c, c, 2.5, 0, 2 * Math.PI);
    ctx.fillStyle = "#fff";
    ctx.fill();

    const text = `R ${metres(R)}`;
    if (this.label.textContent !== text) this.label.textContent = text;
  }
}
