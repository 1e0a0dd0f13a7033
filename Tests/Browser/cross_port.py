"""The attack as a browser makes it: a page served from another port of the board's host (same
site to the browser, so the SameSite=Lax cookie goes along) posts a plant to /api by fetch
no-cors (text/plain) and by a form, in Debian's chromium that holds the board's cookie. Neither
adds anything; the board's own page still can."""
import http.server
import json
import time
import os
import ssl
import threading

from webcheck import Board, Checks, arguments, chromium, result

args = arguments()
board = Board(args)
checks = Checks()
check = checks.check
target = f"https://{board.host}:{board.port}/api"
plant = {"cmd": "add_region", "kind": "plant", "name": "planted from another port", "interval_days": 7, "radius_m": 5, "at": [40.1, -8.24]}
page = f"""<!doctype html><html><body>
<form id="f" method="POST" action="{target}" enctype="text/plain" target="sink">
<input name='{json.dumps(plant)[:-1]}, "x":"' value='"}}'></form>
<iframe name="sink"></iframe>
<script>
fetch({json.dumps(target)}, {{method: "POST", mode: "no-cors", credentials: "include",
  headers: {{"Content-Type": "text/plain"}}, body: {json.dumps(json.dumps(plant))}}})
  .then(() => document.title = "fetched", e => document.title = "fetch failed " + e);
document.getElementById("f").submit();
</script></body></html>""".encode()


class Attack(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, *a):
        pass


server = http.server.ThreadingHTTPServer((board.host if board.host != "localhost" else "127.0.0.1", 0), Attack)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(args.cert, os.path.join(os.path.dirname(args.cert), "web-key.pem"))  # the board's own: the browser trusts it
server.socket = context.wrap_socket(server.socket, server_side=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
other = f"https://{board.host}:{server.server_address[1]}/"


def names():
    return [r.get("name") for r in json.loads(board.ask('{"cmd":"regions"}'))["regions"]]


driver = chromium(args.cert, network_log=True)
# The attack's requests as the browser sends them, without the board's service worker in
# between (it passes POSTs to the network untouched, but a navigation through it shows twice
# in DevTools' log): what the board answers is the same either way.
driver.execute_cdp_cmd("Network.enable", {})
driver.execute_cdp_cmd("Network.setBypassServiceWorker", {"bypass": True})
posts, settled = set(), set()


def both_posts_settled():
    """Whether the browser has the board's answers to the page's two POSTs (the fetch and the
    form), or their failures, by its DevTools network log: every POST seen must have settled."""
    for entry in driver.get_log("performance"):
        m = json.loads(entry["message"])["message"]
        p = m.get("params", {})
        if m.get("method") == "Network.requestWillBeSent" and p["request"]["url"] == target and p["request"]["method"] == "POST":
            posts.add(p["requestId"])
        elif m.get("method") in ("Network.responseReceived", "Network.loadingFailed"):
            settled.add(p["requestId"])
    return len(posts) >= 2 and posts <= settled


try:
    driver.get(f"https://{board.host}:{board.port}/?token={board.token}")  # the cookie, as the phone has it
    checks.until(driver, "the board's cookie", lambda: any(c["name"] == "treeline_token" for c in driver.get_cookies()))
    driver.get_log("performance")  # what came before the attack
    driver.get(other)
    # The known end of the attack: the board answered both POSTs (before, 3 s were waited).
    # Both POSTs must have left the browser; their answers are waited for a while more (in a
    # full run, with other browsers busy, DevTools' log did not always show the form's answer),
    # and what decides is the board: nothing added.
    checks.until(driver, "the attacking page's fetch and form sent to the board", lambda: both_posts_settled() or len(posts) >= 2, 15)
    deadline = time.time() + 10
    while not both_posts_settled() and time.time() < deadline:
        time.sleep(0.2)
    checks.until(driver, "the page's fetch settled", lambda: driver.title.startswith("fetch"), 15)
    check("planted from another port" not in names(), f"a page on {other} added a plant with the board's cookie: {names()}")
    # The board's own page, the same browser: its POST (Origin sent by the browser) works.
    driver.get(f"https://{board.host}:{board.port}/")
    answer = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch('/api', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({cmd: 'state'})})
          .then(r => r.json().then(b => done([r.status, b.class])), e => done([0, String(e)]));""")
    check(answer == [200, "STATE"], f"the board's own page POSTs /api: {answer}")
    result(attack_origin=other, own_page=answer)
finally:
    driver.quit()
    server.shutdown()
checks.done()
