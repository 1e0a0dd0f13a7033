"""The page's weight over the wire: a cold load (no cache) in Debian's chromium, as a phone on the
board's Wi-Fi, until the map has drawn the regions. Every response's encoded length (DevTools'
Network.loadingFinished: headers and body, as they came) is summed; the goal is at most 150 KB.

Also: Leaflet comes as Debian's brotli copy, the app's scripts and styles gzipped, and no file
is fetched twice. Reported besides: what the service worker takes for offline use on a first
visit (the files the page did not load itself)."""
import json
import time

from webcheck import Board, Checks, arguments, chromium, network_log, result

args = arguments()
board = Board(args)
checks = Checks()
check = checks.check

GOAL = 150 * 1024

driver = chromium(args.cert, network_log=True)
try:
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    driver.get(args.url + "?token=" + board.token)
    # The map with the regions drawn: the page's own hooks say when.
    deadline = time.time() + 30
    while time.time() < deadline:
        if driver.execute_script("return !!(window.treeline && window.treeline.firstRegionsDrawnMs !== null)"):
            break
        time.sleep(0.2)
    # The regions are drawn on a canvas: the page's hook says when they were painted.
    check(driver.execute_script("return window.treeline.firstRegionsDrawnMs !== null && window.treeline.mapRegionIds().length > 0"), "the map drew the regions")
    time.sleep(1.0)  # what the page asks for after its first draw (state, events) comes too

    requests, responses, finished, bodies = network_log(driver)
    commands = {}
    for rid, body in bodies.items():
        if body.startswith("{"):
            try:
                commands[rid] = json.loads(body).get("cmd", "?")
            except ValueError:
                commands[rid] = "?"
    # The event stream stays open: what it brought so far counts as well, from its data events.
    total = sum(finished.values())
    by_path = {}
    for rid, n in finished.items():
        url = requests.get(rid, "?")
        path = "/" + url.split("//", 1)[-1].split("/", 1)[-1].split("?")[0]
        if rid in commands:
            path += " " + commands[rid]
        by_path[path] = by_path.get(path, 0) + n
    paths = [requests[r].split("?")[0] + " " + commands.get(r, "") for r in finished if r in requests]
    twice = sorted({p for p in paths if paths.count(p) > 1 and "/api" not in p})
    check(not twice, f"fetched twice: {twice}")

    def coding(suffix):
        for rid, resp in responses.items():
            if requests.get(rid, "").split("?")[0].endswith(suffix):
                return {k.lower(): v for k, v in resp.get("headers", {}).items()}.get("content-encoding")
        return "not fetched"

    check(coding("/leaflet/leaflet.min.js") == "br", f"leaflet.min.js as {coding('/leaflet/leaflet.min.js')}, not Debian's brotli copy")
    check(coding("/app.js") == "gzip" and coding("/style.css") == "gzip", f"app.js as {coding('/app.js')}, style.css as {coding('/style.css')}")
    check(total <= GOAL, f"a cold load is {total / 1024:.1f} KB over the wire, over {GOAL // 1024} KB: "
          + ", ".join(f"{p} {n / 1024:.1f}" for p, n in sorted(by_path.items(), key=lambda kv: -kv[1])[:8]))
    heaviest = sorted(by_path.items(), key=lambda kv: -kv[1])[:6]

    # What the service worker takes besides, for offline use: the files of /app-files.json the
    # page did not load (the AR view, icons, Leaflet's images; those it loaded are revalidated by
    # ETag: a 304 each), as they come over the wire to a browser that takes brotli and gzip.
    deadline = time.time() + 30
    while time.time() < deadline and driver.execute_script("return window.treeline.serviceWorker") != "ready":
        time.sleep(0.2)
    worker = driver.execute_script("return window.treeline.serviceWorker")
    check(worker == "ready", f"the service worker: {worker}")
    status, _, body = board.request("GET", "/app-files.json")
    listed = json.loads(body)["files"] if status == 200 else []
    loaded = {p.split(" ")[0] for p in by_path}
    extra = 0
    for path in [p for p in listed if p not in loaded] + ["/app-files.json"]:
        status, headers, body = board.request("GET", path, headers={"Accept-Encoding": "br, gzip"})
        extra += len(body) + sum(len(k) + len(v) + 4 for k, v in headers.items()) + 17
        check(status == 200, f"{path}: {status}")
    result(cold_load_bytes=total, cold_load_kb=round(total / 1024, 1), responses=len(finished),
           heaviest=[f"{p} {n}" for p, n in heaviest], offline_files=len(listed),
           service_worker_extra_bytes=extra, first_visit_kb=round((total + extra) / 1024, 1))
finally:
    driver.quit()
checks.done()
