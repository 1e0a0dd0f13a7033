"""The page when the board is out of reach (Debian's chromium, Selenium), while gpsd is fed the
walk:

- the page registers its service worker and is installable (chromium's own manifest checks:
  no installability error);
- with the board stopped (the Swift test stops treelined when this prints STOP) inside an
  album and an area, Water (a plant), Add plant here, Capture with a photo and Plant here wait in
  the queue at the top of the page;
- reloaded, the page comes from the service worker's cache: the shell, Leaflet, the regions it
  last got drawn on the map, the out-of-reach note, and the queue (kept in IndexedDB) with both
  (shown at 390×844 and at 320×568);
- once the board is back (START), each is sent and recorded exactly once: one `watered` of
  that plant and one `region_added` of that name in the journal since, one capture with its
  photo and note, one tree; the new plant placed where the board's last position was when it
  was added (within 1 m);
- sent again by hand with the same Idempotency-Key, each gets its first answer again and the
  journal does not grow; eight copies of one new key sent at once water once, and all eight
  get that answer;
- axe-core (WCAG 2.x A/AA) on the page with the queue shown: no serious or critical violation.

Screenshots: out/web/offline-*.png."""
import json
import os
import struct
import threading
import time
import zlib

from selenium.webdriver.common.by import By

from webcheck import axe_for, chromium, geodesic, resize, result, show_tab, start_script

args, board, checks = start_script()
check = checks.check


