// The status line: gpsd's status (from STATE, asked now and then), the fix's age, the stream.
import { command } from "./api.js";
import { on } from "./bus.js";
import { byId, setText } from "./dom.js";
import { duration, metres } from "./format.js";

const STATE_EVERY_MS = 30000;
const STREAM_TEXT = { connecting: "connecting…", live: "live", reconnecting: "reconnecting…", offline: "offline" };

let gpsd = "…";
let fix = null;         // {error_m, at: ms since the epoch when the fix was taken or received}
let stream = "connecting";

/** STATE's answer (the app asks it at start). */
export function showState(state) {
  gpsd = state.gpsd || "unknown";
  if (state.last_fix && !fix) fix = { error_m: state.last_fix.error_m, at: Date.parse(state.last_fix.time) };
  render();
}

export function setupStatus() {
  // A POSITION is as fresh as it gets: its age counts from when it arrived, so a board whose
  // clock differs from GPS time still reads "0 s".
  on("position", (p) => {
    fix = { error_m: p.error_m, at: Date.now() };
  });
  on("stream", (s) => {
    stream = s;
    render();
  });
  setInterval(render, 1000);
  setInterval(() => command({ cmd: "state" }).then(showState, (e) => {
    gpsd = `no answer (${e.message})`;
    render();
  }), STATE_EVERY_MS);
}

function render() {
  const g = byId("status-gpsd");
  // "connected to gpsd at 127.0.0.1:2947" says more than a phone's line has room for.
  setText(g, `gpsd: ${gpsd.replace(/^connected to gpsd at \S+/, "connected")}`);
  g.title = `gpsd: ${gpsd}`;
  const age = fix ? `fix ${duration((Date.now() - fix.at) / 1000)} ago, ±${metres(fix.error_m)}` : "no fix yet";
  setText(byId("status-fix"), age);
  const node = byId("status-stream");
  setText(node, STREAM_TEXT[stream] || stream);
  node.dataset.state = stream;
}
