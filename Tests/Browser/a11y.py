"""The web app against WCAG 2.2 AA in Debian's chromium, while gpsd is fed the walk.

At 360×740, 320×568 and 844×390, in the normal and the sun theme (the header's toggle,
remembered in localStorage), on every view (Map with a popup open, Plants, Albums with a
photo, Planting, Events) and on the AR view (/ar/, boxes drawn):

- axe-core (selenium-axe-python's bundle) with the WCAG 2.0/2.1/2.2 A and AA rules: no serious
  or critical violation (all are counted by impact);
- every visible interactive element (button, link, input, select, tab, Leaflet's controls) at
  least 44×44 px (a checkbox by its label);
- no text overflowing its box (scrollWidth > clientWidth) and nothing outside the screen's
  sides;
- the AR boxes whole (name and distance, not cut) at three headings, no edge arrow over a box,
  and no box over another (each is stacked at the size it is drawn);
- an album's photo as a thumbnail that loads, its gallery, full size on tap;
- the stale-position banner (amber past 10 s, red past 60 s) in both themes and, last, a lost
  session (the cookie gone: the page says access ended and how to get a new link, and stops
  retrying).

Screenshots: out/web/a11y-<view>-<W>x<H>[-sun].png."""
import json
import os
import time

from selenium.webdriver.common.by import By

from webcheck import axe_for, chromium, resize, result, show_tab, start_script

args, board, checks = start_script()
check = checks.check

SIZES = [(360, 740), (320, 568), (844, 390)]
VIEWS = ["map", "plants", "albums", "planting", "events"]
AXE_OPTIONS = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]},
               "resultTypes": ["violations"]}

driver = chromium(args.cert)
axe = axe_for(driver)


def js(script, *a):
    return driver.execute_script(script, *a)


def until(what, condition, timeout=20):
    return checks.until(driver, what, condition, timeout)


def size(width, height):
    resize(driver, width, height)


def tab(name):
    show_tab(driver, checks, name)
    time.sleep(0.3)


# Interactive elements under 44×44 px, text cut by its box, anything past the screen's sides.
LAYOUT_JS = r"""
const W = document.documentElement.clientWidth;
const small = [], overflow = [], tiny = [];
const name = (e) => (e.id ? '#' + e.id : e.tagName.toLowerCase() + (e.classList.length ? '.' + [...e.classList].join('.') : ''))
  + (e.textContent.trim() ? ` "${e.textContent.trim().slice(0, 24)}"` : '');
const shown = (e) => e.checkVisibility({visibilityProperty: true, opacityProperty: true}) && !e.closest('[aria-hidden="true"]') && !e.closest('.sr-only');
// Map content (regions, markers, labels) pans off the screen by design: only its controls and popups count.
const mapContent = (e) => e.closest('.leaflet-map-pane') && !e.closest('.leaflet-popup');
const interactive = 'button, a[href], input:not([type="hidden"]), select, textarea, [role="tab"], [tabindex="0"], summary';
for (const e of document.querySelectorAll(interactive)) {
  if (!shown(e) || mapContent(e)) continue;
  let r = e.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) continue;
  if ((e.type === 'checkbox' || e.type === 'radio') && e.closest('label')) r = e.closest('label').getBoundingClientRect();
  if (r.width < 43.5 || r.height < 43.5) small.push(`${name(e)}: ${r.width.toFixed(0)}×${r.height.toFixed(0)}`);
}
for (const e of document.body.querySelectorAll('*')) {
  if (!shown(e) || mapContent(e) || e.closest('#ar-lines') || e.tagName === 'svg' || e.closest('svg')) continue;
  const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  const r = e.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) continue;
  const s = getComputedStyle(e);
  if (own && s.display !== 'inline' && e.scrollWidth > e.clientWidth + 1 && e.tagName !== 'INPUT' && e.tagName !== 'SELECT')
    overflow.push(`${name(e)}: text ${e.scrollWidth} px in ${e.clientWidth}`);
  if (own && parseFloat(s.fontSize) < 16 && !e.closest('.leaflet-control-attribution') && !e.closest('.leaflet-control-scale'))
    tiny.push(`${name(e)}: ${s.fontSize}`);
  // AR boxes and arrows move with the heading: off the sides is where they are, not a fault.
  if (e.closest('.ar-box') || e.closest('.ar-arrow')) continue;
  if (r.left < -1 || r.right > W + 1) overflow.push(`${name(e)}: ${r.left.toFixed(0)}..${r.right.toFixed(0)} outside 0..${W}`);
}
for (const v of document.querySelectorAll('.view.active, body')) {
  if (v.scrollWidth > v.clientWidth + 1) overflow.push(`${v.id || v.tagName}: scrolls sideways (${v.scrollWidth} > ${v.clientWidth})`);
}
return {small, overflow, tiny};
"""

