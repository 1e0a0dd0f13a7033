"""The crew on board A's map, in Debian's chromium (CrewWebTests.swift starts a mosquitto, two
boards on it, `board-a` and `board-b`, each with `owntracks:` set and a gpsd fed its walk at the
receiver's own pace, dated from now; this script gets board A's page).

Reads what the boards publish with mosquitto_sub (`owntracks/+/+`), and checks:

- board B shows on A's map with its name, the marker where B published (the same `tst`) within
  5 m while it walks, at least 3 positions seen, its age shown at most 15 s, its accuracy shown
  as B's `acc`; A never shows itself;
- once B stands (the test pauses its receiver when this prints PAUSE_B), its marker within 5 m
  of B's latest published location;
- a hostile member published by hand (markup as its user level, a position out of range, a
  2,000-character name) is shown as text or left out, never run; one 10 minutes old is stale and
  says so;
- the Crew list: axe-core (WCAG 2.0-2.2 A and AA) with it open finds nothing serious or
  critical, in both themes; every visible target at least 44×44 px; an entry centres the map on
  its member (within 2 px) and rings it; screenshots at 390×844, 320×640 and 844×390 (out/web/crew-*.png);
- `crew` is asked only while the map is shown; with the board out of reach (chromium blocks
  /api) the page shows the last answer, its ages still counting, and says so;
- B's retained location cleared (`mosquitto_pub -r -n`): B leaves the map and the list within
  10 s.
"""
import json
import re
import socket
import subprocess
import threading
import time

from selenium.webdriver.common.by import By

from webcheck import axe_for, chromium, geodesic, resize, result, show_tab, start_script


def extra(p):
    p.add_argument("--mqtt-port", type=int, required=True)
    p.add_argument("--mqtt-user", required=True)
    p.add_argument("--mqtt-password", required=True)
    p.add_argument("--socket-b", required=True, help="board B's socket")


args, board, checks = start_script(extra)
check = checks.check
MQTT = ["-h", "127.0.0.1", "-p", str(args.mqtt_port), "-u", args.mqtt_user, "-P", args.mqtt_password]
B_TOPIC = "owntracks/board-b/treeline"
A_TOPIC = "owntracks/board-a/treeline"
HOSTILE_USER = "<img src=x onerror=window.__crewPwned=1>"
AXE_OPTIONS = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]},
               "resultTypes": ["violations"]}


class Locations:
    """Every message on owntracks/+/+ as it comes: (seconds since the epoch, topic, payload or
    None for an empty one)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.messages = []
        self.process = subprocess.Popen(["mosquitto_sub", *MQTT, "-q", "1", "-t", "owntracks/+/+", "-F", "%t\t%p"],
                                        stdout=subprocess.PIPE, text=True)
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.process.stdout:
            topic, _, payload = line.rstrip("\n").partition("\t")
            try:
                body = json.loads(payload) if payload else None
            except ValueError:
                body = payload
            with self.lock:
                self.messages.append((time.time(), topic, body))

    def of(self, topic):
        with self.lock:
            return [(t, body) for t, top, body in self.messages if top == topic and isinstance(body, dict)]


def publish(topic, payload, retain=True):
    a = ["mosquitto_pub", *MQTT, "-q", "1", "-t", topic]
    a += ["-n"] if payload is None else ["-m", json.dumps(payload)]
    if retain:
        a.append("-r")
    subprocess.run(a, check=True, timeout=10)


def ask_b(command):
    """Board B's answer to a command on its socket."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(10)
        s.connect(args.socket_b)
        f = s.makefile("rb")
        f.readline()  # HELLO
        s.sendall(json.dumps(command).encode() + b"\n")
        return json.loads(f.readline())


locations = Locations()
driver = chromium(args.cert)
axe = axe_for(driver)


def js(script, *a):
    return driver.execute_script(script, *a)


def until(what, condition, timeout=20):
    return checks.until(driver, what, condition, timeout)


def crew():
    return js("return window.treeline.crew ? window.treeline.crew() : []") or []


def member(name):
    return next((m for m in crew() if m["name"] == name), None)


def age_of(text):
    """The age a text says ("12 s ago", "10 min 3 s ago", "1 h 2 min ago"), in seconds."""
    m = re.search(r"((?:\d+ (?:d|h|min|s) ?)+)ago", text)
    if not m:
        return None
    units = {"d": 86400, "h": 3600, "min": 60, "s": 1}
    return sum(int(n) * units[u] for n, u in re.findall(r"(\d+) (d|h|min|s)", m.group(1)))


