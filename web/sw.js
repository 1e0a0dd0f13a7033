// Treeline's service worker: the page when the board is out of reach.
//
// - The page's files (the list the board serves at /app-files.json: the app, Leaflet) are kept
//   whole, one cache per version of the list ("treeline-shell:<version>"): filled in one go,
//   served only once complete, and the older ones deleted then, so an offline page is always one
//   version of the app. Each file is asked of the board first and taken from the newest
//   complete copy when the board does not answer within 4 s.
// - The basemap's tiles (their addresses carry the file's version) and the photos never change
//   under their address: kept as they are seen (at most 3,000 tiles, 300 photos), answered from
//   here first.
// - web.json and the GeoJSON layers: network first, the last copy when out of reach.
// - Whatever comes from here instead of the board says so (`X-Treeline-Offline: 1`), so the page
//   never takes it for an answer of the board.
// - Everything else (the API's POSTs, the event streams) goes to the board untouched; the page
//   keeps its own last answers and queues its actions (js/api.js, js/queue.js).
const SHELL = "treeline-shell:";
const DATA = "treeline-data";
const TILES = "treeline-tiles";
const KEPT = { [TILES]: 3000, [DATA]: 300 };
const LIST = "/app-files.json";
const WAIT_MS = 4000;
const puts = {};

/** The newest complete copy of the page's files (it holds the list, written last), or null. */
async function shell() {
  const names = (await caches.keys()).filter((n) => n.startsWith(SHELL));
  for (const name of names.reverse()) {
    const cache = await caches.open(name);
    if (await cache.match(LIST)) return cache;
  }
  return null;
}

/** Takes the list's version whole if it is not kept yet, then lets the older ones go. */
async function takeShell() {
  const response = await fetch(LIST, { cache: "no-store", credentials: "same-origin" });
  if (!response.ok) throw new Error(`${LIST}: ${response.status}`);
  const list = await response.clone().json();
  const name = SHELL + list.version;
  const cache = await caches.open(name);
  if (!(await cache.match(LIST))) {
    // What the page loaded already is revalidated (a 304 by its ETag), not taken again.
    const pages = ["/", ...(list.files.includes("/ar/index.html") ? ["/ar/"] : [])];
    await cache.addAll([...pages, ...list.files].map((path) => new Request(path, { cache: "no-cache", credentials: "same-origin" })));
    await cache.put(LIST, response); // last: the mark of a complete copy
  }
  for (const other of await caches.keys()) {
    if (other.startsWith(SHELL) && other !== name) await caches.delete(other);
  }
}

self.addEventListener("install", (event) => {
  event.waitUntil(takeShell().then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(Promise.all([self.clients.claim(), trim(TILES), trim(DATA)]));
});

/** A kept answer, marked as not the board's. */
function offline(kept) {
  const headers = new Headers(kept.headers);
  headers.set("X-Treeline-Offline", "1");
  return new Response(kept.body, { status: kept.status, statusText: kept.statusText, headers });
}

function network(request) {
  return Promise.race([
    fetch(request),
    new Promise((_, reject) => setTimeout(() => reject(new Error("the board is slow")), WAIT_MS)),
  ]);
}

/** The board's answer within WAIT_MS; else the copy `kept()` finds, marked. */
async function networkFirst(request, kept) {
  try {
    return await network(request);
  } catch (e) {
    const copy = await kept();
    if (copy) return offline(copy);
    throw e;
  }
}

/** web.json and the layers: the board's, kept as the last copy; else that copy. */
async function networkFirstKept(request, key) {
  const cache = await caches.open(DATA);
  return networkFirst(request.clone(), () => cache.match(key)).then((response) => {
    if (response.ok && response.type === "basic" && !response.headers.has("X-Treeline-Offline")) cache.put(key, response.clone());
    return response;
  });
}

async function cacheFirst(request, cacheName) {
  const cache = await caches.open(cacheName);
  const kept = await cache.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok && response.type === "basic") {
    await cache.put(request, response.clone());
    // Trimmed now and then (and at each start): listing thousands of keys at every tile would
    // cost more than it saves.
    puts[cacheName] = (puts[cacheName] || 0) + 1;
    if (puts[cacheName] % 50 === 0) trim(cacheName);
  }
  return response;
}

/** Keeps the newest entries of `cacheName` (keys come back oldest first). */
async function trim(cacheName) {
  const cache = await caches.open(cacheName);
  const keys = await cache.keys();
  for (const request of keys.slice(0, Math.max(0, keys.length - KEPT[cacheName]))) await cache.delete(request);
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  const path = url.pathname;
  if (path === "/api/events" || path === "/api/layout") return; // streams
  if (path.startsWith("/tiles/")) {
    event.respondWith(cacheFirst(request, TILES));
  } else if (path.startsWith("/api/photos/")) {
    event.respondWith(cacheFirst(request, DATA));
  } else if (path === "/api/web.json" || path.endsWith(".geojson")) {
    event.respondWith(networkFirstKept(request, url.pathname + url.search));
  } else if (path.startsWith("/api/") || path === LIST) {
    // the board's own answer, or the page's error when out of reach
  } else if (request.mode === "navigate") {
    // "/?token=…" is answered by the board (a redirect that sets the cookie).
    if (url.searchParams.has("token")) return;
    event.respondWith(networkFirst(request, async () => {
      const cache = await shell();
      return cache && cache.match(path, { ignoreSearch: true });
    }));
    event.waitUntil(takeShell().catch(() => {}));
  } else {
    event.respondWith(networkFirst(request, async () => {
      const cache = await shell();
      return cache && cache.match(path);
    }));
  }
});