totals = {"pages": 0, "critical": 0, "serious": 0, "moderate": 0, "minor": 0}
by_page = {}
small_total = overflow_total = tiny_total = 0
tiny_examples = set()


# The stream badge's own text and background, as drawn (axe may leave a small badge over a dark
# bar "incomplete" rather than failed): its contrast ratio, WCAG's formula.
BADGE_CONTRAST_JS = r"""
const e = document.getElementById('status-stream');
if (!e || !e.checkVisibility()) return null;
const s = getComputedStyle(e);
const rgb = (c) => c.match(/[\d.]+/g).map(Number);
const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
  .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
const [a, b] = [lum(rgb(s.color)), lum(rgb(s.backgroundColor))];
return {ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05), text: e.textContent, color: s.color, background: s.backgroundColor};
"""


def audit(where):
    """axe and the layout checks on the page as it is now."""
    global small_total, overflow_total, tiny_total
    badge = js(BADGE_CONTRAST_JS)
    check(badge is None or badge["ratio"] >= 4.5, f"{where}: the stream badge at {badge and round(badge['ratio'], 2)}:1: {badge}")
    axe.inject()
    found = axe.run(options=json.dumps(AXE_OPTIONS))
    impacts = {}
    for v in found["violations"]:
        impacts[v["impact"]] = impacts.get(v["impact"], 0) + 1
        totals[v["impact"]] = totals.get(v["impact"], 0) + 1
        if v["impact"] in ("serious", "critical"):
            targets = [n["target"] for n in v["nodes"][:4]]
            summary = (v["nodes"][0].get("failureSummary") or "").replace("\n", " ")[:200] if v["nodes"] else ""
            check(False, f"{where}: axe {v['impact']} {v['id']}: {targets} {summary}")
    totals["pages"] += 1
    by_page[where] = impacts
    layout = js(LAYOUT_JS)
    small_total += len(layout["small"])
    overflow_total += len(layout["overflow"])
    tiny_total += len(layout["tiny"])
    check(not layout["small"], f"{where}: targets under 44×44 px: {layout['small'][:8]}")
    check(not layout["overflow"], f"{where}: text cut or off the screen: {layout['overflow'][:8]}")
    for t in layout["tiny"]:
        tiny_examples.add(t.split(":")[0] + ": " + t.rsplit(": ", 1)[-1])


def shot(name):
    time.sleep(0.3)
    driver.save_screenshot(os.path.join(args.shots, f"a11y-{name}.png"))


def theme(sun):
    """The header's toggle, as a user taps it: the page and localStorage say the theme."""
    now = js("return document.documentElement.dataset.theme || 'normal'")
    if (now == "sun") != sun:
        button = driver.find_element(By.ID, "theme-toggle")
        js("arguments[0].scrollIntoView({block: 'nearest'})", button)
        button.click()
    want = "sun" if sun else "normal"
    until(f"the {want} theme", lambda: js("return document.documentElement.dataset.theme || 'normal'") == want, 5)
    check(js("return localStorage.getItem('treeline.theme') || 'normal'") == want, f"the {want} theme remembered")


driver.get(args.url + "?token=" + board.token)
until("the page's hooks", lambda: js("return !!(window.treeline && window.treeline.seqs)"))
print("READY", flush=True)  # the walk starts
until("positions from the walk", lambda: len(js("return window.treeline.positionLog")) > 20, 60)

