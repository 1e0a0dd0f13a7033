"""Rounds and trails in the web app (Debian's chromium, Selenium) while gpsd is fed the walk:
the Round button's numbered list is the daemon's `round` order and "Save as trail" adds it; a
trail is started from the page (refused before the first fix), stopped, started again; the
guidance bar names the next checkpoint, its arrow points along the geodesic from the page's
position to the checkpoint's centre (checked against Vincenty's formula, within 5°), the bar
and the Events list say each checkpoint reached, the one out of order and the completion; the
map draws the trail through the checkpoints' centres (a polygon's centroid as the daemon has
it); the AR view frames the next checkpoint's box; a locked trail unlocks; Remove asks first;
a plan's spots are put in walking order; every new button is at least 44×44 px and no new text
under 16 px, at 390×844 and at 320×568, with screenshots of both (out/web/trail-*.png)."""
import json
import os
import re
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from webcheck import Board, Checks, arguments, chromium, geodesic, resize, result, show_tab

args = arguments()
board = Board(args)
checks = Checks()
check = checks.check
os.makedirs(args.shots, exist_ok=True)

WALK_TRAIL = "t-walk"
WALK_NAME = "Oaks to the valley"
# Entered in the walk in this order: carvalho 09:13:39, sobreiro 09:13:57 (a transit), ref-vale
# 09:15:18 (out of order: the album is next), album-ribeira 09:17:01 while inside ref-vale (so
# ref-vale is reached with it, and the trail completed).
WALK_CHECKPOINTS = ["plant-carvalho", "plant-sobreiro", "album-ribeira", "ref-vale"]
LOCKED_TRAIL = "t-next"
LOCKED_NAME = "Level 2 <b>&amp;</b> \"quoted\""   # user text: shown as it is, never as markup
SIZES = [(390, 844), (320, 568)]
# The parts of the page this work added: their buttons and text are checked for size.
NEW_UI = ["#guide", "#round-card", "#trails", "#plan-order", "#plan-order-summary"]


def angle_difference(a, b):
    return abs((a - b + 180) % 360 - 180)


def ask(command):
    return json.loads(board.ask(json.dumps(command)))


driver = chromium(args.cert)


def js(script, *a):
    return driver.execute_script(script, *a)


def until(what, condition, timeout=20):
    return checks.until(driver, what, condition, timeout)


def size(width, height):
    resize(driver, width, height)


def tab(name):
    show_tab(driver, checks, name)


def reveal(selector):
    """Scrolls the view (not the page: the page never scrolls) so that `selector` is near its top."""
    js("const e = document.querySelector(arguments[0]); const v = e.closest('.view');"
       " v.scrollTop += e.getBoundingClientRect().top - v.getBoundingClientRect().top - 8;", selector)
    time.sleep(0.3)


def click(selector):
    element = driver.find_element(By.CSS_SELECTOR, selector)
    js("arguments[0].scrollIntoView({block: 'nearest'})", element)
    element.click()


# What is wrong with the new UI as laid out now: buttons under 44×44, text under 16 px, anything
# wider than the screen or cut at its sides.
LAYOUT_JS = """
const problems = [];
const W = document.documentElement.clientWidth;
for (const sel of arguments[0]) {
  for (const root of document.querySelectorAll(sel)) {
    if (!root.checkVisibility()) continue;
    const scope = [root, ...root.querySelectorAll('*')];
    for (const e of scope) {
      if (!e.checkVisibility() || e.closest('[aria-hidden="true"]') || e.closest('.sr-only')) continue;
      const r = e.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      const name = e.id ? '#' + e.id : e.tagName.toLowerCase() + '.' + [...e.classList].join('.');
      if (e.tagName === 'BUTTON' && (r.width < 44 || r.height < 44)) problems.push(`${name}: ${r.width.toFixed(0)}×${r.height.toFixed(0)} px`);
      const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (own && parseFloat(getComputedStyle(e).fontSize) < 16) problems.push(`${name}: text ${getComputedStyle(e).fontSize}`);
      if (r.left < -1 || r.right > W + 1) problems.push(`${name}: ${r.left.toFixed(0)}..${r.right.toFixed(0)} outside 0..${W}`);
    }
    if (root.scrollWidth > root.clientWidth + 1) problems.push(`${sel}: scrolls sideways (${root.scrollWidth} > ${root.clientWidth})`);
  }
}
const view = document.querySelector('.view.active');
if (view && view.scrollWidth > view.clientWidth + 1) problems.push(`${view.id}: scrolls sideways`);
return problems;
"""
layout_checked = []