def acc_of(text):
    """The accuracy a text says ("±12 m", "±1.2 km"), in metres."""
    m = re.search(r"±([\d.]+) (m|km)", text)
    return None if not m else float(m.group(1)) * (1000 if m.group(2) == "km" else 1)


def shot(name):
    time.sleep(0.6)
    driver.save_screenshot(f"{args.shots}/crew-{name}.png")


# Interactive elements under 44×44 px (the map's content aside: it pans off the screen), as
# a11y.py counts them.
SMALL_JS = r"""
const out = [];
const shown = (e) => e.checkVisibility({visibilityProperty: true, opacityProperty: true}) && !e.closest('[aria-hidden="true"]') && !e.closest('.sr-only');
for (const e of document.querySelectorAll('button, a[href], input:not([type="hidden"]), select, textarea, [role="tab"], [tabindex="0"], summary')) {
  if (!shown(e) || (e.closest('.leaflet-map-pane') && !e.closest('.leaflet-popup'))) continue;
  const r = e.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) continue;
  if (r.width < 43.5 || r.height < 43.5) out.push(`${e.id || e.className}: ${r.width.toFixed(0)}×${r.height.toFixed(0)}`);
}
return out;
"""
serious = 0
small = 0


def audit(where):
    global serious, small
    axe.inject()
    found = axe.run(options=json.dumps(AXE_OPTIONS))
    for v in found["violations"]:
        if v["impact"] in ("serious", "critical"):
            serious += 1
            check(False, f"{where}: axe {v['impact']} {v['id']}: {[n['target'] for n in v['nodes'][:4]]}")
    tiny = js(SMALL_JS)
    small += len(tiny)
    check(not tiny, f"{where}: targets under 44×44 px: {tiny[:8]}")


def open_list(open_):
    if js("return !document.getElementById('crew-panel').hidden") != open_:
        driver.find_element(By.ID, "crew-toggle").click()
    until(f"the crew list {'open' if open_ else 'closed'}", lambda: js("return !document.getElementById('crew-panel').hidden") == open_, 5)
    time.sleep(0.5)


resize(driver, 390, 844)
driver.get(args.url + "?token=" + board.token)
until("the page", lambda: js("return Boolean(window.treeline && window.treeline.crew)"), 30)

# --- B appears, with its name ---
until("board B on A's map", lambda: member("board-b") is not None, 60)
b = member("board-b")
result(b_shown_name=b["name"] if b else None)
check(js("return document.getElementById('crew-toggle').hidden") is False, "the Crew button shows once a member is seen")
until("A's own location on the broker", lambda: locations.of(A_TOPIC), 30)
print("READY", flush=True)

# --- B walks: where it published, its age, its accuracy ---
seen = set()
self_shown = False
walking_off = []
ages = []
acc_ok = True
unmatched = 0
end = time.time() + 15
while time.time() < end:
    m = member("board-b")
    if m:
        seen.add((round(m["lat"], 7), round(m["lon"], 7)))
        published = [body for _, body in locations.of(B_TOPIC) if body.get("tst") == m.get("tst")]
        if published:
            p = published[-1]
            walking_off.append(geodesic(m["lat"], m["lon"], p["lat"], p["lon"])[0])
            for text in (m["item"], m["title"]):
                if acc_of(text) != p.get("acc"):
                    acc_ok = check(False, f"accuracy shown {acc_of(text)} m ({text!r}), B published acc {p.get('acc')}")
        else:
            unmatched += 1
        age = age_of(m["item"])
        ages.append(age if age is not None else 999)
        check(age is not None and age <= 15, f"B's age shown: {m['item']!r}")
    if any(x["name"] == "board-a" for x in crew()):
        self_shown = True
        check(False, "A shows itself")
    time.sleep(1)
self_shown = self_shown or any(x["name"] == "board-a" for x in crew())
check(len(seen) >= 3, f"B moved on A's map through {len(seen)} positions in 15 s")
check(unmatched == 0, f"{unmatched} samples with a tst B never published")
result(self_shown=self_shown, b_positions_seen=len(seen), b_walking_off_max_m=round(max(walking_off, default=99), 3), b_age_shown_max_s=max(ages, default=99),
       b_acc_matches=acc_ok and bool(walking_off), b_samples=len(ages))