# A photo in an album around the walker: its thumbnail, its gallery, full size on tap.
added = json.loads(board.ask(json.dumps({"cmd": "add_region", "kind": "album", "name": "Clearing photos", "radius_m": 300})))
album = added.get("region")
png = open(os.path.join(args.shots, "a11y-photo.png"), "wb")
driver.save_screenshot(png.name)
png.close()
photo_name = None
for _ in range(50):
    status, _, body = board.request("POST", f"/api/captures?album={album}&note=a%20photo", body=open(png.name, "rb").read(),
                                    headers={"Content-Type": "image/png"})
    if status == 200:
        photo_name = os.path.basename(json.loads(body)["capture"]["file"])
        break
    time.sleep(0.2)
check(photo_name is not None, f"a photo captured in {album}")
tab("albums")
if photo_name:
    thumb = f'#albums-list li[data-id="{album}"] img.thumb'
    until("the album's thumbnail loaded", lambda: js(
        "const i = document.querySelector(arguments[0]); if (i) i.scrollIntoView({block: 'nearest'}); return !!i && i.complete && i.naturalWidth > 0", thumb), 20)
    driver.find_element(By.CSS_SELECTOR, f'#albums-list li[data-id="{album}"] button.gallery-open').click()
    until("the album's gallery", lambda: js("return document.getElementById('gallery').open && document.querySelectorAll('#gallery-grid img').length > 0"), 10)
    driver.find_element(By.CSS_SELECTOR, "#gallery-grid button").click()
    until("the photo full size", lambda: js(
        "const i = document.getElementById('gallery-full'); return !!i && i.checkVisibility() && i.complete && i.naturalWidth > 0"), 10)
    result(thumbnail=photo_name)
    size(360, 740)
    audit("gallery-360x740")
    shot("gallery-360x740")
    driver.find_element(By.ID, "gallery-close").click()
    until("the gallery closed", lambda: not js("return document.getElementById('gallery').open"), 5)

# The plant form's species pick-list from the catalog; Remove asks first, and Keep keeps.
tab("plants")
until("the species pick-list", lambda: js("return document.querySelectorAll('#plant-species option').length") > 1, 10)
first = driver.find_element(By.CSS_SELECTOR, "#plants-list li[data-id]")
plant_id = first.get_attribute("data-id")
js("arguments[0].scrollIntoView({block: 'center'})", first.find_element(By.CSS_SELECTOR, "button.remove"))
first.find_element(By.CSS_SELECTOR, "button.remove").click()
until("Remove's question", lambda: first.find_element(By.CSS_SELECTOR, ".confirm").is_displayed(), 5)
check(js("return document.activeElement.textContent") == "Keep", "Keep has the focus, not Remove")
size(320, 568)
audit("remove-question-320x568")
shot("remove-question-320x568")
[b for b in first.find_elements(By.CSS_SELECTOR, ".confirm button") if b.text == "Keep"][0].click()
until("the question gone", lambda: not first.find_element(By.CSS_SELECTOR, ".confirm").is_displayed(), 5)
check(plant_id in board.ask('{"cmd":"regions"}'), f"{plant_id} kept")
# Water, then its undo (the board's undo_water): last_watered as it was before.
def last_watered(pid):
    return next(r.get("last_watered") for r in json.loads(board.ask('{"cmd":"regions"}'))["regions"] if r["id"] == pid)


size(360, 740)
before = last_watered(plant_id)
card = driver.find_element(By.CSS_SELECTOR, f'#plants-list li[data-id="{plant_id}"]')
js("arguments[0].scrollIntoView({block: 'center'})", card)
card.find_element(By.CSS_SELECTOR, "button.water").click()
until("watered", lambda: last_watered(plant_id) != before, 10)
until("Undo watering offered", lambda: card.find_element(By.CSS_SELECTOR, "button.undo-water").is_displayed(), 5)
audit("undo-water-360x740")
shot("undo-water-360x740")
card.find_element(By.CSS_SELECTOR, "button.undo-water").click()
check(until("the watering taken back", lambda: last_watered(plant_id) == before, 10), f"last_watered back to {before}")
result(water_undone=plant_id)

