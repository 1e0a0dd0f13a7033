"""A board of many regions (100,000 in make test) in Debian's chromium at 390×844: the page asks
for the map's view only, capped and thinned (`regions` with bbox, zoom, limit), and draws it on
a canvas.

Measured: the time from navigation to the first regions painted (the page's own hook, at the
frame after they were added): once cold (no cache) and five times as a phone's usual visit (the
page's files from its cache, a new tab), the median of those is `first_draw_ms`; the JS heap (performance.memory with precise figures, at every step
right after a garbage collection: the page's live heap; what was used before it, garbage of the
last answers and reloads included, is reported beside), the bytes fetched at load (DevTools'
encoded lengths: all, and the API's), the longest frame while panning, the regions known at
each step. Steps: the first view, zoomed in to a street (17), panned, zoomed out to the whole
set (11: the view is cut and the page says so), the Events view (the last few hundred events,
then "Older events"). Screenshots: many-first, many-zoomed-in, many-panned, many-zoomed-out,
many-events, many-events-older.
"""
import json
import os
import time

from webcheck import Board, Checks, arguments, chromium, network_log, resize, result, show_tab


def extra(p):
    p.add_argument("--regions", type=int, default=100000, help="how many regions the board holds")


args = arguments(extra)
board = Board(args)
checks = Checks()
check = checks.check

MB = 1024 * 1024
os.makedirs(args.shots, exist_ok=True)
driver = chromium(args.cert, network_log=True, flags=["--enable-precise-memory-info"])
heap_samples = {}


def js(script, *a):
    return driver.execute_script(script, *a)


heap_unswept = {}


def heap(step):
    """The page's live heap: what is used right after a garbage collection (a reload's or a
    view's garbage is not the page's). What was used before it is kept too."""
    heap_unswept[step] = round(js("return performance.memory.usedJSHeapSize") / MB, 1)
    driver.execute_cdp_cmd("HeapProfiler.collectGarbage", {})
    mb = js("return performance.memory.usedJSHeapSize") / MB
    heap_samples[step] = round(mb, 1)
    return mb


def shot(name):
    driver.save_screenshot(os.path.join(args.shots, f"many-{name}.png"))


def settle(what, answers_before, timeout=30):
    """Waits for a view answer newer than `answers_before`, drawn, and a quiet moment after."""
    checks.until(driver, what, lambda: (js("return window.treeline.regionViewAnswers || 0") > answers_before), timeout=timeout)
    time.sleep(0.8)


def answers():
    return js("return window.treeline.regionViewAnswers || 0")