# --- Hostile members, and one 10 minutes old ---
b = member("board-b")
now = int(time.time())
publish(f"owntracks/{HOSTILE_USER}/phone", {"_type": "location", "lat": b["lat"] + 0.0004, "lon": b["lon"] - 0.0006, "tst": now, "acc": 7,
                                            "tid": "<b"})
publish("owntracks/evil/far", {"_type": "location", "lat": 91.5, "lon": -8.2, "tst": now, "acc": 5, "tid": "ev"})
publish("owntracks/evil/lon", {"_type": "location", "lat": 40.1, "lon": 200, "tst": now, "acc": 5, "tid": "ev"})
publish("owntracks/" + "L" * 2000 + "/phone", {"_type": "location", "lat": b["lat"] - 0.0005, "lon": b["lon"] + 0.0005, "tst": now, "acc": 9})
publish("owntracks/" + "W" * 60 + "/phone", {"_type": "location", "lat": b["lat"] - 0.0007, "lon": b["lon"] - 0.0003, "tst": now, "acc": 9})
publish("owntracks/old/phone", {"_type": "location", "lat": b["lat"] + 0.0008, "lon": b["lon"] + 0.0004, "tst": now - 600, "acc": 30, "tid": "op"})
until("the hostile member and the old one", lambda: member("old phone") is not None and any(m["name"].startswith("<img") for m in crew()), 15)
time.sleep(6)  # an answer more: the out-of-range ones had their chance
members = crew()
hostile = next((m for m in members if m["name"].startswith("<img")), None)
list_text = js("return document.getElementById('crew-list').textContent")
as_text = bool(hostile) and HOSTILE_USER[:20] in list_text and js(
    "return document.querySelectorAll('#crew-list img, .crew-marker img, .leaflet-popup img').length") == 0
ran = js("return window.__crewPwned !== undefined")
out_of_range = [m for m in members if not (-90 <= m["lat"] <= 90 and -180 <= m["lon"] <= 180) or m["name"] == "evil"]
long_name = next((m for m in members if m["name"].startswith("WWWW")), None)
refused_long = not any(m["name"].startswith("LLLL") for m in members)
old = member("old phone")
stale_ok = bool(old) and old["stale"] is True and 595 <= (age_of(old["item"]) or 0) <= 640 and "min" in old["label"]
check(as_text, f"the hostile member as text: {hostile}")
check(not ran, "the hostile name ran")
check(not out_of_range, f"positions out of range shown: {out_of_range}")
check(refused_long, "a 2,000-character name shown")
check(long_name is None or (len(long_name["name"]) <= 32 and long_name["label_width"] <= 260),
      f"a 66-character name shown whole: {long_name and (len(long_name['name']), long_name['label_width'])}")
check(stale_ok, f"a position 10 minutes old: {old}")
result(hostile_as_text=as_text, hostile_ran=ran, out_of_range_shown=bool(out_of_range), stale_shown=stale_ok,
       long_name_shown_chars=len(long_name["name"]) if long_name else 0, long_name_label_px=round(long_name["label_width"]) if long_name else 0,
       members_shown=len(members))

# --- The list: screenshots, axe, 44 px targets ---
for (w, h) in [(390, 844), (320, 640), (844, 390)]:
    resize(driver, w, h)
    open_list(False)
    shot(f"map-{w}x{h}")
    audit(f"map {w}×{h}")
    open_list(True)
    shot(f"list-{w}x{h}")
    audit(f"list {w}×{h}")
resize(driver, 390, 844)
driver.find_element(By.ID, "theme-toggle").click()
open_list(True)
shot("list-390x844-sun")
audit("list 390×844 sun")
driver.find_element(By.ID, "theme-toggle").click()
open_list(False)
result(axe_serious_or_critical=serious, small_targets=small)

# --- Asked only while the map is shown ---
show_tab(driver, checks, "plants")
time.sleep(1)
asked = js("return window.treeline.crewAsked")
time.sleep(6)  # the map asks every 5 s: one answer at least would have been asked
hidden_asks = js("return window.treeline.crewAsked") - asked
show_tab(driver, checks, "map")
until("crew asked again when the map shows", lambda: js("return window.treeline.crewAsked") > asked + hidden_asks, 3)
result(asked_while_hidden=hidden_asks)
check(hidden_asks == 0, f"{hidden_asks} crew requests while the map was hidden")

# --- B stands: its marker where it last published ---
print("PAUSE_B", flush=True)


