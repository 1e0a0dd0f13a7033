// Treeline's service worker: the page when the board is out of reach.
//
// - The page's files (the list the board serves at /app-files.json: the app, Leaflet) are kept
//   at install and answered network first: fresh while the board answers, from here when it does
//   not (or takes over 4 s). When the list's version changes (an upgraded board), all are taken again.
// - The basemap's tiles and the photos never change under their address: kept as they are seen
//   (at most 3000 tiles), answered from here first.
// - web.json and the GeoJSON layers: network first, the last copy when out of reach.
// - Everything else (the API's POSTs, the event streams) goes to the board untouched; the page
//   keeps its own last answers and queues its actions (js/api.js, js/queue.js).
const SHELL = "treeline-shell";
const DATA = "treeline-data";
const TILES = "treeline-tiles";
const TILES_KEPT = 3000;
const LIST = "/app-files.json";
const WAIT_MS = 4000;
let puts = 0;

async function takeShell() {
  const cache = await caches.open(SHELL);
  const response = await fetch(LIST, { cache: "no-store", credentials: "same-origin" });
  if (!response.ok) throw new Error(`${LIST}: ${response.status}`);
  const list = await response.clone().json();
  const kept = await cache.match(LIST);
  if (kept && (await kept.json()).version === list.version) return;
  await cache.addAll(["/", "/ar/", ...list.files].map((path) => new Request(path, { cache: "no-cache", credentials: "same-origin" })));
  await cache.put(LIST, response);
}

self.addEventListener("install", (event) => {
  event.waitUntil(takeShell().then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(self.clients.claim());
});

/** The network's answer within WAIT_MS, kept in `cacheName` when it is a whole 200; else the kept copy. */
async function networkFirst(request, cacheName, key) {
  const cache = await caches.open(cacheName);
  try {
    const response = await Promise.race([
      fetch(request),
      new Promise((_, reject) => setTimeout(() => reject(new Error("the board is slow")), WAIT_MS)),
    ]);
    if (response.ok && response.type === "basic") cache.put(key, response.clone());
    return response;
  } catch (e) {
    const kept = await cache.match(key, { ignoreSearch: true });
    if (kept) return kept;
    throw e;
  }
}

async function cacheFirst(request, cacheName, most) {
  const cache = await caches.open(cacheName);
  const kept = await cache.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok && response.type === "basic") {
    await cache.put(request, response.clone());
    // Trimmed now and then: listing thousands of keys at every tile would cost more than it saves.
    if (most && ++puts % 100 === 0) trim(cache, most);
  }
  return response;
}

/** Keeps the newest `most` entries (keys come back oldest first). */
async function trim(cache, most) {
  const keys = await cache.keys();
  for (const request of keys.slice(0, Math.max(0, keys.length - most))) await cache.delete(request);
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  const path = url.pathname;
  if (path === "/api/events" || path === "/api/layout") return; // streams
  if (path.startsWith("/tiles/")) {
    event.respondWith(cacheFirst(request, TILES, TILES_KEPT));
  } else if (path.startsWith("/api/photos/")) {
    event.respondWith(cacheFirst(request, DATA, 0));
  } else if (path === "/api/web.json" || path.endsWith(".geojson")) {
    event.respondWith(networkFirst(request, DATA, path));
  } else if (path.startsWith("/api/")) {
    // the board's own answer, or the page's error when out of reach
  } else if (request.mode === "navigate") {
    // "/?token=…" is answered by the board (a redirect that sets the cookie); kept as its path.
    if (url.searchParams.has("token")) return;
    event.respondWith(networkFirst(request, SHELL, path));
    event.waitUntil(takeShell().catch(() => {}));
  } else {
    event.respondWith(networkFirst(request, SHELL, path));
  }
});
