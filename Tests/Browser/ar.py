"""The AR view (/ar/) in Debian's chromium: a fake camera, orientation injected as the phone's
sensors would send it, a 360×740 phone screen.

- Each box is measured from its text and the stream is opened again with those sizes, so the
  projector stacks the boxes the page draws. At three headings (the stack due north; the seam due
  south, POIs at 179° and 181°; east with the camera tilted up) the boxes the page draws are where,
  and as big as, the daemon's own `layout` puts them for the same position, heading, pitch, field
  of view, screen and sizes (the projector at that heading, not the panorama shifted), ±1 px, and
  the same ones are shown; no two drawn boxes overlap.
- A 360° sweep of the heading makes no request to the board: the page's own count, chromium's
  network log, and the number of layouts received all stay put while the frames go on.
- Walking 20 m (the gpsd feed, after "WALK") brings exactly one new layout, from where it walked
  to; adding two regions in one change brings one too, on the stream that was open (the page
  then opens a new stream with the new boxes' sizes: its first layout is "connect"); removing
  one then brings one, on the stream that is open. Each layout is told by the page with its
  reason and its stream (`received()`), so a stream that dropped and came back would show.
- Focus: aimed at an album for a second, its details and Capture (a frame of the camera, kept on
  the board); aimed at a plant the walker is outside, no Water (offered only inside its circle).
- The radar's dots are the POIs within its radius; the options reach the projector."""
import json
import math
import os
import subprocess
import time

from selenium.webdriver.common.by import By

from webcheck import Board, Checks, arguments, chromium, result


def extra(p):
    p.add_argument("--scene", required=True, help="scene.json of ar_scene.py")


args = arguments(extra)
board = Board(args)
checks = Checks()
check = checks.check
scene = json.load(open(args.scene))
os.makedirs(args.shots, exist_ok=True)


driver = chromium(args.cert, network_log=True)


def js(script, *a):
    return driver.execute_script(script, *a)


def until(what, condition, timeout=20):
    return checks.until(driver, what, condition, timeout, poll=0.05)


def shot(name):
    driver.save_screenshot(os.path.join(args.shots, f"{name}.png"))


def ar(expr):
    return js(f"return window.treeline.ar.{expr}")


def network_requests():
    """Requests chromium sent since the last call (its DevTools network log)."""
    n = []
    for entry in driver.get_log("performance"):
        m = json.loads(entry["message"])["message"]
        if m.get("method") == "Network.requestWillBeSent":
            n.append(m["params"]["request"]["url"])
    return n


def next_frame():
    """Waits for the page to draw (two animation frames)."""
    driver.execute_async_script("const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => done()));")


def orient(heading, pitch=0.0, samples=60):
    """The phone held upright, its camera `pitch` degrees up, facing `heading`: deviceorientationabsolute
    events as Chrome on Android sends them (alpha counter-clockwise from north, beta 90 upright).
    Enough samples that the smoothing has converged (0.6^60)."""
    alpha = (360 - heading) % 360
    js("""const [a, b, n] = arguments;
          for (let i = 0; i < n; i++) window.dispatchEvent(new DeviceOrientationEvent('deviceorientationabsolute',
              {alpha: a, beta: b, gamma: 0, absolute: true}));""", alpha, 90 + pitch, samples)
    next_frame()


def angle_gap(a, b):
    return abs((a - b + 180) % 360 - 180)


def daemon_layout(camera, at, extra=None):
    """The daemon's `layout` at the page's heading and pitch, camera and box sizes, at the
    layout's position: the projector run for that heading (the page shifts the panorama)."""
    command = {"cmd": "layout", "heading": camera["heading"], "pitch": camera["pitch"], "fov": camera["fov"],
               "screen": camera["screen"], "box": camera["box"], "at": list(at), **(extra or {})}
    sizes = {i["id"]: i["size"] for i in ar("layout")["items"] if "size" in i}
    if sizes:
        command["sizes"] = sizes
    reply = json.loads(board.ask(json.dumps(command)))
    check(reply.get("class") == "LAYOUT", f"layout: {reply}")
    return {o["id"]: o for o in reply.get("items", [])}