try:
    resize(driver, 390, 844)
    driver.execute_cdp_cmd("Network.enable", {})
    # The token once, so that the measured load is the page itself (not the redirect that sets
    # the cookie), then a cold load: nothing from the cache.
    driver.get(args.url + "?token=" + board.token)
    checks.until(driver, "the page's hooks", lambda: js("return !!window.treeline"), timeout=30)
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    js("sessionStorage.clear()")  # a fresh tab: no journal kept
    driver.get_log("performance")  # what the first visit fetched is not counted
    driver.get(args.url)
    checks.until(driver, "the first regions painted", lambda: js("return window.treeline.firstRegionsDrawnMs !== null"), timeout=60)
    first_draw_cold_ms = js("return window.treeline.firstRegionsDrawnMs")
    mode = js("return window.treeline.regionsMode")
    check(mode == "view", f"a board of {args.regions} regions is loaded by the view, not whole ({mode})")
    # The map fits the first answer, then asks for that view: wait for it.
    settle("the view after fitting", 0)
    time.sleep(1.0)

    # What the load fetched: every response's encoded length, and the API's part.
    total = api = 0
    requests, _, finished, bodies = network_log(driver)
    commands = [body for body in bodies.values() if body.startswith("{")]
    for rid, n in finished.items():
        total += n
        if "/api" in requests.get(rid, ""):
            api += n
    regions_asked = [c for c in commands if '"regions"' in c]
    check(not any('"geometry":true' in c and "limit" not in c for c in regions_asked),
          f"never every region with its geometry: {regions_asked}")

    # A phone's usual visit: the page's files from its cache (asked again, 304), a new tab.
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})
    # Five visits, not three: on a shared VM one slowed visit in three moved the median past the
    # budget (1,189 ms once, 815 ms on the next run of the same build).
    warm = []
    for _ in range(5):
        js("sessionStorage.clear()")
        driver.get(args.url)
        checks.until(driver, "the first regions painted (again)", lambda: js("return window.treeline.firstRegionsDrawnMs !== null"), timeout=60)
        warm.append(js("return window.treeline.firstRegionsDrawnMs"))
        settle("the view after fitting (again)", 0)
        time.sleep(1.0)
    first_draw_ms = sorted(warm)[len(warm) // 2]
    loading = js("return window.treeline.regionsLoading()")
    check(loading["total"] == args.regions, f"the board's count: {loading['total']}")
    heap("first")
    shot("first")

    # A street: zoom 17 at the centre of the set.
    view = js("return window.treeline.mapView()")
    n = answers()
    js("window.treeline.mapSetView(arguments[0], arguments[1], 17)", view["lat"], view["lon"])
    settle("the view at zoom 17", n)
    street = js("return window.treeline.regionsLoading()")
    check(not street["view"]["truncated"], f"a street's view holds every region there: {street['view']}")
    check(js("return document.getElementById('view-note').hidden"), "no 'zoom in' note when the view is whole")
    heap("zoomed-in")
    shot("zoomed-in")

    # Panning: the longest frame while the map slides 300 px and the next view comes.
    js("""window.__frames = []; let last = performance.now();
          const tick = (t) => { window.__frames.push(t - last); last = t; if (window.__frames.length < 240) requestAnimationFrame(tick); };
          requestAnimationFrame(tick);""")
    n = answers()
    js("window.treeline.mapPanBy(300, 200)")
    settle("the view after panning", n)
    frames = js("return window.__frames")
    pan_longest = max(frames) if frames else 0
    heap("panned")
    shot("panned")

    # Zoomed in and out a few times, as a hand would.
    for k, z in enumerate([15, 13, 16, 12]):
        n = answers()
        js("window.treeline.mapSetView(arguments[0], arguments[1], arguments[2])", view["lat"] + 0.01 * k, view["lon"] - 0.01 * k, z)
        settle(f"the view at zoom {z}", n)
        heap(f"zoom-{z}")

    # The whole set at once: cut, and the page says so.
    n = answers()
    js("window.treeline.mapSetView(arguments[0], arguments[1], 11)", view["lat"], view["lon"])
    settle("the view at zoom 11", n)
    wide = js("return window.treeline.regionsLoading()")
    check(wide["view"]["truncated"], f"a view of the whole set is cut: {wide['view']}")
    note = js("const n = document.getElementById('view-note'); return n.hidden ? '' : n.textContent")
    check("zoom in" in note, f"the page says to zoom in: '{note}'")
    heap("zoomed-out")
    shot("zoomed-out")
    draw_ms = js("return window.treeline.regionsDrawMs")

    # The Events view: the last few hundred, and older ones on demand.
    show_tab(driver, checks, "events")
    checks.until(driver, "the last events listed", lambda: len(js("return window.treeline.seqs()")) >= 300, timeout=30)
    seqs = js("return window.treeline.seqs()")
    last = json.loads(board.ask('{"cmd":"state"}'))["seq"]
    check(len(seqs) == 300 and seqs[-1] == last, f"a fresh tab shows the last 300 events ({len(seqs)}, up to #{seqs[-1] if seqs else None} of #{last})")
    js("return window.treeline.loadOlderEvents()")
    checks.until(driver, "older events", lambda: len(js("return window.treeline.seqs()")) == 500, timeout=30)
    seqs = js("return window.treeline.seqs()")
    check(seqs == list(range(last - 499, last + 1)), "older events come before, without a gap or a repeat")
    shot("events")
    # The list's end: the button for more.
    js("document.getElementById('events-older').scrollIntoView({block: 'center'})")
    time.sleep(0.3)
    check(js("const b = document.getElementById('events-older'); return !b.hidden && b.getBoundingClientRect().height >= 44"),
          "Older events is offered, at least 44 px tall")
    shot("events-older")
    heap("events")

    heap_after_gc = heap("end")
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] + [{"message": m} for m in js("return window.treeline.errors")]
    check(not errors, f"console errors: {errors[:3]}")
    result(first_draw_ms=round(first_draw_ms, 1), first_draw_cold_ms=round(first_draw_cold_ms, 1), first_draws_warm_ms=[round(w) for w in warm], heap_mb=round(heap_after_gc, 1), heap_max_mb=max(heap_samples.values()),
           heap_samples=heap_samples, heap_unswept_samples=heap_unswept, heap_unswept_max_mb=max(heap_unswept.values()), load_bytes=total, load_api_bytes=api, load_kb=round(total / 1024, 1),
           regions_requests=len(regions_asked), known_at_street=street["known"], known_wide=wide["known"],
           view_total_wide=wide["view"]["total"], pan_longest_frame_ms=round(pan_longest, 1), draw_ms=round(draw_ms or 0, 1),
           console_errors=len(errors))
finally:
    driver.quit()
checks.done()