def check_layout(where):
    problems = js(LAYOUT_JS, NEW_UI)
    layout_checked.append(where)
    check(not problems, f"{where}: the new UI's layout: {problems[:6]}")


def shot(name, where=None):
    time.sleep(0.4)
    driver.save_screenshot(os.path.join(args.shots, f"trail-{name}.png"))
    check_layout(where or name)


def both_sizes(name, prepare):
    """A screenshot at each size; `prepare()` brings the part to show into sight."""
    for w, h in SIZES:
        size(w, h)
        prepare()
        shot(f"{name}-{w}", f"{name} at {w}×{h}")
    size(*SIZES[0])


def card(trail):
    return f'#trails-list li[data-id="{trail}"]'


def card_state(trail):
    """The trail's row state as shown (None: no row); read in one go, as rows come and go."""
    return js("const li = document.querySelector(arguments[0]); return li ? li.dataset.state : null", card(trail))


size(*SIZES[0])
driver.get(args.url + "?token=" + board.token)
until("the page's hooks", lambda: js("return !!(window.treeline && window.treeline.guide && window.treeline.round)"))

# --- Before the walk (no fix yet): plants due for a round of five, the trails, the refusal.
for name, at in [("Fig by the wall", [40.1024, -8.2372]), ("Young chestnut", [40.1003, -8.2398]), ("Hazel at the gate", [40.1031, -8.2404])]:
    e = ask({"cmd": "add_region", "kind": "plant", "name": name, "interval_days": 2, "radius_m": 6, "at": at})
    check(e.get("type") == "region_added", f"plant {name} added: {e}")
e = ask({"cmd": "add_trail", "trail": WALK_TRAIL, "name": WALK_NAME, "checkpoints": WALK_CHECKPOINTS})
check(e.get("type") == "trail_added", f"the walk's trail added: {e}")
e = ask({"cmd": "add_trail", "trail": LOCKED_TRAIL, "name": LOCKED_NAME, "checkpoints": ["album-miradouro"], "requires": [WALK_TRAIL]})
check(e.get("type") == "trail_added", f"the locked trail added: {e}")

# Each checkpoint's centre as the daemon has it (a round's stop: circle centre, area centroid).
centres = {}
names = {}
for rid in WALK_CHECKPOINTS + ["album-miradouro"]:
    r = ask({"cmd": "round", "regions": [rid], "at": [40.1, -8.24]})
    centres[rid] = tuple(r["legs"][0]["at"])
    names[rid] = r["legs"][0]["name"]

tab("plants")
until("both trails listed", lambda: card_state(WALK_TRAIL) == "ready" and card_state(LOCKED_TRAIL) == "locked")
locked = driver.find_element(By.CSS_SELECTOR, card(LOCKED_TRAIL))
check(locked.find_element(By.CSS_SELECTOR, ".name").text == LOCKED_NAME and not locked.find_elements(By.CSS_SELECTOR, ".name b"),
      f"a trail's name is shown as text: {locked.find_element(By.CSS_SELECTOR, '.name').text!r}")
progress = locked.find_element(By.CSS_SELECTOR, ".trail-progress").text
check(f"unlocks after “{WALK_NAME}”" in progress, f"the locked trail says what unlocks it: {progress!r}")
check(not locked.find_element(By.CSS_SELECTOR, ".trail-start").is_enabled(), "Start is disabled on a locked trail")
click(f"{card(WALK_TRAIL)} .trail-start")
until("start_trail's refusal before any fix shown", lambda: "no fix" in driver.find_element(By.ID, "trails-message").text)
check(card_state(WALK_TRAIL) == "ready", "the refused trail is not under way")
result(refused_before_fix=driver.find_element(By.ID, "trails-message").text[:100])

print("READY", flush=True)  # the walk starts
until("a position on the page", lambda: js("return !!window.treeline.position"), 30)
click("#trails-message")
until("the trails message dismissed by a tap", lambda: not driver.find_element(By.ID, "trails-message").is_displayed(), 5)