def drawn():
    """The boxes in the page: id → (left, top) from the DOM, for those displayed."""
    return js("""const out = {};
                 for (const b of document.querySelectorAll('.ar-box[data-id]')) {
                   const r = b.getBoundingClientRect(), s = getComputedStyle(b);
                   if (s.display !== 'none' && s.visibility !== 'hidden' && r.width > 0) out[b.dataset.id] = [r.left, r.top, r.width, r.height];
                 }
                 return out;""")


compared = {"headings": 0, "boxes": 0}


def compare_with_daemon(label, extra=None):
    """The page's boxes against the daemon's `layout` at the page's own heading, pitch, screen and
    sizes: each drawn where the projector put it, as big as it stacked it; none overlapping."""
    until("the boxes sized to their texts", lambda: js("return window.treeline.ar.sized()"), 10)
    camera = ar("camera")
    layout = ar("layout")
    at = (layout["lat"], layout["lon"])
    expected = daemon_layout(camera, at, extra)
    boxes = {b["id"]: b for b in ar("boxes()")}
    shown = drawn()
    want = {i for i, o in expected.items() if o["visible"]}
    check(set(shown) == want, f"{label}: the page shows {sorted(shown)}, the daemon's layout {sorted(want)}")
    worst = 0.0
    for i in sorted(want & set(shown)):
        o = expected[i]
        left, top, width, height = shown[i]
        bw, bh = o.get("size", camera["box"])
        check([bw, bh] != camera["box"], f"{label}: {i} stacked at the default box {bw}×{bh}, not its own size")
        d = max(abs(left - o["x"]), abs(top - o["y"]), abs(width - bw), abs(height - bh))
        worst = max(worst, d)
        check(d <= 1, f"{label}: {i} drawn at {left:.2f},{top:.2f} {width}×{height}, the daemon's layout at {o['x']},{o['y']} {bw}×{bh}")
        compared["boxes"] += 1
    on_screen = [shown[i] for i in sorted(want & set(shown))]
    overlapping = [(a, b) for a in range(len(on_screen)) for b in range(a + 1, len(on_screen))
                   if on_screen[a][0] < on_screen[b][0] + on_screen[b][2] - 0.5 and on_screen[b][0] < on_screen[a][0] + on_screen[a][2] - 0.5
                   and on_screen[a][1] < on_screen[b][1] + on_screen[b][3] - 0.5 and on_screen[b][1] < on_screen[a][1] + on_screen[a][3] - 0.5]
    check(not overlapping, f"{label}: {len(overlapping)} pairs of boxes overlap")
    for i, o in expected.items():
        b = boxes.get(i)
        if check(b is not None, f"{label}: {i} missing from the page's boxes()"):
            check(b["level"] == o["level"] and bool(b["hidden"]) == o["hidden"],
                  f"{label}: {i} level {b['level']} hidden {b['hidden']}, the daemon's layout {o['level']} {o['hidden']}")
    compared["headings"] += 1
    print(f"{label}: heading {camera['heading']:.4f} pitch {camera['pitch']:.4f}: {len(want)} boxes, worst {worst:.3f} px", flush=True)
    return expected, shown


# --- The stream refuses what it cannot lay out, with the socket's words.
for query, words in [("screen=360,740&fov=60", '"fov" must be'), ("screen=0,740&fov=60,80", "1 to 16384 pixels wide and tall"),
                     ("screen=1e300,1e300&fov=1e-300,1e-300", "1 to 16384 pixels wide and tall"),
                     ("screen=360,740&fov=60,80&box=1e-300,1e-300", "the box must be 1 to 16384"),
                     ("screen=360,740&fov=60,80&user_distance_m=-1", "user_distance_m"),
                     ("screen=360,740&fov=60,80&sizes=%7B%22a%22%3A%5B1%2C2%5D", '"sizes" is not JSON'),
                     ("screen=360,740&fov=60,80&sizes=%7B%22a%22%3A%5B0%2C40%5D%7D", "the box of 'a' must be 1 to 16384"),
                     ("screen=360,740&fov=60,80&sizes=%7B%7D%2C%22at%22%3A%5B0%2C0%5D", '"sizes" is not JSON'),
                     ("screen=360,740&fov=60,80&sizes=%5B%5B1%2C2%5D%5D", '"sizes" must be an object of box sizes by id'),
                     ("screen=360,740&fov=60,80&user_distance_m=1e300", "user_distance_m"), ("screen=360,740&fov=60,80&zoom=2", "unknown query parameter")]:
    status, _, body = board.request("GET", "/api/layout?" + query)
    try:
        message = json.loads(body)["message"]
    except (ValueError, KeyError):
        message = body[:120]
    check(status == 400 and words in message, f"GET /api/layout?{query}: {status} {message!r}")

