"""The web app in Debian's chromium (Selenium, a 360×740 phone screen) while gpsd is fed the walk:
the position follows gpsd's fixes within 2 s, every event reaches Events, a reload mid-walk
loses and doubles none; Water, Add plant here, Add album here and Capture do what
`treeline plants`, `treeline regions` and `captures` then say; a screenshot of each view."""
import json
import os
import socket
import statistics
import threading
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from webcheck import EVENT_ROWS_JS, Board, Checks, arguments, chromium, result, rows_problem

args = arguments()
board = Board(args)
checks = Checks()
check = checks.check
os.makedirs(args.shots, exist_ok=True)


# gpsd's own fixes, with the wall time each reached a client: the reference for the map.
gpsd_fixes = {}


def watch_gpsd():
    with socket.create_connection(("127.0.0.1", args.gpsd_port)) as s:
        s.sendall(b'?WATCH={"enable":true,"json":true};\n')
        buffer = b""
        while True:
            data = s.recv(65536)
            if not data:
                return
            now = time.time()
            buffer += data
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                try:
                    o = json.loads(line)
                except ValueError:
                    continue
                if o.get("class") == "TPV" and o.get("mode", 0) >= 2 and "time" in o:
                    gpsd_fixes.setdefault(o["time"], now)


threading.Thread(target=watch_gpsd, daemon=True).start()
driver = chromium(args.cert)
wait = WebDriverWait(driver, 20)


def js(script, *a):
    return driver.execute_script(script, *a)


def tab(name):
    driver.find_element(By.ID, f"tab-{name}").click()
    wait.until(lambda d: "active" in d.find_element(By.ID, f"view-{name}").get_attribute("class"))


def shot(name):
    time.sleep(0.5)
    driver.save_screenshot(os.path.join(args.shots, f"{name}.png"))


def until(what, condition, timeout=20):
    return checks.until(driver, what, condition, timeout)


def positions_log():
    return js("return (window.treeline && window.treeline.positionLog) || []")


def shown_seqs():
    """The Events list's seqs as the page shows them (its text), oldest first."""
    return [int(r["seq"].lstrip("#")) for r in reversed(js(EVENT_ROWS_JS))]


# Open the page with the token once: the cookie, then the plain address.
driver.get(args.url + "?token=" + board.token)
check(driver.current_url.rstrip("/") == args.url.rstrip("/"), f"the token is dropped from the address: {driver.current_url}")
until("the page's hooks", lambda: js("return !!(window.treeline && window.treeline.seqs)"))
until("the journal so far in Events (the regions files' record)", lambda: shown_seqs()[:1] == [1])
print("READY", flush=True)  # the walk starts

# --- Plants: Water on a due plant; `treeline plants` agrees.
tab("plants")
until("a due plant", lambda: len(driver.find_elements(By.CSS_SELECTOR, '#plants-list li[data-due="true"]')) > 0)
due = driver.find_elements(By.CSS_SELECTOR, '#plants-list li[data-due="true"]')
plant = due[0].get_attribute("data-id") if due else None
if plant:
    due[0].find_element(By.CSS_SELECTOR, "button.water").click()
    until(f"{plant} turning not due", lambda: driver.find_element(By.CSS_SELECTOR, f'#plants-list li[data-id="{plant}"]').get_attribute("data-due") == "false")
    _, out, _ = board.treeline("plants")
    row = next((l for l in out.splitlines() if l.startswith(plant + " ")), "")
    check(row and "overdue" not in row, f"treeline plants after Water: {row!r}")
    result(watered=plant)

# Add plant here: `treeline regions` lists it, the map draws it.
driver.find_element(By.ID, "plant-name").send_keys("Fern by the web")
interval = driver.find_element(By.ID, "plant-interval")
interval.clear()
interval.send_keys("5")
driver.find_element(By.ID, "plant-add").click()
added = {}


def added_plant():
    _, out, _ = board.treeline("regions", "list", "--json")
    for r in json.loads(out or "{}").get("regions", []):
        if r["name"] == "Fern by the web":
            added["id"] = r["id"]
            return True
    return False


if until("treeline regions listing the plant added from the page", added_plant):
    tab("map")
    until("the map drawing the added plant", lambda: added["id"] in js("return window.treeline.mapRegionIds()"))
    shot("map")

# --- Albums: Capture disabled outside; an album added here is entered and Capture works.
tab("albums")
until("the albums", lambda: len(driver.find_elements(By.CSS_SELECTOR, "#albums-list li[data-id]")) >= 2)
far = driver.find_element(By.CSS_SELECTOR, '#albums-list li[data-id="album-miradouro"]')
check(far.get_attribute("data-inside") == "false" and not far.find_element(By.CSS_SELECTOR, "button.capture").is_enabled(),
      "Capture is disabled for an album the walker is outside")