# --- Round: the numbered list is the daemon's order from the same place.
tab("plants")
click("#round-button")
until("the round's list", lambda: len(driver.find_elements(By.CSS_SELECTOR, "#round-list li")) >= 2)
page_round = js("return window.treeline.round()")
shown = [li.get_attribute("data-region") for li in driver.find_elements(By.CSS_SELECTOR, "#round-list li")]
again = ask({"cmd": "round", "kind": "plant", "due": True, "at": page_round["from"]})
check(shown == again["order"], f"the round's list {shown} is the daemon's order {again['order']}")
check(len(shown) == 5, f"five plants due in the round: {shown}")
texts = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#round-list li")]
for leg, text in zip(again["legs"], texts):
    check(leg["name"] in text and re.search(r"\b(N|NE|E|SE|S|SW|W|NW) \d+°", text), f"a stop's line names it, its distance and bearing: {text!r}")
summary = driver.find_element(By.ID, "round-summary").text
check("5 stops" in summary and re.search(r"\d+ m in all", summary), f"the round's summary: {summary!r}")
until("the round drawn on the map", lambda: len((js("return window.treeline.mapRound()") or [[]])[0]) == 6)
result(round_stops=len(shown), round_order_matches=shown == again["order"], round_length_m=again["length_m"])
both_sizes("round", lambda: reveal("#round-card"))

# Save as trail: a trail of those plants in that order, each to be watered.
before = {t["id"] for t in ask({"cmd": "trails"})["trails"]}
name_input = driver.find_element(By.ID, "round-trail-name")
check(name_input.get_attribute("value").startswith("Watering round "), f"the trail's default name: {name_input.get_attribute('value')!r}")
name_input.clear()
name_input.send_keys("Morning watering")
click("#round-save-button")
saved = {}


def round_trail_saved():
    for t in ask({"cmd": "trails"})["trails"]:
        if t["id"] not in before:
            saved.update(t)
            return True
    return False


if until("the round saved as a trail", round_trail_saved):
    check(saved["name"] == "Morning watering" and [c["region"] for c in saved["checkpoints"]] == shown
          and all(c.get("action") == "water" for c in saved["checkpoints"]), f"the saved trail: {saved}")
    until("the saved trail in the list", lambda: card_state(saved["id"]) == "ready")
    # Started and stopped from the page.
    click(f"{card(saved['id'])} .trail-start")
    until("the saved trail under way", lambda: card_state(saved["id"]) == "active")
    until("the guidance bar on the saved trail's first stop",
          lambda: driver.find_element(By.ID, "guide").get_attribute("data-region") == shown[0])
    click(f"{card(saved['id'])} .trail-stop")
    until("the saved trail stopped", lambda: card_state(saved["id"]) == "ready" and ask({"cmd": "trails"})["active"] is None)
    until("the bar saying it stopped", lambda: "stopped" in driver.find_element(By.ID, "guide-news").text)
    click("#guide-close")
    until("the bar closed", lambda: not driver.find_element(By.ID, "guide").is_displayed())

# --- The walk's trail, started from the page.
click(f"{card(WALK_TRAIL)} .trail-start")
until("the walk's trail under way", lambda: card_state(WALK_TRAIL) == "active", 10)
until("the bar naming the first checkpoint", lambda: driver.find_element(By.ID, "guide").get_attribute("data-region") == WALK_CHECKPOINTS[0]
      and driver.find_element(By.ID, "guide-name").text == names[WALK_CHECKPOINTS[0]])
check(card_state(LOCKED_TRAIL) == "locked", "the level after it still locked")

# The AR view (another tab) frames the next checkpoint's box.
main_window = driver.current_window_handle
driver.switch_to.new_window("tab")
size(*SIZES[0])
driver.get(args.url + "ar/")
if until("the AR view's boxes", lambda: js("return !!(window.treeline && window.treeline.ar && window.treeline.ar.layout && window.treeline.ar.boxes().length)"), 30):
    until("the next checkpoint's box framed", lambda: js(
        "return [...document.querySelectorAll('.ar-box.checkpoint')].map(b => b.dataset.id)") == [WALK_CHECKPOINTS[0]])
    check(js("return window.treeline.ar.checkpoint()") == WALK_CHECKPOINTS[0], "the AR view's checkpoint")
    for w, h in SIZES:
        size(w, h)
        time.sleep(1)
        driver.save_screenshot(os.path.join(args.shots, f"trail-ar-{w}.png"))
    ar_errors = js("return window.treeline.errors")
    check(ar_errors == [], f"errors in the AR view: {ar_errors}")
driver.close()
driver.switch_to.window(main_window)