# Remove (a plant of the user layer) after its question, then Undo: the board's restore_region
# brings it back with its id.
fern = json.loads(board.ask(json.dumps({"cmd": "add_region", "kind": "plant", "name": "Fern to remove", "interval_days": 4, "radius_m": 3})))["region"]


def region_ids():
    return {r["id"] for r in json.loads(board.ask('{"cmd":"regions"}'))["regions"]}


fern_card = f'#plants-list li[data-id="{fern}"]'
until("the fern listed", lambda: len(driver.find_elements(By.CSS_SELECTOR, fern_card)) == 1, 10)
card = driver.find_element(By.CSS_SELECTOR, fern_card)
js("arguments[0].scrollIntoView({block: 'center'})", card.find_element(By.CSS_SELECTOR, "button.remove"))
card.find_element(By.CSS_SELECTOR, "button.remove").click()
until("Remove's question", lambda: card.find_element(By.CSS_SELECTOR, ".confirm").is_displayed(), 5)
[b for b in card.find_elements(By.CSS_SELECTOR, ".confirm button") if b.text == "Remove"][0].click()
until("the fern removed", lambda: fern not in region_ids(), 10)
until("Undo offered", lambda: driver.find_element(By.ID, "plants-undo").is_displayed(), 5)
js("document.getElementById('plants-undo').scrollIntoView({block: 'center'})")
audit("undo-remove-360x740")
shot("undo-remove-360x740")
driver.find_element(By.ID, "plants-undo-button").click()
check(until("the fern back, with its id", lambda: fern in region_ids(), 10), f"{fern} restored")
until("the fern listed again", lambda: len(driver.find_elements(By.CSS_SELECTOR, fern_card)) == 1, 10)
result(remove_undone=fern)
result(species_offered=js("return document.querySelectorAll('#plant-species option').length") - 1)

# The form with a species picked and no name: the plant is named after the species' common name,
# and the board keeps its species (REGIONS), which its card shows.
picked = js("const s = document.getElementById('plant-species'); s.selectedIndex = 1;"
            "return {latin: s.value, common: s.selectedOptions[0].dataset.common};")
before_ids = region_ids()
driver.find_element(By.ID, "plant-name").clear()
js("document.getElementById('plant-add').scrollIntoView({block: 'center'})")
driver.find_element(By.ID, "plant-add").click()
if not until("the plant added from the form", lambda: len(region_ids() - before_ids) == 1, 10):
    raise SystemExit(f"the form said: {driver.find_element(By.ID, 'plants-message').text!r}; " + str(js(
        "const f = document.getElementById('plant-form'), b = document.getElementById('plant-add'), r = b.getBoundingClientRect();"
        "const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
        "return {valid: f.checkValidity(), disabled: b.disabled, at: at && (at.id || at.className || at.tagName),"
        " invalid: [...f.querySelectorAll(':invalid')].map((e) => e.id + ' ' + e.validationMessage)};")))
new_id = next(iter(region_ids() - before_ids))
added = next(r for r in json.loads(board.ask('{"cmd":"regions"}'))["regions"] if r["id"] == new_id)
check(added.get("species") == picked["latin"] and added["name"] == (picked["common"] or picked["latin"]),
      f"added {added.get('name')!r} with species {added.get('species')!r}, picked {picked}")


def card_facts():
    found = driver.find_elements(By.CSS_SELECTOR, f'#plants-list li[data-id="{new_id}"] .facts')
    return found[0].text if found else ""


check(until("its card says its species", lambda: picked["latin"] in card_facts(), 10), f"the card: {card_facts()!r}")
result(plant_species=added.get("species"))

