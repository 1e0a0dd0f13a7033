"""The web app in Firefox (Debian's firefox-esr, headless, driven over Marionette: Debian has no
geckodriver): the page loads with the token, shows the journal and the regions, renders each
view, and raises no error. Run by WebTests after the walk has ended."""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

from marionette_driver.marionette import Marionette

from webcheck import EVENT_ROWS_JS, Board, Checks, arguments, result, rows_problem

args = arguments()
os.makedirs(args.shots, exist_ok=True)
board = Board(args)
checks = Checks()
check = checks.check


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


profile = tempfile.mkdtemp(prefix="tl-firefox-")
port = free_port()
with open(os.path.join(profile, "user.js"), "w") as f:
    f.write(f'user_pref("marionette.port", {port});\n')  # a free port, not the fixed 2828
firefox = subprocess.Popen(["firefox-esr", "--headless", "--marionette", "--profile", profile, "--width", "360", "--height", "740"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    m = None
    for _ in range(60):
        try:
            m = Marionette(host="127.0.0.1", port=port)
            m.start_session({"acceptInsecureCerts": True})
            break
        except Exception:
            m = None
            time.sleep(0.5)
    check(m is not None, "Firefox's Marionette answered")
    if m:
        def js(script):
            return m.execute_script(script, sandbox=None)  # the page's own window, not a sandbox

        def until(what, condition, timeout=20):
            end = time.time() + timeout
            while time.time() < end:
                try:
                    if condition():
                        return True
                except Exception:
                    pass
                time.sleep(0.2)
            return check(False, f"Firefox: {what}, not within {timeout} s")

        m.navigate(args.url + "?token=" + board.token)
        check(m.get_url().rstrip("/") == args.url.rstrip("/"), f"Firefox: the token is dropped from the address: {m.get_url()}")
        until("the page's hooks", lambda: js("return !!(window.treeline && window.treeline.seqs)"))
        # The Events list on screen is the journal, newest first, each once: read once a marker
        # added now is at its top (whatever came before it has come).
        last = json.loads(board.ask('{"cmd":"state"}'))["seq"]
        marker = board.marker("Firefox marker")
        check(marker is not None and marker["seq"] == last + 1, f"Firefox: the marker after seq {last}: {marker}")
        journal = [json.loads(l) for l in board.subscribe('{"cmd":"subscribe","since":0}', until_seq=last + 1)[1:]]
        m.find_element("id", "tab-events").click()
        until("the marker at the top of Events", lambda: (js(EVENT_ROWS_JS) or [{}])[0].get("seq") == f"#{last + 1}")
        rows = js(EVENT_ROWS_JS)
        problem = rows_problem(rows, journal)
        check(problem is None, f"Firefox: Events on screen is the journal, newest first, each once: {problem}")
        regions = [r["id"] for r in json.loads(board.ask('{"cmd":"regions"}'))["regions"]]
        until("every region on the map", lambda: sorted(js("return window.treeline.mapRegionIds()")) == sorted(regions))
        until("the position", lambda: js("return window.treeline.position") is not None)
        for view, items in [("plants", "#plants-list li[data-id]"), ("albums", "#albums-list li[data-id]"), ("planting", "#species-search"), ("events", "#events-list li[data-seq]")]:
            m.find_element("id", "tab-" + view).click()
            until(f"the {view} view", lambda: js(f"return document.getElementById('view-{view}').classList.contains('active') && document.querySelectorAll('{items}').length > 0"))
            with open(os.path.join(args.shots, f"firefox-{view}.png"), "wb") as f:
                f.write(m.screenshot(format="binary"))
        errors = js("return window.treeline.errors")
        check(errors == [], f"Firefox: errors in the page: {errors}")
        result(firefox_events=len(rows), firefox_errors=len(errors))
        m.delete_session()
finally:
    firefox.terminate()
    try:
        firefox.wait(10)
    except subprocess.TimeoutExpired:
        firefox.kill()
    shutil.rmtree(profile, ignore_errors=True)
checks.done()