# --- Follow the walk: the arrow against the geodesic from the page's own position, the bar's
# words, the news as it comes; screenshots of the map and the bar on the way.
SAMPLE_JS = """
const done = arguments[arguments.length - 1];
requestAnimationFrame(() => requestAnimationFrame(() => {
  const t = window.treeline;
  const g = t.guide();
  const arrow = document.getElementById('guide-arrow');
  const m = getComputedStyle(arrow).transform.match(/matrix\\(([^)]*)\\)/);
  let angle = null;
  if (m) { const [a, b] = m[1].split(',').map(Number); angle = (Math.atan2(b, a) * 180 / Math.PI + 360) % 360; }
  const bar = document.getElementById('guide');
  done({g, position: t.position, angle, region: bar.dataset.region || null, state: bar.dataset.state || null, shown: bar.checkVisibility(),
        name: document.getElementById('guide-name').innerText, distance: document.getElementById('guide-distance').innerText,
        news: document.getElementById('guide-news').checkVisibility() ? document.getElementById('guide-news').innerText : '',
        frame: document.getElementById('guide-dial').dataset.frame});
}));
"""
driver.set_script_timeout(10)
errors_deg = []
distance_errors = []
skipped = 0
news_seen = []
regions_guided = []
map_checked = False
bar_shot = False
# Until half a minute of the walk before the first checkpoint the samples need no particular
# pace: the test feeds that stretch faster, then 10 fixes a second again for the checkpoints'
# news.
print("FAST", flush=True)
deadline = time.time() + 240
while time.time() < deadline:
    s = driver.execute_async_script(SAMPLE_JS)
    if s["news"] and (not news_seen or news_seen[-1] != s["news"]):
        news_seen.append(s["news"])
    if s["state"] == "finished" or card_state(WALK_TRAIL) == "completed":
        break
    g, p = s["g"], s["position"]
    if s["state"] == "active" and g.get("bearing") is not None and p:
        if (p["lat"], p["lon"]) != (g["from"]["lat"], g["from"]["lon"]):
            skipped += 1  # a fix came between the bar's frame and this read
        else:
            target = s["region"]
            if not regions_guided or regions_guided[-1] != target:
                regions_guided.append(target)
            check(s["name"] == names.get(target), f"the bar names {target} as {names.get(target)!r}: {s['name']!r}")
            check(s["frame"] == "north", f"no compass in this browser: the arrow is north up ({s['frame']})")
            d, bearing = geodesic(p["lat"], p["lon"], *centres[target])
            if d > 3:  # nearer, the bearing turns with every centimetre
                err = angle_difference(s["angle"], bearing)
                errors_deg.append(err)
                check(err <= 5, f"the arrow at {s['angle']:.1f}° for a geodesic bearing of {bearing:.1f}° to {target} ({d:.0f} m)")
            shown_m = re.match(r"([\d.]+) (k?m) to the centre", s["distance"])
            if check(shown_m is not None, f"the bar's distance: {s['distance']!r}"):
                value = float(shown_m.group(1)) * (1000 if shown_m.group(2) == "km" else 1)
                distance_errors.append(abs(value - d))
                check(abs(value - d) <= max(1.0, 0.06 * d), f"{s['distance']!r} to the centre for {d:.1f} m")
    # Halfway (two checkpoints reached): the map and the bar, at both sizes.
    if not map_checked and s["state"] == "active" and s["region"] == WALK_CHECKPOINTS[2]:
        map_checked = True
        click("#guide-dial")  # the way on the map
        until("the map view", lambda: "active" in driver.find_element(By.ID, "view-map").get_attribute("class"))
        until("the trail drawn with two checkpoints reached", lambda: js("return window.treeline.mapTrail()").get("reached") == 2)
        drawn = js("return window.treeline.mapTrail()")
        check(len(drawn["points"]) == 4, f"the trail's line through its 4 checkpoints: {drawn['points']}")
        for rid, point in zip(WALK_CHECKPOINTS, drawn["points"]):
            off = geodesic(point[0], point[1], *centres[rid])[0]
            check(off < 1.0, f"the trail's point for {rid} is {off:.2f} m from the daemon's centre")
        result(map_centre_error_m=round(max(geodesic(pt[0], pt[1], *centres[r])[0] for r, pt in zip(WALK_CHECKPOINTS, drawn["points"])), 3))
        check(js("return !!document.querySelector('#map path.trail-line') && document.querySelector('#map path.trail-line').getAttribute('d').length > 10"),
              "the trail's polyline is on the map")
        check(len(driver.find_elements(By.CSS_SELECTOR, "#map .trail-spot")) == 4, "4 numbered checkpoints on the map")
        check(len(driver.find_elements(By.CSS_SELECTOR, "#map .trail-spot.reached")) == 2, "the 2 reached ones dimmed")
        check([e.text for e in driver.find_elements(By.CSS_SELECTOR, "#map .trail-spot")] == ["1", "2", "3", "4"], "numbered 1 to 4")
        both_sizes("map", lambda: (click("#guide-dial"), time.sleep(0.5)))
        tab("plants")
        both_sizes("trails", lambda: reveal("#trails"))
    time.sleep(0.2)