# --- The page, its camera and its first layout.
driver.get(args.url + "?token=" + board.token)
driver.get(args.url + "ar/")
until("the AR hooks", lambda: js("return !!(window.treeline && window.treeline.ar && window.treeline.ar.camera)"))
until("the first layout", lambda: (ar("layouts") or 0) >= 1, 30)
until("the fake camera playing", lambda: ar("video") == "playing", 15)
first = ar("layout")
check(first["reason"] in ("connect", "fix"), f"the first layout's reason: {first['reason']}")
check(abs(first["lat"] - scene["at"][0]) < 1e-6 and abs(first["lon"] - scene["at"][1]) < 1e-6, f"laid out at {first['lat']},{first['lon']}")
camera = ar("camera")
check(camera["screen"] == [360, 740], f"the stage is the phone's screen: {camera['screen']}")

# Chromium's own sensor path, where it works headless: DevTools' orientation override.
try:
    driver.execute_cdp_cmd("DeviceOrientation.setDeviceOrientationOverride", {"alpha": 300, "beta": 90, "gamma": 0})
    time.sleep(1)
    result(devtools_orientation=ar("orientationSource") or "none", devtools_heading=ar("camera")["heading"])
    driver.execute_cdp_cmd("DeviceOrientation.clearDeviceOrientationOverride", {})
except Exception as e:  # noqa: BLE001 - informative only
    result(devtools_orientation=f"unavailable: {e.__class__.__name__}")

# --- The smoothing: the numbers of AngleSmoother.
smoothed = js("""const s = new window.treeline.ar.Smoother();
                 return [[350, 0, 100], [10, 0, 111], [10, 0, 112], [10, 0, 113]].map(([h, p, t]) => s.add(h, p, t));""")
headings = [round(v[0], 6) for v in smoothed]
check(headings == [350.0, 358.0, 2.8, 5.68], f"350 → 10 smoothed: {headings}")
result(smoothed=headings[1:])

# --- Three headings against the daemon's layout.
orient(3)
until("the heading 3°", lambda: angle_gap(ar("camera")["heading"], 3) < 1e-6)
north, shown = compare_with_daemon("north")
levels = sorted(north[i]["level"] for i in ("plant-olive", "album-gate", "plant-fig"))
check(levels == [0, 1, 2], f"the three POIs due north stack: levels {levels}")
shot("ar")

orient(180)
until("the heading 180°", lambda: angle_gap(ar("camera")["heading"], 180) < 1e-6)
south, shown = compare_with_daemon("seam")
west, east = south.get("plant-seam-west"), south.get("album-seam-east")
check(west and east and west["visible"] and east["visible"] and {west["level"], east["level"]} == {0, 1},
      f"POIs at 181° and 179° both on screen, one lifted over the other: {west}, {east}")
shot("ar-seam")

orient(95, pitch=10)
until("the heading 95°, pitch 10°", lambda: angle_gap(ar("camera")["heading"], 95) < 1e-6 and abs(ar("camera")["pitch"] - 10) < 1e-6)
compare_with_daemon("east, tilted up")

# --- A whole turn: no request.
network_requests()  # drain
before = {"requests": js("return window.treeline.requests"), "layouts": ar("layouts"), "frames": ar("frames")}
seen_olive = set()
for h in range(0, 361, 5):
    orient(h % 360, samples=12)
    if any(b["id"] == "plant-olive" and b["visible"] for b in ar("boxes()")):
        seen_olive.add(h)