# --- Every view at every size, in both themes.
for sun in (False, True):
    for w, h in SIZES:
        size(w, h)
        theme(sun)
        for view in VIEWS:
            tab(view)
            where = f"{view}-{w}x{h}{'-sun' if sun else ''}"
            if view == "albums" and photo_name:
                js("document.querySelector(arguments[0]).scrollIntoView({block: 'start'})", f'#albums-list li[data-id="{album}"]')
            if view == "map":
                # A region's popup, so its close button is measured too.
                js("window.treeline.openFirstPopup && window.treeline.openFirstPopup()")
                time.sleep(0.4)
            audit(where)
            shot(where)
            if view == "map":
                js("window.treeline.closePopup && window.treeline.closePopup()")
theme(False)

# --- The stale position: the banner once fixes stop (or are old), "live" only while fresh.
# The walk ends; the last fix ages.
until(f"the daemon at the walk's last fix ({args.last_fix})",
      lambda: (json.loads(board.ask('{"cmd":"state"}')).get("last_fix") or {}).get("time") == args.last_fix, 300)
size(360, 740)
tab("map")
until("the amber banner past 10 s", lambda: js(
    "const b = document.getElementById('stale'); return !!b && !b.hidden && b.dataset.level === 'amber'"), 20)
check(driver.find_element(By.ID, "status-stream").text != "live", "no green live while the fix is old")
check(js("return document.getElementById('status-stream').dataset.fresh") == "false", "the stream badge says the fix is not fresh")
result(stale_banner=driver.find_element(By.ID, "stale").text)
audit("stale-360x740")
shot("stale-360x740")
# The same in the sun theme: its badge colours are its own, the not-fresh one too.
theme(True)
check(js("return document.getElementById('status-stream').dataset.fresh") == "false", "still not fresh in the sun theme")
audit("stale-360x740-sun")
shot("stale-360x740-sun")
size(844, 390)
audit("stale-844x390-sun")
shot("stale-844x390-sun")
size(360, 740)
theme(False)