def quiet_since():
    ms = locations.of(B_TOPIC)
    return time.time() - ms[-1][0] if ms else 0


until("B stands (no location for 4 s)", lambda: quiet_since() >= 4, 30)
latest = locations.of(B_TOPIC)[-1][1]
until("A's map at B's latest location", lambda: (member("board-b") or {}).get("tst") == latest["tst"], 15)
m = member("board-b")
latest_off = geodesic(m["lat"], m["lon"], latest["lat"], latest["lon"])[0]
fix_b = ask_b({"cmd": "state"}).get("last_fix") or {}
state_off = geodesic(m["lat"], m["lon"], fix_b["lat"], fix_b["lon"])[0] if "lat" in fix_b else None
check(latest_off <= 5, f"B's marker {latest_off:.2f} m from its latest published location")
check(acc_of(m["item"]) == latest.get("acc"), f"accuracy shown {m['item']!r}, B's latest acc {latest.get('acc')}")
result(b_latest_off_m=round(latest_off, 3), b_latest_acc=latest.get("acc"), b_latest_acc_shown=acc_of(m["item"]),
       b_state_last_fix_off_m=round(state_off, 3) if state_off is not None else None)

# --- An entry of the list centres the map on its member (B stands: its marker stays put) ---
open_list(True)
entry = next(e for e in driver.find_elements(By.CSS_SELECTOR, "#crew-list .crew-item") if e.find_element(By.CSS_SELECTOR, ".crew-name").text == "board-b")
entry.click()
time.sleep(0.8)
m = member("board-b")
box = js("const r = document.getElementById('map').getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2}")
ringed = js("return [...document.querySelectorAll('.crew-pin.focused .crew-label')].map(n => n.textContent)")
off_px = max(abs(m["x"] - box["x"]), abs(m["y"] - box["y"]))
centred = off_px <= 2 and ringed == ["board-b"] and js("return window.treeline.mapView().following") is False
check(centred, f"board-b's entry: its marker {off_px:.1f} px from the map's centre, ringed {ringed}")
shot("focus-390x844")
result(centred_on_tap=centred, centred_off_px=round(off_px, 1))
open_list(False)

# --- Out of reach: the last answer, its ages counting, said ---
driver.execute_cdp_cmd("Network.enable", {})
driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": [args.url + "api"]})
before = age_of(member("board-b")["item"])
blocked_at = time.time()
until("the page says the board is out of reach", lambda: (member("board-b") or {}).get("offline") is True, 15)
time.sleep(max(0, 8 - (time.time() - blocked_at)))
m = member("board-b")
after = age_of(m["item"]) if m else None
note = js("return document.getElementById('crew-note').textContent")
counting = m is not None and after is not None and after >= before + 6 and "out of reach" in note
check(counting, f"out of reach: B's age {before} s, then {after} s after 8 s; note {note!r}")
driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
until("the board answers again", lambda: (member("board-b") or {}).get("offline") is False, 15)
result(offline_kept_ages_counting=counting, offline_age_before_s=before, offline_age_after_s=after)

# --- B's retained location cleared: gone from the map and the list ---
publish(B_TOPIC, None)
cleared = time.time()
gone = None
while time.time() - cleared < 20:
    names = [x["name"] for x in crew()]
    in_list = js("return [...document.querySelectorAll('#crew-list .crew-name')].some(n => n.textContent === 'board-b')")
    on_map = js("return [...document.querySelectorAll('.crew-marker .crew-label')].some(n => n.textContent.startsWith('board-b'))")
    if "board-b" not in names and not in_list and not on_map:
        gone = time.time() - cleared
        break
    time.sleep(0.2)
check(gone is not None and gone <= 10, f"B gone {gone} s after its location was cleared")
time.sleep(6)
back = member("board-b") is not None
check(not back, "B came back without publishing")
result(b_gone_after_clear_s=round(gone, 2) if gone is not None else None, b_back_after_clear=back)

# --- Errors (the blocked requests' own aside) ---
logs = [e for e in driver.get_log("browser") if e["level"] == "SEVERE" and "ERR_BLOCKED_BY_CLIENT" not in e["message"]]
errors = js("return window.treeline.errors")
result(console_errors=len(logs) + len(errors))
check(not logs and not errors, f"console errors: {[e['message'][:160] for e in logs[:5]]} {errors[:5]}")
locations.process.terminate()
driver.quit()
checks.done()