after = {"requests": js("return window.treeline.requests"), "layouts": ar("layouts"), "frames": ar("frames")}
sent = network_requests()
check(after["requests"] == before["requests"], f"the sweep made {after['requests'] - before['requests']} requests")
check(not sent, f"chromium sent {len(sent)} requests during the sweep: {sent[:3]}")
check(after["layouts"] == before["layouts"], "no layout came during the sweep")
# On screen while its box (its own width, 6 px a degree) touches the 360 px screen: |Δ| < (180 + w/2) / 6.
cam = ar("camera")
olive = next(i for i in ar("layout")["items"] if i["id"] == "plant-olive")
reach = (cam["screen"][0] / 2 + olive.get("size", cam["box"])[0] / 2) / (cam["screen"][0] / cam["fov"][0])
expected_olive = {h for h in range(0, 361, 5) if angle_gap(h, olive["bearing"]) < reach}
check(seen_olive == expected_olive, f"the olive ({olive['bearing']:.2f}°) on screen at {sorted(seen_olive)}, expected {sorted(expected_olive)}")
result(sweep_requests=after["requests"] - before["requests"], sweep_network_requests=len(sent),
       sweep_frames=after["frames"] - before["frames"], headings_compared=compared["headings"], boxes_compared=compared["boxes"])

# --- Focus: the album ahead for a second, then Capture with a frame of the camera.
orient(5, pitch=0)
until("focus on the album ahead", lambda: (ar("focus") or {}).get("id") == "album-gate", 5)
shot("ar-focus")
capture = driver.find_elements(By.CSS_SELECTOR, "#ar-details button.capture, #ar-details [data-action=capture]")
if check(capture and capture[0].is_enabled(), "Capture is offered for the album the walker is inside"):
    capture[0].click()
    kept = {}

    def captured():
        for c in json.loads(board.ask(json.dumps({"cmd": "captures", "album": "album-gate"})))["captures"]:
            if c.get("file"):
                kept["file"] = c["file"]
                return True
        return False

    if until("the AR capture recorded with its photo", captured, 15):
        status, _, body = board.request("GET", "/api/photos/" + os.path.basename(kept["file"]))
        check(status == 200 and body[:3] == b"\xff\xd8\xff", f"the photo is a JPEG frame of the camera: {status}, {body[:4]!r}")
        result(capture_photo=os.path.basename(kept["file"]), capture_bytes=len(body))

# The olive, with the camera a little down: the walker is outside its circle, so Water is not
# offered; the card says where it is offered, and what each distance measures.
orient(2, pitch=-5)
until("focus on the olive", lambda: (ar("focus") or {}).get("id") == "plant-olive", 5)
water = [b for b in driver.find_elements(By.CSS_SELECTOR, "#ar-details button.water, #ar-details [data-action=water]") if b.is_displayed()]
check(not water, "Water is not offered outside the plant's circle")
until("the card saying where Water is offered", lambda: "inside its circle" in driver.find_element(By.ID, "ar-details-facts").text, 5)
check("to its centre" in driver.find_element(By.ID, "ar-details-kind").text and "to the edge" in driver.find_element(By.ID, "ar-details-facts").text,
      f"each distance says what it measures: {driver.find_element(By.ID, 'ar-details-kind').text!r} / {driver.find_element(By.ID, 'ar-details-facts').text!r}")

# --- The radar: the POIs within its radius.
dots = {d["id"] for d in ar("radar()")}
layout = ar("layout")
within = {i["id"] for i in layout["items"] if i["distance"] <= max(i2["distance"] for i2 in layout["items"])}
check(dots and dots <= within, f"radar dots {sorted(dots)}")

# --- The options reach the projector: max distance 500 m leaves the album 900 m away out.
count = ar("layouts")
js("window.treeline.ar.setOptions({maxDistance: 500})")
until("a layout with max distance 500", lambda: ar("layouts") > count and "max_distance=500" in ar("query"), 10)
ids = {i["id"] for i in ar("layout")["items"]}
check("album-far" not in ids and "plant-west" in ids, f"max distance 500 m: {sorted(ids)}")
# The radar is drawn by the frame loop, after the layout came: wait for a frame.
until("the radar leaves out what is beyond max distance", lambda: "album-far" not in {d["id"] for d in ar("radar()")}, 5)
orient(30)
compare_with_daemon("max distance 500", extra={"max_distance": 500})
js("window.treeline.ar.setOptions({maxDistance: 0})")
until("the layout without a max distance", lambda: "album-far" in {i["id"] for i in ar("layout")["items"]}, 10)