until("the walk's trail completed", lambda: card_state(WALK_TRAIL) == "completed", 60)
until("the bar saying it is completed", lambda: "completed" in driver.find_element(By.ID, "guide-news").text)
final = driver.find_element(By.ID, "guide-news").text
if final and (not news_seen or news_seen[-1] != final):
    news_seen.append(final)
check(re.fullmatch(rf"Trail “{WALK_NAME}” completed in \d+ (min|s)( \d+ s)?, [\d.]+ k?m walked\.", final) is not None, f"the completion: {final!r}")

# --- A plan's spots in walking order, in the valley where the trail ended (the walker is in it).
tab("planting")
driver.find_element(By.ID, "species-search").send_keys("alnus")
until("species found", lambda: len(driver.find_elements(By.CSS_SELECTOR, "#species-results li[data-latin]")) > 0)
driver.find_elements(By.CSS_SELECTOR, "#species-results li[data-latin]")[0].click()
Select(driver.find_element(By.ID, "plan-area")).select_by_value("ref-vale")
count = driver.find_element(By.ID, "plan-count")
count.clear()
count.send_keys("5")
click("#plan-button")
if not until("a plan", lambda: driver.find_element(By.ID, "plan-summary").is_displayed()):
    check(False, f"the planting view says: {driver.find_element(By.ID, 'planting-message').text!r}")
else:
    click("#plan-order")
    until("the plan in order", lambda: js("return !!window.treeline.planRound") and len(driver.find_elements(By.CSS_SELECTOR, "#plan-spots li[data-point]")) > 0)
    plan = js("return window.treeline.planRound")
    again = ask({"cmd": "round", "points": plan["points"], "at": plan["round"]["from"]})
    listed = [int(li.get_attribute("data-point")) for li in driver.find_elements(By.CSS_SELECTOR, "#plan-spots li[data-point]")]
    check(listed == again["order"], f"the plan's spots in the daemon's order: {listed} vs {again['order']}")
    until("the plan's route on the map", lambda: len((js("return window.treeline.mapRound()") or [[]])[0]) == len(listed) + 1)
    result(plan_spots_ordered=len(listed))
    both_sizes("plan", lambda: reveal("#plan-summary"))

# The news the bar showed, in order (3 and 4 come with the completion, in one fix: the bar shows
# the last; all of them are in its log and in the Events list).
expected_news = [
    f"Checkpoint 1 of 4 reached: {names['plant-carvalho']}.",
    f"Checkpoint 2 of 4 reached: {names['plant-sobreiro']}.",
    f"Out of order: go to {names['album-ribeira']} first.",
]
positions = [news_seen.index(n) if n in news_seen else -1 for n in expected_news]
check(all(k >= 0 for k in positions) and positions == sorted(positions), f"the bar showed {expected_news} in order; it showed {news_seen}")
log = js("return window.treeline.guideNews()")
want_log = ["Trail started: 4 checkpoints."] + expected_news + [
    f"Checkpoint 3 of 4 reached: {names['album-ribeira']}.", f"Checkpoint 4 of 4 reached: {names['ref-vale']}.", final]
