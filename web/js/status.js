// The status line: the stream, the fix's age, gpsd's status (from STATE, asked now and then),
// and the stale-position banner: "live" is green only while the fix is fresh; with no fix for
// more than 10 s an amber banner says how old the position is, past 60 s a red one.
import { command } from "./api.js";
import { on } from "./bus.js";
import { byId, setText } from "./dom.js";
import { duration, metres } from "./format.js";
import { hooks } from "./hooks.js";

const STATE_EVERY_MS = 30000;
export const STALE_S = 10;     // amber past this
export const OLD_S = 60;       // red past this
const STREAM_TEXT = { connecting: "connecting…", live: "live", reconnecting: "reconnecting…", offline: "offline" };

let gpsd = "…";
let fix = null;         // {error_m, at: ms since the epoch when the fix was taken or received}
let stream = "connecting";
let poll = null;

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
    render();
  });
  on("stream", (s) => {
    stream = s;
    render();
  });
  on("session", () => {
    clearInterval(poll);
    stream = "ended";
    render();
  });
  setInterval(render, 1000);
  poll = setInterval(() => command({ cmd: "state" }).then(showState, (e) => {
    gpsd = `no answer (${e.message})`;
    render();
  }), STATE_EVERY_MS);
  hooks.fixAge = () => (fix ? (Date.now() - fix.at) / 1000 : null);
}

function render() {
  const g = byId("status-gpsd");
  // "connected to gpsd at 127.0.0.1:2947" says more than a phone's line has room for; and
  // while it is connected the fix's age says enough: the line shows only trouble.
  const connected = /^connected/.test(gpsd);
  setText(g, `gpsd: ${gpsd.replace(/^connected to gpsd at \S+/, "connected")}`);
  g.title = `gpsd: ${gpsd}`;
  g.hidden = connected || gpsd === "…";
  const age = fix ? (Date.now() - fix.at) / 1000 : null;
  const fresh = age !== null && age <= STALE_S;
  setText(byId("status-fix"), fix ? `±${metres(fix.error_m)} · ${duration(age)} ago` : "no fix yet");
  const node = byId("status-stream");
  const text = stream === "live" && !fresh ? "connected" : stream === "ended" ? "access ended" : STREAM_TEXT[stream] || stream;
  setText(node, text);
  node.dataset.state = stream;
  node.dataset.fresh = String(fresh);
  const banner = byId("stale");
  if (!banner) return;
  if (stream === "ended" || fresh) {
    banner.hidden = true;
    return;
  }
  const level = age === null || age > OLD_S ? "red" : "amber";
  if (banner.dataset.level !== level) banner.dataset.level = level;
  setText(banner, age === null ? "No position yet: waiting for a fix" : `Position ${duration(age)} old: not where you are now`);
  banner.hidden = false;
}