# --- The AR view with its boxes drawn, at each size and theme, at three headings.
ORIENT_JS = """const [a, n] = arguments;
for (let i = 0; i < n; i++) window.dispatchEvent(new DeviceOrientationEvent('deviceorientationabsolute', {alpha: a, beta: 90, gamma: 0, absolute: true}));"""
BOXES_JS = r"""
const W = document.documentElement.clientWidth;
const boxes = [...document.querySelectorAll('.ar-box')].filter((b) => !b.hidden);
const cut = [], overlaps = [];
let checked = 0;
for (const b of boxes) {
  const r = b.getBoundingClientRect();
  if (r.left < 0 || r.right > W) continue;   // at the screen's side: cut by the screen, as a camera would
  checked += 1;
  for (const part of b.querySelectorAll('.ar-name, .ar-distance, .ar-meta')) {
    if (part.scrollWidth > part.clientWidth + 1 || part.scrollHeight > part.clientHeight + 1)
      cut.push(`${b.dataset.id} ${part.className}: ${part.scrollWidth}×${part.scrollHeight} in ${part.clientWidth}×${part.clientHeight}`);
  }
  if (r.right > b.parentElement.getBoundingClientRect().right + 1) cut.push(`${b.dataset.id}: past the stage`);
  // The box drawn at its stacked size holds its text.
  if (b.scrollWidth > b.clientWidth + 1 || b.scrollHeight > b.clientHeight + 1)
    cut.push(`${b.dataset.id}: text ${b.scrollWidth}×${b.scrollHeight} in a box ${b.clientWidth}×${b.clientHeight}`);
}
const inter = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
for (const a of document.querySelectorAll('.ar-arrow:not([hidden])')) {
  const ra = a.getBoundingClientRect();
  for (const b of boxes) if (inter(ra, b.getBoundingClientRect())) overlaps.push(`${a.dataset.arrowId} over ${b.dataset.id}`);
}
// Stacked at the sizes they are drawn: no box over another (half a pixel of rounding allowed).
const stacked = [];
const rects = boxes.map((b) => [b.dataset.id, b.getBoundingClientRect()]);
const shrink = (r) => ({ left: r.left + 0.5, right: r.right - 0.5, top: r.top + 0.5, bottom: r.bottom - 0.5 });
for (let i = 0; i < rects.length; i++)
  for (let j = i + 1; j < rects.length; j++)
    if (inter(shrink(rects[i][1]), shrink(rects[j][1]))) stacked.push(`${rects[i][0]} over ${rects[j][0]}`);
return {checked, cut, overlaps, stacked, shown: boxes.length};
"""
ar_checked = ar_cut = ar_over = ar_stacked_checked = 0
driver.get(args.url + "ar/")
until("the AR view's boxes", lambda: js("return !!(window.treeline && window.treeline.ar && window.treeline.ar.layout && window.treeline.ar.boxes().length)"), 40)
layout = js("return window.treeline.ar.layout")
bearings = sorted(i["bearing"] for i in layout["items"] if not i.get("hidden")) if layout else [0]
headings = [bearings[0], bearings[len(bearings) // 2], bearings[-1]]
for sun in (False, True):
    for w, h in SIZES:
        size(w, h)
        theme(sun)
        until("a layout for this screen", lambda: js("return window.treeline.ar.layout && window.treeline.ar.layout.screen.join('x')") ==
              js("return [document.getElementById('ar-stage').clientWidth, document.getElementById('ar-stage').clientHeight].join('x')"), 20)
        until("the boxes sized to their texts", lambda: js("return window.treeline.ar.sized()"), 20)
        for k, heading in enumerate(headings):
            js(ORIENT_JS, (360 - heading) % 360, 60)
            driver.execute_async_script("const d = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => d()));")
            time.sleep(0.2)
            b = js(BOXES_JS)
            ar_checked += b["checked"]
            ar_cut += len(b["cut"])
            ar_over += len(b["overlaps"])
            where = f"ar-{w}x{h}{'-sun' if sun else ''} at {heading:.0f}°"
            check(not b["cut"], f"{where}: boxes cut: {b['cut'][:6]}")
            check(not b["overlaps"], f"{where}: edge arrows over boxes: {b['overlaps'][:6]}")
            check(not b["stacked"], f"{where}: boxes over boxes: {b['stacked'][:6]}")
            ar_stacked_checked += 1
            if k == 1:
                time.sleep(1.3)  # the focus's card
                audit(f"ar-{w}x{h}{'-sun' if sun else ''}")
                shot(f"ar-{w}x{h}{'-sun' if sun else ''}")
theme(False)
ar_errors = js("return window.treeline.errors")
check(ar_errors == [], f"errors in the AR view: {ar_errors}")

# --- A lost session: the cookie gone, the page says so and stops retrying.
driver.get(args.url)
until("the page again", lambda: js("return !!(window.treeline && window.treeline.seqs)"))
size(360, 740)
driver.delete_all_cookies()
tab("plants")
driver.find_element(By.ID, "round-button").click()
until("the lost session said", lambda: js("const s = document.getElementById('session-lost'); return !!s && !s.hidden"), 15)
text = driver.find_element(By.ID, "session-lost").text
check("treeline web" in text, f"how to get a new link: {text!r}")
requests_then = js("return window.treeline.requests")
time.sleep(7)
check(js("return window.treeline.requests") == requests_then, "no retries once access ended")
audit("session-360x740")
shot("session-360x740")
result(session_lost=text[:160])

errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE" and "401" not in e["message"]]
check(not errors, f"console errors: {errors[:5]}")
page_errors = js("return window.treeline.errors")
check(page_errors == [], f"errors in the page: {page_errors}")
result(axe_pages=totals["pages"] - 6, axe_serious_or_critical=totals["serious"] + totals["critical"], axe_by_impact=totals,
       axe_by_page=by_page, small_targets=small_total, overflowing_text=overflow_total, text_under_16px=tiny_total, text_under_16px_where=sorted(tiny_examples)[:40],
       ar_boxes_checked=ar_checked, ar_frames_without_overlap=ar_stacked_checked, ar_boxes_cut=ar_cut, ar_arrows_over_boxes=ar_over, console_errors=len(errors))
driver.quit()
checks.done()
