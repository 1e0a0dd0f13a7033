"""Both pages when the board comes back on another journal (its database replaced), in Debian's
chromium. The Swift test replaces the database each time this prints RESTART 1 to 5:

1. the map page, open on a journal of a few events, sees the board come back on a new journal
   whose last seq is below what it read: its Events list becomes the new journal's, and an
   album added after that is drawn, acted on as news from its event (its seq is one the page
   read on the old journal);
2. the same when the new journal is already past the old one's seq by the time the page asks
   (the script adds albums as soon as the board answers): only the journal's name tells the
   two apart, and the Events list must again be the new journal's, event for event;
3. the same for a fresh tab opened while STATE fails: it takes the name of the journal its
   stream started on;
4. that tab reloaded once the board is on a new journal past its seq, its first STATE failing
   again (the board out of reach as the page loads): it restores the list and the name it
   kept, its stream is refused for that name, and the list becomes the new journal's;
5. the AR view on a new journal: it knows a plant added there, from its event.

Before the pages said where a new journal's history ends, both skipped region events as
history until the new journal passed the old one's seq; before journals had names, a new
journal past the old seq was read on from the old seq, the old journal's events kept as its.
"""
import json
import time

from webcheck import chromium, result, start_script

args, board, checks = start_script()
check = checks.check
driver = chromium(args.cert)


def js(script, *a):
    return driver.execute_script(script, *a)


def until(what, condition, timeout=30):
    return checks.until(driver, what, condition, timeout=timeout)


def state():
    """The board's STATE, or None while it does not answer."""
    try:
        return json.loads(board.ask('{"cmd":"state"}'))
    except (OSError, ValueError):
        return None


def add(kind, name):
    """Adds a region over the socket; its id and seq, or (None, None) when refused."""
    command = {"cmd": "add_region", "kind": kind, "name": name, "at": [40.1, -8.2]}
    if kind == "plant":
        command["interval_days"] = 3
    o = json.loads(board.ask(json.dumps(command)))
    check(o.get("type") == "region_added", f"add {kind} {name!r}: {o}")
    return o.get("region"), o.get("seq")


def journal_events():
    """The board's journal as the Events list shows it: seq, time and type of each event."""
    lines = board.subscribe('{"cmd":"subscribe","since":0}', until_seq=state()["seq"], timeout=10)
    return [{"seq": o["seq"], "time": o["time"], "type": o["type"]} for o in map(json.loads, lines) if o.get("class") == "EVENT"]


restarts = 0


def new_journal(old, before_page=0):
    """Has the test restart the board on a new database and waits for the page's events stream
    to be live again after it; `before_page` albums are added as soon as the board answers,
    before the page asks it anything. The new journal's STATE."""
    global restarts
    restarts += 1
    until("the page's events stream live", lambda: js("return window.treeline.stream") == "live" and js("return window.treeline.streamLive") >= 1)
    opened = js("return window.treeline.streamLive")
    print(f"RESTART {restarts}", flush=True)
    until("the board back on a new journal", lambda: (s := state()) is not None and s.get("journal") != old["journal"], 60)
    for k in range(before_page):
        add("album", f"Album {k} before the page asks")
    until("the page's events stream live again", lambda: js("return window.treeline.streamLive") > opened
          and js("return window.treeline.stream") == "live", 30)
    # Whatever the page asks when it comes back is answered before a region is added.
    time.sleep(2)
    return state()


def region_news(what, seq):
    until(f"{what} acted on as news (seq {seq})", lambda: seq in (js("return window.treeline.regionNews") or []), 15)


def reloaded(old, before_page):
    """Has the test restart the board on a new database, adds `before_page` albums, then reloads
    the page (whose first STATE the tab's wrapper refuses) and waits for its stream. The new
    journal's STATE."""
    global restarts
    until("the page keeping its list with the journal's name and last seq",
          lambda: (k := js("return JSON.parse(sessionStorage.getItem('treeline.journal'))") or {}).get("journal") == old["journal"]
          and k.get("lastSeq") == old["seq"], 15)
    restarts += 1
    print(f"RESTART {restarts}", flush=True)
    until("the board back on a new journal", lambda: (s := state()) is not None and s.get("journal") != old["journal"], 60)
    for k in range(before_page):
        add("album", f"Album {k} before the reload")
    driver.refresh()
    until("the reloaded page's stream live", lambda: js("return window.treeline && window.treeline.stream") == "live"
          and js("return window.treeline.streamLive") >= 1, 30)
    time.sleep(2)
    return state()