check(log[-len(want_log):] == want_log, f"the bar's news, in order: {log[-len(want_log):]} (expected {want_log})")
check(regions_guided == WALK_CHECKPOINTS[:3], f"the bar guided to {regions_guided}")
check(card_state(LOCKED_TRAIL) == "ready", f"the next level unlocked: {card_state(LOCKED_TRAIL)}")
ticks = [li.get_attribute("data-reached") for li in driver.find_elements(By.CSS_SELECTOR, f"{card(WALK_TRAIL)} .trail-checkpoints li")]
check(ticks == ["true"] * 4, f"every checkpoint ticked: {ticks}")
errors_deg.sort()
result(bearing_samples=len(errors_deg), bearing_error_max_deg=round(max(errors_deg), 3) if errors_deg else None,
       bearing_error_p50_deg=round(errors_deg[len(errors_deg) // 2], 3) if errors_deg else None,
       samples_skipped_for_a_newer_fix=skipped, distance_error_max_m=round(max(distance_errors), 2) if distance_errors else None,
       guided_to=regions_guided, news_seen=len(news_seen), completion=final)
check(len(errors_deg) >= 50, f"only {len(errors_deg)} bearing samples")
tab("plants")
both_sizes("completed", lambda: reveal(card(WALK_TRAIL)))

# --- Events: a phrase for each trail event, as the journal has them.
journal = [json.loads(l) for l in board.subscribe('{"cmd":"subscribe","since":0,"kinds":["trail"]}', timeout=3)[1:]]
trail_events = [e for e in journal if e.get("class") == "EVENT" and e.get("trail") == WALK_TRAIL]
tab("events")
kinds = Select(driver.find_element(By.ID, "events-kind"))
kinds.select_by_value("trail")
until("only trail events shown", lambda: js("return [...document.querySelectorAll('#events-list > li')].every(li => li.hidden === (li.dataset.kind !== 'trail'))"))
rows = js("return [...document.querySelectorAll('#events-list > li')].filter(li => !li.hidden).map(li => ({seq: li.dataset.seq, type: li.dataset.type, text: li.innerText}))")
by_seq = {int(r["seq"]): r for r in rows}
phrases = {
    "trail_added": "trail of 4 checkpoints added", "trail_started": "started: 4 checkpoints",
    "checkpoint_reached": "checkpoint {k} of 4 reached: {name}", "checkpoint_out_of_order": "out of order: {name} is checkpoint {k}, 3 is next",
    "trail_completed": "completed in ",
}
for e in trail_events:
    row = by_seq.get(e["seq"])
    if not check(row is not None, f"event #{e['seq']} {e['type']} in Events"):
        continue
    want = phrases.get(e["type"], "").format(k=e.get("index", -1) + 1, name=names.get(e["region"], e["region"]))
    check(want in row["text"], f"#{e['seq']} {e['type']} reads {row['text']!r} (expected “{want}”)")
check([e["type"] for e in trail_events] == ["trail_added", "trail_started", "checkpoint_reached", "checkpoint_reached", "checkpoint_out_of_order",
                                            "checkpoint_reached", "checkpoint_reached", "trail_completed"], f"the journal's trail events: {[e['type'] for e in trail_events]}")
result(trail_events=len(trail_events), checkpoints_reached=sum(e["type"] == "checkpoint_reached" for e in trail_events))
both_sizes("events", lambda: None)
kinds.select_by_value("")

# --- Remove asks first.
tab("plants")
if saved:
    click(f"{card(saved['id'])} .trail-remove")
    until("the question", lambda: driver.find_element(By.CSS_SELECTOR, f"{card(saved['id'])} .confirm").is_displayed())
    question = driver.find_element(By.CSS_SELECTOR, f"{card(saved['id'])} .confirm-question").text
    check("Morning watering" in question, f"the question names the trail: {question!r}")
    both_sizes("remove", lambda: reveal(card(saved["id"])))
    click(f"{card(saved['id'])} .trail-remove-cancel")
    time.sleep(0.5)
    check(saved["id"] in {t["id"] for t in ask({"cmd": "trails"})["trails"]}, "Keep keeps it")
    click(f"{card(saved['id'])} .trail-remove")
    click(f"{card(saved['id'])} .trail-remove-confirm")
    until("the removed trail gone from the list", lambda: card_state(saved["id"]) is None)
    check(saved["id"] not in {t["id"] for t in ask({"cmd": "trails"})["trails"]}, "the daemon has no such trail any more")

# --- No console errors.
# Chromium logs every 4xx as an error: the one refusal this script asked for (start_trail before
# any fix, 422) is expected, and only that one.
logged = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
refusals = [e for e in logged if e.get("source") == "network" and "/api " in e["message"] and "422" in e["message"]]
errors = [e for e in logged if e not in refusals]
check(len(refusals) == 1, f"one refused command logged (start_trail before the first fix): {refusals}")
check(not errors, f"console errors: {errors[:5]}")
page_errors = js("return window.treeline.errors")
check(page_errors == [], f"errors in the page: {page_errors}")
result(console_errors=len(errors), layouts_checked=len(layout_checked),
       screenshots=sorted(f for f in os.listdir(args.shots) if f.startswith("trail-")))
driver.quit()
checks.done()