# --- Pinhole (a real camera's tangent) with max levels 1: the page draws the panorama through the
# tangent, as Panorama.placed does, and no two boxes on the screen overlap.
count = ar("layouts")
js("window.treeline.ar.setOptions({projection: 'pinhole', maxLevels: 1})")
until("a pinhole layout", lambda: ar("layouts") > count and ar("layout")["projection"] == "pinhole", 10)
for h, p in [(3, 0), (181, 8)]:
    orient(h, pitch=p)
    until(f"the heading {h}°", lambda: angle_gap(ar("camera")["heading"], h) < 1e-6)
    until("the boxes sized to their texts", lambda: js("return window.treeline.ar.sized()"), 10)
    cam, layout, shown = ar("camera"), ar("layout"), drawn()
    (W, H), (HF, VF) = cam["screen"], cam["fov"]
    f = (W / 2) / math.tan(math.radians(HF / 2))
    fv = (H / 2) / math.tan(math.radians(VF / 2))
    want = {}
    for item in layout["items"]:
        d = (item["bearing"] - cam["heading"] + 180) % 360 - 180
        if abs(d) >= 90 or item["hidden"]:
            continue
        BW, BH = item.get("size", cam["box"])
        x = W / 2 - BW / 2 + f * math.tan(math.radians(d))
        y = item["y"] + fv * math.tan(math.radians(cam["pitch"]))
        if x < W and x + BW > 0 and y < H and y + BH > 0:
            want[item["id"]] = (x, y, BW, BH)
    check(set(shown) == set(want), f"pinhole at {h}°: the page shows {sorted(shown)}, the tangent {sorted(want)}")
    # Each box drawn where the tangent puts it, as big as it was stacked.
    for i in set(shown) & set(want):
        got = shown[i]
        check(max(abs(got[k] - want[i][k]) for k in range(4)) <= 1, f"pinhole at {h}°: {i} drawn at {got}, the tangent {want[i]}")
    boxes = list(shown.values())
    overlaps = sum(1 for a in range(len(boxes)) for b in range(a + 1, len(boxes))
                   if boxes[a][0] < boxes[b][0] + boxes[b][2] - 0.5 and boxes[b][0] < boxes[a][0] + boxes[a][2] - 0.5
                   and boxes[a][1] < boxes[b][1] + boxes[b][3] - 0.5 and boxes[b][1] < boxes[a][1] + boxes[a][3] - 0.5)
    check(overlaps == 0, f"pinhole at {h}°: {overlaps} boxes overlap")
    check(max((i["level"] for i in layout["items"]), default=0) <= 1, "max levels 1 reaches the projector")
    result(**{f"pinhole_{h}_boxes": len(shown)})
js("window.treeline.ar.setOptions({projection: 'linear', maxLevels: null})")
until("the linear layout again", lambda: ar("layout")["projection"] == "linear", 10)

# --- The walk: 20 m north brings one new layout, from there.
count = ar("layouts")
print("WALK", flush=True)
until("a layout after walking", lambda: ar("layouts") > count, 30)
moved = ar("layout")
check(moved["reason"] == "moved", f"the new layout's reason: {moved['reason']}")
lat0, lon0 = scene["at"]
dn = (moved["lat"] - lat0) * 111_035.0
de = (moved["lon"] - lon0) * 111_035.0 * math.cos(math.radians(lat0))
walked = math.hypot(dn, de)
check(15 <= walked <= scene["walk_m"] + 0.5, f"the new layout is from {walked:.1f} m north of the first")
# The rest of the walk and the standing after, to the scene's last fix, used by the daemon: what
# the walk brings the page comes before the layout of the regions' change below.
until(f"the daemon at the scene's last fix ({scene['last_fix']})",
      lambda: (json.loads(board.ask('{"cmd":"state"}')).get("last_fix") or {}).get("time") == scene["last_fix"], 60)
walk_count = count
orient(180)
until("the heading 180° again", lambda: angle_gap(ar("camera")["heading"], 180) < 1e-6)
compare_with_daemon("after the walk")