def map_case(label, before_page, reload=False):
    old = state()
    until(f"{label}: the map page reading the journal to its end", lambda: old["seq"] in (js("return window.treeline.seqs()") or []))
    new = reloaded(old, before_page) if reload else new_journal(old, before_page)
    check(new["journal"] != old["journal"] and len(new["journal"]) == 32, f"{label}: the new journal's name {new['journal']!r}")
    below = new["seq"] < old["seq"]
    check(below == (before_page == 0), f"{label}: the new journal's last seq {new['seq']} against the old {old['seq']}")
    wanted = journal_events()
    until(f"{label}: the Events list being the new journal's", lambda: js("return window.treeline.eventsShown()") == wanted, 20)
    album, seq = add("album", f"Album on the journal of {label}")
    if below:
        check(seq is not None and seq <= old["seq"], f"{label}: the album's seq {seq} is one the page read on the old journal (up to {old['seq']})")
    region_news(f"{label}: the new album", seq)
    drawn = until(f"{label}: the new album drawn on the map", lambda: album in (js("return window.treeline.mapRegionIds()") or []), 15)
    result(**{f"{label}_old_seq": old["seq"], f"{label}_new_seq": new["seq"], f"{label}_album_seq": seq, f"{label}_album_drawn": bool(drawn)})
    return album


# --- The map page. The old journal ends a few events after the new one will start.
for k in range(4):
    add("album", f"Old journal album {k}")
driver.get(args.url + "?token=" + board.token)
map_case("below", before_page=0)
map_case("past", before_page=8)
# A fresh tab opened while STATE fails (its first STATE refused in the page, once): the page
# has no journal name, so it takes the one its stream started on (SUBSCRIBED) and opens the
# stream again with it, and a new journal past its seq is still told apart.
driver.switch_to.new_window("tab")
driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
    const realFetch = window.fetch;
    let refused = false;
    window.fetch = (input, init) => {
      if (!refused && init && typeof init.body === "string" && init.body.includes('"cmd":"state"')) {
        refused = true;
        return Promise.reject(new TypeError("the board's STATE refused by the test"));
      }
      return realFetch(input, init);
    };"""})
driver.get(args.url)
until("the unnamed page's stream opened again with the name it took", lambda: js("return window.treeline.streamLive") == 2
      and js("return window.treeline.stream") == "live", 30)
map_case("unnamed", before_page=state()["seq"] + 3)
# The same tab reloaded: its wrapper refuses the reloaded page's first STATE too, so the page
# starts on the list and name it kept, as it does when the board is out of reach.
last_album = map_case("reloaded", before_page=state()["seq"] + 3, reload=True)
errors = js("return window.treeline.errors")
check(not errors, f"the map page's uncaught errors: {errors[:3]}")

# --- The AR view, on the next new journal.
for k in range(4):
    add("album", f"Third journal album {k}")
old = state()
driver.get(args.url + "ar/")
until("the AR hooks", lambda: js("return !!(window.treeline && window.treeline.ar)"))
until("the AR view knowing the last album", lambda: js("return window.treeline.ar.knows(arguments[0])", last_album) is True, 20)
new = new_journal(old)
plant, seq = add("plant", "Plant on the fourth journal")
check(seq is not None and seq <= old["seq"], f"the new plant's seq {seq} is one the view read on the journal before (up to {old['seq']})")
region_news("the AR view: the new plant", seq)
known = until("the AR view knowing the new plant", lambda: js("return window.treeline.ar.knows(arguments[0])", plant) is True, 15)
result(ar_old_seq=old["seq"], ar_new_seq=new["seq"], ar_plant_seq=seq, ar_plant_known=bool(known))
errors = js("return window.treeline.errors")
check(not errors, f"the AR view's uncaught errors: {errors[:3]}")


def expected(entry):
    """What the restarts make the browser log: requests refused while the board was down, and
    the 400 by which a board on another journal refuses the events stream."""
    m = entry["message"]
    return entry.get("source") == "network" and ("net::ERR_" in m or ("/api/events?" in m and "status of 400" in m))


severe = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE" and not expected(e)]
check(not severe, f"console errors: {severe[:3]}")
driver.quit()
checks.done()