driver.find_element(By.ID, "album-name").send_keys("Web album")
radius = driver.find_element(By.ID, "album-radius")
radius.clear()
radius.send_keys("80")
driver.find_element(By.ID, "album-add").click()
new_album = '#albums-list li[data-id^="album-"]:not([data-id="album-miradouro"]):not([data-id="album-ribeira"])'
if until("the album added here, entered", lambda: any(li.get_attribute("data-inside") == "true" for li in driver.find_elements(By.CSS_SELECTOR, new_album)), 30):
    li = next(li for li in driver.find_elements(By.CSS_SELECTOR, new_album) if li.get_attribute("data-inside") == "true")
    album = li.get_attribute("data-id")
    button = li.find_element(By.CSS_SELECTOR, "button.capture")
    check(button.is_enabled(), "Capture is enabled inside the album")
    li.find_element(By.CSS_SELECTOR, "input.capture-note").send_keys("taken from the web app")
    button.click()
    until("the capture recorded", lambda: "taken from the web app" in board.ask(json.dumps({"cmd": "captures", "album": album})), 15)
    shot("albums")
    # A photo from the phone's camera input (here a picture file): kept on the board with the capture.
    photo = os.path.join(args.shots, "albums.png")
    li = driver.find_element(By.CSS_SELECTOR, f'#albums-list li[data-id="{album}"]')
    li.find_element(By.CSS_SELECTOR, "input.capture-file").send_keys(os.path.abspath(photo))
    li.find_element(By.CSS_SELECTOR, "button.capture").click()
    kept = {}

    def photo_capture():
        for c in json.loads(board.ask(json.dumps({"cmd": "captures", "album": album})))["captures"]:
            if str(c.get("file", "")).endswith(".png"):
                kept["file"] = c["file"]
                return True
        return False

    if until("the photo capture recorded", photo_capture, 15):
        status, _, body = board.request("GET", "/api/photos/" + os.path.basename(kept["file"]))
        check(status == 200 and body == open(photo, "rb").read(), f"the photo kept on the board is the one sent: {status}, {len(body)} bytes")
        # The page shows it, by the name the board wrote, from /api/photos/.
        served = "/api/photos/" + os.path.basename(kept["file"])
        until("the photo shown in its album", lambda: driver.execute_script(
            "const i = [...document.querySelectorAll('#albums-list img')].find(i => new URL(i.src).pathname === arguments[0]);"
            " if (i) i.scrollIntoView(); return !!i && i.complete && i.naturalWidth > 0",
            served), 15)
    result(captured_in=album, photo=os.path.basename(kept.get("file", "")))

# --- Reload mid-walk: nothing lost, nothing doubled: the list shown after it begins with the
# list shown before it, in the same order.
before = shown_seqs()
driver.refresh()
until("the page back after the reload", lambda: js("return !!(window.treeline && window.treeline.seqs)"))
until("the events of before the reload shown again, in order", lambda: shown_seqs()[:len(before)] == before)
after = shown_seqs()
check(after[:len(before)] == before and len(after) == len(set(after)),
      f"after the reload the list begins as before it ({len(before)} rows), none twice: {after[:len(before) + 3]}")
result(seqs_before_reload=len(before))

# --- Planting: species search, can I plant here, a plan drawn.
tab("planting")
search = driver.find_element(By.ID, "species-search")
search.send_keys("oak")
until("species found for 'oak'", lambda: len(driver.find_elements(By.CSS_SELECTOR, "#species-results li")) > 0)
driver.find_elements(By.CSS_SELECTOR, "#species-results li")[0].click()
driver.find_element(By.ID, "can-plant").click()
until("an answer to can I plant here", lambda: driver.find_element(By.ID, "can-plant-result").text.strip() != "")
result(can_plant=driver.find_element(By.ID, "can-plant-result").text.strip()[:120])
shot("planting")

# --- The walk to its end: the Events list on screen is the journal, newest first, each once.
# The end is known: the daemon has used the walk's last fix (and every command this script sent
# was answered). Then a marker event: once the page shows it, whatever the page had to show
# before it has come; the rows on screen must be the journal's events to the marker, in order.
until(f"the daemon at the walk's last fix ({args.last_fix})",
      lambda: (json.loads(board.ask('{"cmd":"state"}')).get("last_fix") or {}).get("time") == args.last_fix, 240)
last = json.loads(board.ask('{"cmd":"state"}'))["seq"]
marker = board.marker("End of the walk")
check(marker is not None and marker["seq"] == last + 1, f"the marker after seq {last}: {marker}")
journal = [json.loads(l) for l in board.subscribe('{"cmd":"subscribe","since":0}', until_seq=last + 1)[1:]]
check([e["seq"] for e in journal] == list(range(1, last + 2)), f"the journal over the socket: seqs 1..{last + 1}")
tab("events")
until("the marker at the top of Events", lambda: (js(EVENT_ROWS_JS) or [{}])[0].get("seq") == f"#{last + 1}", 20)
rows = js(EVENT_ROWS_JS)
problem = rows_problem(rows, journal)
check(problem is None, f"Events on screen is the journal, newest first, each once: {problem}")
shot("events")
tab("plants")
shot("plants")
result(events_shown=len(rows), journal_events=len(journal))

# --- The position: each gpsd fix the page showed, within 2 s of gpsd giving it.
shown = {p["time"]: p["shownAt"] / 1000 for p in positions_log()}
delays = [(shown[t] - gpsd_fixes[t]) * 1000 for t in shown if t in gpsd_fixes]
check(len(delays) >= 0.5 * len(gpsd_fixes), f"the page showed {len(delays)} of gpsd's {len(gpsd_fixes)} fixes")
if delays:
    delays.sort()
    p99 = delays[min(len(delays) - 1, int(0.99 * len(delays)))]
    check(max(delays) <= 2000, f"position shown {max(delays):.0f} ms after gpsd's fix (limit 2000)")
    result(position_fixes=len(delays), gpsd_fixes=len(gpsd_fixes), position_delay_ms_p50=round(statistics.median(delays), 1),
           position_delay_ms_p99=round(p99, 1), position_delay_ms_max=round(max(delays), 1))

# --- No console errors.
errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
check(not errors, f"console errors: {errors[:5]}")
page_errors = js("return window.treeline.errors")
check(page_errors == [], f"errors in the page: {page_errors}")
result(console_errors=len(errors), screenshots=sorted(os.listdir(args.shots)))
driver.quit()
checks.done()