def png(path, width=4, height=3):
    """A small, whole PNG (the board checks a photo's header, chunks and CRCs)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + bytes([40, 120, 60]) * width for _ in range(height))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
    return path


PHOTO = png(os.path.join(os.path.abspath(args.shots), "offline-photo.png"))

PLANT = "plant-carvalho"
ALBUM = "album-miradouro"        # entered by the walk at 09:07:13, inside the area ref-encosta
NEW_NAME = "Cork oak planted offline"
AXE_OPTIONS = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]},
               "resultTypes": ["violations"]}


def js(script, *a):
    return driver.execute_script(script, *a)


def until(what, condition, timeout=30):
    return checks.until(driver, what, condition, timeout=timeout)


def shot(name):
    driver.save_screenshot(os.path.join(args.shots, f"offline-{name}.png"))


def reachable():
    try:
        status, _, _ = board.request("GET", "/api/web.json", timeout=2)
        return status == 200
    except OSError:
        return False


def journal():
    """The journal's events (parsed), from the socket's export of it, or [] when down."""
    out = []
    lines = board.subscribe(json.dumps({"cmd": "subscribe", "since": 0}), timeout=3)
    for line in lines:
        o = json.loads(line)
        if o.get("class") == "EVENT":
            out.append(o)
    return out


def recorded(events, since):
    waterings = [e for e in events if e["seq"] > since and e["type"] == "watered" and e.get("region") == PLANT]
    added = [e for e in events if e["seq"] > since and e["type"] == "region_added" and (e.get("name") == NEW_NAME
             or ((e.get("feature") or {}).get("properties") or {}).get("name") == NEW_NAME)]
    return waterings, added


driver = chromium(args.cert)
try:
    resize(driver, 390, 844)
    driver.get(args.url + "?token=" + board.token)
    until("the service worker", lambda: js("return window.treeline && window.treeline.serviceWorker") == "ready", 60)
    until("the page under the service worker", lambda: js("return !!navigator.serviceWorker.controller"), 30)
    worker = js("return window.treeline.serviceWorker")
    installable = driver.execute_cdp_cmd("Page.getInstallabilityErrors", {}).get("installabilityErrors", [])
    manifest = driver.execute_cdp_cmd("Page.getAppManifest", {})
    check(not installable, f"installable: {installable}")
    check(not manifest.get("errors"), f"manifest errors: {manifest.get('errors')}")
    print("READY", flush=True)

    # The walk gives the board fixes; the page gets its positions.
    until("a position on the map", lambda: js("return window.treeline.position !== null"), 90)
    # A species chosen while the board answers (its search is the board's).
    show_tab(driver, checks, "planting")
    driver.find_element(By.ID, "species-search").send_keys("Quercus robur")
    until("species found for 'oak'", lambda: len(driver.find_elements(By.CSS_SELECTOR, "#species-results li[data-latin]")) > 0)
    driver.find_elements(By.CSS_SELECTOR, "#species-results li[data-latin]")[0].click()
    species = driver.find_element(By.ID, "species-chosen").text
    # Inside the album (and the area around it), where Capture and Plant here are offered.
    until(f"the board inside {ALBUM}", lambda: ALBUM in json.loads(board.ask('{"cmd":"state"}')).get("inside", []), 240)
    show_tab(driver, checks, "albums")
    until("Capture offered", lambda: driver.find_element(By.CSS_SELECTOR, f'#albums-list li[data-id="{ALBUM}"] .capture-form').is_displayed(), 30)
    # gpsd's feed paused (the Swift test does it on PAUSE): the board's last fix stays where the
    # board is, so "here" has one right answer.
    print("PAUSE", flush=True)
    time.sleep(2)
    last_fix = json.loads(board.ask('{"cmd":"state"}')).get("last_fix")
    captures_before = len(json.loads(board.ask(json.dumps({"cmd": "captures", "album": ALBUM})))["captures"])
    trees_before = len(json.loads(board.ask('{"cmd":"trees"}'))["trees"])
    before = journal()
    last_seq = before[-1]["seq"] if before else 0
    drawn_online = js("return window.treeline.mapRegionIds().length")

    print("STOP", flush=True)
    until("the board stopped", lambda: not reachable(), 60)

    show_tab(driver, checks, "plants")
    until("the plants from the last answer", lambda: len(driver.find_elements(By.CSS_SELECTOR, f'#plants-list li[data-id="{PLANT}"] button.water')) == 1)
    driver.find_element(By.CSS_SELECTOR, f'#plants-list li[data-id="{PLANT}"] button.water').click()
    until("Water queued", lambda: len(js("return window.treeline.queue()")) == 1)
    driver.find_element(By.ID, "plant-name").send_keys(NEW_NAME)
    driver.find_element(By.ID, "plant-add").click()
    until("Add plant here queued", lambda: len(js("return window.treeline.queue()")) == 2)
    show_tab(driver, checks, "albums")
    row = f'#albums-list li[data-id="{ALBUM}"]'
    driver.find_element(By.CSS_SELECTOR, row + " .capture-file").send_keys(PHOTO)
    driver.find_element(By.CSS_SELECTOR, row + " .capture-note").send_keys("taken out of reach")
    driver.find_element(By.CSS_SELECTOR, row + " button.capture").click()
    until("Capture with a photo queued", lambda: len(js("return window.treeline.queue()")) == 3)
    show_tab(driver, checks, "planting")
    driver.find_element(By.ID, "plant-here").click()
    until("Plant here queued", lambda: len(js("return window.treeline.queue()")) == 4)
    # Reloaded with the board out of reach: the shell from the service worker, the regions from
    # what the page kept.
    driver.get(args.url)
    until("the page from the cache", lambda: js("return !!document.querySelector('#map.leaflet-container')"), 30)
    until("the regions drawn from the last answer", lambda: js("return window.treeline.mapRegionIds().length") >= drawn_online, 30)
    until("the out-of-reach note", lambda: js("return !document.getElementById('offline-note').hidden"), 30)
    drawn_offline = js("return window.treeline.mapRegionIds().length")
    shot("map-390x844")
    show_tab(driver, checks, "plants")
    until("the queue kept over the reload", lambda: len(js("return window.treeline.queue ? window.treeline.queue() : []")) == 4)

    queued = js("return window.treeline.queue()")
    check([q["state"] for q in queued] == ["waiting"] * 4, f"all four wait: {queued}")
    shown = js("return [...document.querySelectorAll('#queue-list li')].map(li => li.innerText)")
    check(len(shown) == 4 and not js("return document.getElementById('queue').hidden"), f"the queue shows all four: {shown}")
    driver.execute_script("window.scrollTo(0, 0)")
    shot("queue-390x844")
    resize(driver, 320, 568)
    shot("queue-320x568")
    resize(driver, 390, 844)
    axe = axe_for(driver)
    axe.inject()
    found = axe.run(options=json.dumps(AXE_OPTIONS))
    serious = [v for v in found["violations"] if v["impact"] in ("serious", "critical")]
    for v in serious:
        check(False, f"axe {v['impact']} {v['id']}: {[n['target'] for n in v['nodes']][:3]}")
    small = js("""return [...document.querySelectorAll('#queue button')].filter(b => b.checkVisibility()).filter(b => { const r = b.getBoundingClientRect();
                  return r.width < 44 || r.height < 44; }).length""")
    check(small == 0, f"{small} queue buttons under 44 px")

    print("START", flush=True)
    until("the board back", reachable, 120)
    until("the queue sent", lambda: len(js("return window.treeline.queueSent")) == 4, 90)
    driver.execute_script("window.scrollTo(0, 0)")
    shot("sent-390x844")  # "Sent to the board", each recorded, for a moment
    until("the queue emptied", lambda: len(js("return window.treeline.queue()")) == 0, 30)
    check(not js("return window.treeline.queue()"), f"left in the queue: {js('return window.treeline.queue()')}")
    sent = js("return window.treeline.queueSent")
    shot("after-390x844")

    after = journal()
    waterings, added = recorded(after, last_seq)
    captures = json.loads(board.ask(json.dumps({"cmd": "captures", "album": ALBUM})))["captures"]
    new_captures = captures[captures_before:]
    check(len(new_captures) == 1 and new_captures[0].get("file") and new_captures[0].get("note") == "taken out of reach",
          f"one capture with its photo: {new_captures}")
    trees = json.loads(board.ask('{"cmd":"trees"}'))["trees"]
    planted = next((x["answer"] for x in sent if x["label"].startswith("Plant")), None)
    check(len(trees) == trees_before + 1, f"one tree planted: {len(trees) - trees_before}; the board said {planted}")
    check(len(waterings) == 1, f"one watering of {PLANT} recorded: {len(waterings)}")
    check(len(added) == 1, f"one {NEW_NAME} added: {len(added)}")
    placed_off = None
    if added and last_fix:
        regions = json.loads(board.ask(json.dumps({"cmd": "regions", "geometry": True})))["regions"]
        new = next((r for r in regions if r.get("name") == NEW_NAME), None)
        if check(new is not None, f"{NEW_NAME} in REGIONS"):
            lon, lat = new["geometry"]["coordinates"]
            placed_off = geodesic(last_fix["lat"], last_fix["lon"], lat, lon)[0]
            check(placed_off <= 1, f"placed where the board last was when added: {placed_off:.2f} m off")

    # Sent again with the same keys (an answer lost on the way): the first answers, nothing new.
    repeats_equal = 0
    for s in sent:
        label, request = s["label"], s["request"]
        if label.startswith("Capture"):
            query = f"album={ALBUM}&note={request['note'].replace(' ', '%20')}"
            status, _, body = board.request("POST", f"/api/captures?{query}", body=open(PHOTO, "rb").read(),
                                            headers={"Content-Type": "image/png", "Idempotency-Key": s["key"]})
        else:
            # As the page sent it (ago_s aside, which grows while an action waits).
            status, _, body = board.request("POST", "/api", body=json.dumps(request).encode(),
                                            headers={"Content-Type": "application/json", "Idempotency-Key": s["key"]})
        same = status == 200 and json.loads(body) == s["answer"]
        repeats_equal += same
        check(same, f"{label} sent again with its key: {status} {body[:200]!r}, first {s['answer']}")
    again = journal()
    check(len(again) == len(after), f"the journal did not grow on the repeats: {len(after)} then {len(again)}")
    captures_again = len(json.loads(board.ask(json.dumps({"cmd": "captures", "album": ALBUM})))["captures"])
    trees_again = len(json.loads(board.ask('{"cmd":"trees"}'))["trees"])
    check(captures_again == len(captures) and trees_again == len(trees), f"no capture or tree again: {captures_again}, {trees_again}")
    # The same key on another request is another request: it runs (never the first answer).
    first_water = next(x for x in sent if x["label"].startswith("Water"))
    status, _, body = board.request("POST", "/api", body=json.dumps({"cmd": "water", "plant": "plant-medronheiro"}).encode(),
                                    headers={"Content-Type": "application/json", "Idempotency-Key": first_water["key"]})
    other_request = json.loads(body) if status == 200 else {"status": status}
    check(other_request.get("region") == "plant-medronheiro", f"the watering's key on another plant: {status} {body[:160]!r}")
    # Eight copies of one keyed watering at once (a retry racing its original): one runs, all
    # get its answer.
    answers = []

    def water_once():
        answers.append(board.request("POST", "/api", body=json.dumps({"cmd": "water", "plant": PLANT}).encode(),
                                     headers={"Content-Type": "application/json", "Idempotency-Key": "race-1"}))

    threads = [threading.Thread(target=water_once) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    raced = journal()
    race_waterings = len(recorded(raced, again[-1]["seq"])[0])
    check(race_waterings == 1, f"8 copies of one key at once: {race_waterings} waterings recorded")
    check(len({(a[0], a[2]) for a in answers}) == 1 and answers[0][0] == 200, f"the same answer to each copy: {[(a[0], a[2][:80]) for a in answers]}")
    status, _, body = board.request("POST", "/api", body=b'{"cmd":"water","plant":"plant-carvalho"}',
                                    headers={"Content-Type": "application/json", "Idempotency-Key": "k" * 129})
    check(status == 400 and b"Idempotency-Key" in body, f"a key over 128 bytes is refused: {status} {body[:160]!r}")

    errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"
              and "Failed to load resource" not in e["message"] and "ERR_CONNECTION_REFUSED" not in e["message"]]
    page_errors = js("return window.treeline.errors")
    check(not page_errors, f"page errors: {page_errors}")
    result(service_worker=worker, installability_errors=len(installable), regions_drawn_online=drawn_online,
           regions_drawn_offline=drawn_offline, queued_shown=len(shown), waterings_recorded=len(waterings),
           plants_added=len(added), captures_recorded=len(new_captures), trees_planted=len(trees) - trees_before, placed_off_m=placed_off, repeats_equal=repeats_equal,
           journal_grew_on_repeat=len(again) - len(after), key_on_another_request=other_request.get("region"), race_waterings=race_waterings, axe_serious_or_critical=len(serious),
           console_errors=len(errors), console_error_texts=errors[:5])
finally:
    driver.quit()
checks.done()