# --- Two regions added in one change: one layout more, with both.
def plant(pid, name, dlat, dlon):
    return {"type": "Feature", "properties": {"id": pid, "kind": "plant", "name": name, "interval_days": 4, "radius_m": 5},
            "geometry": {"type": "Point", "coordinates": [moved["lon"] + dlon, moved["lat"] + dlat]}}


def received_after(n):
    """The layouts the page received after its n-th: {n, reason, stream, ids}, in order."""
    return [r for r in ar("received()") if r["n"] > n]


CHERRY, PLUM = "plant-cherry", "plant-plum"
before_add = ar("layouts")
stream_before = ar("received()")[-1]["stream"]
board.api({"cmd": "add_regions", "features": [plant(CHERRY, "Cherry by the AR test", -0.0002, -0.0001),
                                                plant(PLUM, "Plum by the AR test", -0.0003, 0.0001)]})
until("a layout with both plants added in one change",
      lambda: any(r["reason"] == "regions" and {CHERRY, PLUM} <= set(r["ids"]) for r in received_after(before_add)), 10)
# The page then measures the two new boxes (with their due dot once REGIONS has the plants) and
# opens its stream again with those sizes: a new stream, whose first layout is "connect". When
# and how often (once or twice) depends on how the page's answers interleave, so the layouts are
# told apart by why each came and on which stream, not counted blind. Settled: the page knows
# both plants (it asks REGIONS for the regions its events stream names; the AR view opens that
# stream from the board's last seq, so every event on it is news) and has every box laid out at
# the size it needs.
until("the page knowing both plants from their events", lambda: ar(f"knows('{CHERRY}')") and ar(f"knows('{PLUM}')"), 10)
until("the new boxes laid out at their sizes", lambda: ar("sized()"), 10)
after_add = received_after(before_add)
walk_layouts = [r for r in ar("received()") if walk_count < r["n"] <= before_add]
check(len(walk_layouts) == 1 and walk_layouts[0]["reason"] == "moved", f"the walk of {scene['walk_m']} m brought {walk_layouts}")
first = after_add[0]
check(first["reason"] == "regions" and first["stream"] == stream_before and {CHERRY, PLUM} <= set(first["ids"]),
      f"the first layout after adding two regions, on the stream that was open: {first}")
for_the_change = [r for r in after_add if r["reason"] != "connect"]
check(len(for_the_change) == 1, f"{len(for_the_change)} layouts for one change of two regions: {after_add}")
# Any other is the first layout of a stream the page opened anew (for the boxes' sizes): never a
# stream that dropped and came back by itself, nor a second layout of the change.
streams = [stream_before]
for r in after_add[1:]:
    check(r["reason"] == "connect" and r["stream"] > streams[-1], f"after the change's layout, {r} (streams so far {streams})")
    streams.append(r["stream"])
# Then one change more, the plum removed: no new box to measure, so it comes as one layout on the
# stream that is open. Counted from the last layout checked above, so that one arriving in between
# (a second for the change) is counted here; and after the page has settled again and a quiet
# spell, so that a second layout for the removal is seen too.
settled = after_add[-1]["n"]
stream_now = after_add[-1]["stream"]
board.api({"cmd": "remove_region", "region": PLUM})
until("the layout without the plum", lambda: any(PLUM not in r["ids"] for r in received_after(settled)), 10)
until("the boxes laid out after the removal", lambda: ar("sized()"), 10)
time.sleep(1)
after_remove = received_after(settled)
check(len(after_remove) == 1 and after_remove[0]["reason"] == "regions" and after_remove[0]["stream"] == stream_now
      and CHERRY in after_remove[0]["ids"], f"the removal's layout, on stream {stream_now}: {after_remove}")
result(moved_layouts=len(walk_layouts), moved_m=round(walked, 2), layouts_for_two_regions=len(for_the_change),
       streams_opened_for_new_boxes=len(streams) - 1)

result(layouts_compared=compared["headings"], boxes_compared_all=compared["boxes"])
errors = js("return window.treeline.errors")
check(not errors, f"page errors: {errors}")
severe = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
check(not severe, f"console errors: {severe[:3]}")
driver.quit()
checks.done()
