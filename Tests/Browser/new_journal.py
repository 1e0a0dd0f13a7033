"""Both pages when the board comes back on another journal (its database replaced: its last seq
below what the page has read), in Debian's chromium:

- the map page, open while the board ran on a journal of a few events, sees it restarted on a
  new one (the Swift test replaces the database when this prints RESTART 1, then 2): its Events
  list starts again from the new journal, and an album added after that is drawn on its map,
  from its event alone (its seq is one the page read on the old journal);
- the AR view, the same on the next new journal: it knows a plant added there.

Before the pages said where a new journal's history ends, both skipped region events as
history until the new journal passed the old one's seq.
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


def last_seq():
    """The board's last seq, or None while it does not answer."""
    try:
        return json.loads(board.ask('{"cmd":"state"}'))["seq"]
    except (OSError, ValueError, KeyError):
        return None


def add(kind, name):
    """Adds a region over the socket; its id and seq, or (None, None) when refused."""
    command = {"cmd": "add_region", "kind": kind, "name": name, "at": [40.1, -8.2]}
    if kind == "plant":
        command["interval_days"] = 3
    o = json.loads(board.ask(json.dumps(command)))
    check(o.get("type") == "region_added", f"add {kind} {name!r}: {o}")
    return o.get("region"), o.get("seq")


restarts = 0


def new_journal(old):
    """Has the test restart the board on a new database, and waits for the page's events stream
    to be live again after it; the new journal's last seq."""
    global restarts
    restarts += 1
    opened = js("return window.treeline.streamLive")
    print(f"RESTART {restarts}", flush=True)
    until("the board back on a new journal", lambda: (s := last_seq()) is not None and s < old, 60)
    until("the page's events stream live again", lambda: js("return window.treeline.streamLive") > opened
          and js("return window.treeline.stream") == "live", 30)
    # Whatever the page asks when it comes back is answered before a region is added: that
    # region can then only come to the page through its event.
    time.sleep(2)
    return last_seq()


# --- The map page. The old journal ends a few events after the new one will.
for k in range(4):
    add("album", f"Old journal album {k}")
old = last_seq()
driver.get(args.url + "?token=" + board.token)
until("the map page reading the old journal to its end", lambda: old in (js("return window.treeline.seqs()") or []))
new = new_journal(old)
until("the Events list starting again from the new journal",
      lambda: (s := js("return window.treeline.seqs()") or []) and max(s) == new and old not in s, 30)
album, seq = add("album", "Album on the new journal")
check(seq is not None and seq <= old, f"the new album's seq {seq} is one the page read on the old journal (up to {old})")
drawn = until("the new album drawn on the map", lambda: album in (js("return window.treeline.mapRegionIds()") or []), 15)
result(map_old_seq=old, map_new_seq=new, map_album_seq=seq, map_album_drawn=bool(drawn))

# --- The AR view, on the next new journal.
for k in range(4):
    add("album", f"Second journal album {k}")
old = last_seq()
driver.get(args.url + "ar/")
until("the AR hooks", lambda: js("return !!(window.treeline && window.treeline.ar)"))
until("the AR view knowing the last album", lambda: js("return window.treeline.ar.knows(arguments[0])", album) is True, 20)
time.sleep(1)  # its stream open at the old journal's last seq
new = new_journal(old)
plant, seq = add("plant", "Plant on the third journal")
check(seq is not None and seq <= old, f"the new plant's seq {seq} is one the view read on the journal before (up to {old})")
known = until("the AR view knowing the new plant", lambda: js("return window.treeline.ar.knows(arguments[0])", plant) is True, 15)
result(ar_old_seq=old, ar_new_seq=new, ar_plant_seq=seq, ar_plant_known=bool(known))

# The board down: its requests refused (the stream's 400 is how it says the journal is another).
outage = ("ERR_CONNECTION_REFUSED", "/api/events")
severe = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE" and not any(w in e["message"] for w in outage)]
check(not severe, f"console errors: {severe[:3]}")
errors = js("return window.treeline.errors")
check(not errors, f"uncaught errors: {errors[:3]}")
driver.quit()
checks.done()
