"""The page's weight over the wire: a cold load (no cache) in Debian's chromium, as a phone on the
board's Wi-Fi, until the map has drawn the regions. Every response's encoded length (DevTools'
Network.loadingFinished: headers and body, as they came) is summed; the goal is at most 150 KB.

Also: Leaflet comes as Debian's brotli copy, the app's scripts and styles gzipped, and no file
is fetched twice."""
import json
import time

from webcheck import Board, Checks, arguments, chromium, result

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
        if driver.execute_script("return !!(window.treeline && document.querySelectorAll('.leaflet-overlay-pane path').length > 0)"):
            break
        time.sleep(0.2)
    check(driver.execute_script("return document.querySelectorAll('.leaflet-overlay-pane path').length") > 0, "the map drew the regions")
    time.sleep(1.0)  # what the page asks for after its first draw (state, events) comes too

    requests, responses, finished, commands = {}, {}, {}, {}
    for entry in driver.get_log("performance"):
        m = json.loads(entry["message"])["message"]
        p = m.get("params", {})
        if m["method"] == "Network.requestWillBeSent":
            requests[p["requestId"]] = p["request"]["url"]
            body = p["request"].get("postData") or ""
            if body.startswith("{"):
                try:
                    commands[p["requestId"]] = json.loads(body).get("cmd", "?")
                except ValueError:
                    commands[p["requestId"]] = "?"

        elif m["method"] == "Network.responseReceived":
            responses[p["requestId"]] = p["response"]
        elif m["method"] == "Network.loadingFinished":
            finished[p["requestId"]] = p["encodedDataLength"]
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
    result(cold_load_bytes=total, cold_load_kb=round(total / 1024, 1), responses=len(finished),
           heaviest=[f"{p} {n}" for p, n in heaviest])
finally:
    driver.quit()
checks.done()
