// Treeline's web app: wires the views to the board's API and its live stream.
import { command, getJSON } from "./js/api.js";
import { setupAlbums, refreshCaptures } from "./js/albums.js";
import { adoptJournal, checkJournal, journalName, lastSeqSeen, receiveEvent, restoreJournal, setupEvents } from "./js/events.js";
import { guideNewsAfter, redrawGuide, setupGuide } from "./js/guide.js";
import { addTiles, setupMap, showLastFix, showTrack } from "./js/map.js";
import { setupPlanting } from "./js/planting.js";
import { setupPlants } from "./js/plants.js";
import { setupQueue } from "./js/queue.js";
import { setupOffline } from "./js/offline.js";
import { on } from "./js/bus.js";
import { refreshRegions, scheduleRefresh } from "./js/regions.js";
import { setupRound } from "./js/round.js";
import { showState, setupStatus } from "./js/status.js";
import { afterOutage, openStream } from "./js/stream.js";
import { setupTabs } from "./js/tabs.js";
import { setupThemeToggle } from "./js/theme.js";
import { refreshTrails, scheduleTrailsRefresh } from "./js/trails.js";
import { setupTrailsView } from "./js/trails-view.js";
import { refreshTrees } from "./js/trees.js";

const TRACK_WINDOW_MS = 3600 * 1000; // the recent track: the last hour before the last fix
const TRACK_POINTS = 500;

/** Logs what could not be loaded: the view stays usable with what came. */
function warn(what) {
  return (e) => console.warn(`${what}: ${e.message}`);
}

async function loadTrack(lastFix) {
  const cmd = { cmd: "track" };
  if (lastFix) cmd.since = new Date(Date.parse(lastFix.time) - TRACK_WINDOW_MS).toISOString();
  const answer = await command(cmd);
  showTrack((answer.points || []).slice(-TRACK_POINTS));
}

/**
 * After the stream was down (the board restarted, the phone lost its Wi-Fi) the journal
 * resumes by itself, but what is not in it (trees, gpsd's status) and the regions' state are
 * asked again.
 */
function resyncAfterOutage() {
  afterOutage(() => {
    scheduleRefresh();
    scheduleTrailsRefresh();
    refreshTrees().catch(warn("trees"));
    command({ cmd: "state" }).then(showState, warn("state"));
  });
}

/** A view's message goes away when tapped. */
function dismissableMessages() {
  for (const m of document.querySelectorAll(".view > .message")) {
    m.addEventListener("click", () => { m.hidden = true; });
  }
}

/** An action sent from the queue: what it changed is asked again. */
function refreshAfterQueue() {
  on("queue-sent", () => {
    scheduleRefresh();
    refreshTrees().catch(warn("trees"));
    refreshCaptures();
  });
}

async function start() {
  setupOffline();
  setupQueue();
  refreshAfterQueue();
  setupThemeToggle();
  dismissableMessages();
  resyncAfterOutage();
  setupTabs();
  setupMap();
  setupStatus();
  setupEvents();
  setupPlants();
  setupAlbums();
  setupPlanting();
  setupRound();
  setupTrailsView();
  setupGuide();

  getJSON("/api/web.json").then(addTiles, warn("web.json"));
  refreshRegions().catch(warn("regions"));
  refreshTrees().catch(warn("trees"));
  refreshTrails().catch(warn("trails"));
  refreshCaptures();

  // STATE first: its seq tells whether the journal kept in this tab is this daemon's.
  let state = null;
  try {
    state = await command({ cmd: "state" });
    showState(state);
    showLastFix(state.last_fix);
    redrawGuide();
  } catch (e) {
    warn("state")(e);
  }
  restoreJournal(state ? state.seq : undefined, state ? state.journal : undefined);
  // What the journal replays is history; the guidance bar tells only what happens from now.
  guideNewsAfter(state ? state.seq : lastSeqSeen());
  openStream(lastSeqSeen, receiveEvent, async () => {
    const s = await command({ cmd: "state" });
    showState(s);
    checkJournal(s.seq, s.journal);
  }, journalName, adoptJournal);
  loadTrack(state && state.last_fix).catch(warn("track"));
}

start();
