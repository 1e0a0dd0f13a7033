"""What the web checks share: the daemon's address, token and certificate, HTTPS requests with
that certificate pinned, the Unix socket to compare with, and a list of failed checks.

Each script is started by a Swift test (Tests/DaemonTests/WebTests.swift) that runs a real
treelined and gpsd; it prints `RESULT {json}` lines with what it measured, `READY` when the
test may start the walk, and exits 1 with every failed check on standard error.
"""
import argparse
import base64
import http.client
import json
import math
import os
import socket
import ssl
import subprocess
import sys
import time
from urllib.parse import urlsplit


def arguments(extra=None):
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True, help="https://localhost:PORT/")
    p.add_argument("--token-file", required=True)
    p.add_argument("--cert", required=True, help="the certificate the daemon made (pinned)")
    p.add_argument("--socket", required=True, help="the daemon's Unix socket")
    p.add_argument("--treeline", required=True, help="the treeline executable")
    p.add_argument("--pid", type=int, default=0, help="treelined's pid (memory figures)")
    p.add_argument("--gpsd-port", type=int, default=0)
    p.add_argument("--shots", default="out/web", help="where screenshots go")
    p.add_argument("--last-fix", default=None, help="the time of the walk's last fix, as the daemon's state gives it once used")
    if extra:
        extra(p)
    return p.parse_args()


class Checks:
    """Failed checks are collected, not raised: one run reports all of them."""

    def __init__(self):
        self.failures = []

    def check(self, ok, message):
        if not ok:
            self.failures.append(message)
            print("FAILED: " + message, file=sys.stderr, flush=True)
        return ok

    def until(self, driver, what, condition, timeout=20, poll=0.1):
        """Waits in `driver` (Selenium) for `condition()`; a failed check if it never holds."""
        from selenium.common.exceptions import TimeoutException
        from selenium.webdriver.support.ui import WebDriverWait
        try:
            WebDriverWait(driver, timeout, poll_frequency=poll).until(lambda d: condition())
            return True
        except TimeoutException:
            return self.check(False, f"{what}: not within {timeout} s")

    def done(self):
        if self.failures:
            print(f"{len(self.failures)} check(s) failed", file=sys.stderr)
            sys.exit(1)
        sys.exit(0)


# The Events list as the page shows it, newest first: each row's seq, type and name as displayed
# (the DOM's rendered text), and whether the row is on screen (rendered, not filtered out).
EVENT_ROWS_JS = """
return [...document.querySelectorAll('#events-list > li')].map(li => ({
  seq: li.querySelector('.seq').innerText, type: li.querySelector('.type').innerText,
  name: li.querySelector('.name').innerText, shown: !li.hidden && li.checkVisibility()}));
"""


def expected_row(event):
    """What the Events list shows for a journal event (a parsed EVENT line)."""
    feature = event.get("feature") or {}
    name = event.get("name") or (feature.get("properties") or {}).get("name") or event.get("region") or ""
    return {"seq": f"#{event['seq']}", "type": event["type"].replace("_", " "), "name": name, "shown": True}


def rows_problem(rows, events):
    """Where the on-screen rows differ from the journal's events shown newest first (None: they
    are the same rows, in that order)."""
    want = [expected_row(e) for e in reversed(events)]
    if rows == want:
        return None
    k = next((k for k, (a, b) in enumerate(zip(rows, want)) if a != b), min(len(rows), len(want)))
    return (f"{len(rows)} rows for {len(want)} events; first difference at row {k}: "
            f"{rows[k] if k < len(rows) else 'none'} shown, {want[k] if k < len(want) else 'none'} expected")


def result(**figures):
    print("RESULT " + json.dumps(figures), flush=True)


class Board:
    """The daemon under test, over HTTPS and over its socket."""

    def __init__(self, args):
        self.args = args
        u = urlsplit(args.url)
        self.host, self.port = u.hostname, u.port
        self.token = open(args.token_file).read().strip()
        self.context = ssl.create_default_context(cafile=args.cert)  # the board's own, pinned

    def connection(self, timeout=10):
        return http.client.HTTPSConnection(self.host, self.port, context=self.context, timeout=timeout)

    def request(self, method, path, body=None, headers=None, token=True, timeout=10):
        """(status, headers, body bytes)."""
        h = dict(headers or {})
        if token:
            h["Authorization"] = "Bearer " + self.token
        c = self.connection(timeout)
        try:
            c.request(method, path, body=body, headers=h)
            r = c.getresponse()
            return r.status, dict((k.lower(), v) for k, v in r.getheaders()), r.read()
        finally:
            c.close()

    def api(self, command, token=True):
        body = command if isinstance(command, (bytes, bytearray)) else json.dumps(command).encode() if not isinstance(command, str) else command.encode()
        return self.request("POST", "/api", body=body, headers={"Content-Type": "application/json"}, token=token)

    def ask(self, line):
        """The socket's answer to one command line (text, no newline)."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(10)
            s.connect(self.args.socket)
            f = s.makefile("rb")
            f.readline()  # HELLO
            s.sendall(line.encode() + b"\n")
            return f.readline().decode().rstrip("\n")

    def subscribe(self, line, until_seq=None, timeout=30):
        """The socket's subscription lines (SUBSCRIBED included) up to the event `until_seq`,
        or all that come until `timeout` passes with nothing."""
        lines = []
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(timeout)
            s.connect(self.args.socket)
            f = s.makefile("rb")
            f.readline()
            s.sendall(line.encode() + b"\n")
            try:
                for raw in f:
                    text = raw.decode().rstrip("\n")
                    lines.append(text)
                    o = json.loads(text)
                    if until_seq is not None and o.get("seq", 0) >= until_seq and o.get("class") == "EVENT":
                        break
            except TimeoutError:
                pass
        return lines

    def events(self, query="since=0", headers=None, until_seq=None, timeout=30, token=True, opened=None):
        """Server-Sent Events from /api/events: (status, [(id, event, data)]) up to `until_seq`.
        `opened` (a threading.Event) is set once the first message (SUBSCRIBED) has come."""
        h = dict(headers or {})
        if token:
            h["Authorization"] = "Bearer " + self.token
        c = self.connection(timeout)
        c.request("GET", "/api/events?" + query, headers=h)
        r = c.getresponse()
        if r.status != 200:
            body = r.read()
            c.close()
            return r.status, body
        got = []
        ident = event = None
        data = []
        deadline = time.time() + timeout
        try:
            while time.time() < deadline:
                try:
                    raw = r.fp.readline()
                except TimeoutError:
                    break
                if not raw:
                    break
                line = raw.decode().rstrip("\n")
                if line == "":
                    if data:
                        got.append((ident, event or "message", "\n".join(data)))
                        if opened is not None:
                            opened.set()
                        o = json.loads(data[0])
                        if until_seq is not None and o.get("class") == "EVENT" and o["seq"] >= until_seq:
                            break
                    ident = event = None
                    data = []
                elif line.startswith("id: "):
                    ident = line[4:]
                elif line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    data.append(line[6:])
        finally:
            c.close()
        return 200, got

    def marker(self, name="End marker"):
        """Adds an album over the socket: an event known to come after everything before it.
        Its EVENT (seq, type, region, name), or None when refused."""
        o = json.loads(self.ask(json.dumps({"cmd": "add_region", "kind": "album", "name": name, "at": [40.1, -8.2]})))
        return o if o.get("type") == "region_added" else None

    def treeline(self, *args):
        r = subprocess.run([self.args.treeline, *args, "--socket", self.args.socket], capture_output=True, text=True, timeout=30)
        return r.returncode, r.stdout, r.stderr


def spki_hash(cert):
    """base64 SHA-256 of the certificate's public key: chromium trusts exactly that key."""
    key = subprocess.run(["openssl", "x509", "-pubkey", "-noout", "-in", cert], capture_output=True, check=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=key, capture_output=True, check=True).stdout
    digest = subprocess.run(["openssl", "dgst", "-sha256", "-binary"], input=der, capture_output=True, check=True).stdout
    return base64.b64encode(digest).decode()


def chromium(cert, network_log=False, flags=()):
    """Debian's chromium through Selenium, headless, as a 360×740 phone with a fake camera,
    trusting the board's certificate by its key; `network_log` keeps DevTools' network events
    (`driver.get_log("performance")`); `flags`: more of chromium's switches."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    o = Options()
    o.binary_location = "/usr/bin/chromium"
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              f"--ignore-certificate-errors-spki-list={spki_hash(cert)}",
              "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", *flags]:
        o.add_argument(a)
    o.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": 360, "height": 740, "pixelRatio": 2.0}})
    logs = {"browser": "ALL", "performance": "ALL"} if network_log else {"browser": "ALL"}
    o.set_capability("goog:loggingPrefs", logs)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)


def resize(driver, width, height):
    """The phone's screen as `width`×`height` CSS pixels (2× density), settled."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 2, "mobile": True})
    time.sleep(0.4)


def show_tab(driver, checks, name):
    """Taps the page's tab `name` and waits for its view."""
    from selenium.webdriver.common.by import By

    driver.find_element(By.ID, f"tab-{name}").click()
    checks.until(driver, f"the {name} view", lambda: "active" in driver.find_element(By.ID, f"view-{name}").get_attribute("class"))


def memory(pid):
    """(VmRSS, VmHWM) of a process in MiB."""
    rss = hwm = 0.0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1]) / 1024
    return rss, hwm


def geodesic(lat1, lon1, lat2, lon2):
    """Vincenty's inverse on WGS84: (distance in m, initial bearing in degrees from true north).
    Exact to well under a millimetre and 0.0001° at these distances."""
    a = 6378137.0
    f = 1 / 298.257223563
    b = a * (1 - f)
    L = math.radians(lon2 - lon1)
    U1 = math.atan((1 - f) * math.tan(math.radians(lat1)))
    U2 = math.atan((1 - f) * math.tan(math.radians(lat2)))
    sU1, cU1, sU2, cU2 = math.sin(U1), math.cos(U1), math.sin(U2), math.cos(U2)
    lam = L
    for _ in range(200):
        sl, cl = math.sin(lam), math.cos(lam)
        ss = math.hypot(cU2 * sl, cU1 * sU2 - sU1 * cU2 * cl)
        if ss == 0:
            return 0.0, 0.0
        cs = sU1 * sU2 + cU1 * cU2 * cl
        sigma = math.atan2(ss, cs)
        sa = cU1 * cU2 * sl / ss
        c2a = 1 - sa * sa
        c2sm = cs - 2 * sU1 * sU2 / c2a if c2a else 0.0
        C = f / 16 * c2a * (4 + f * (4 - 3 * c2a))
        previous = lam
        lam = L + (1 - C) * f * sa * (sigma + C * ss * (c2sm + C * cs * (-1 + 2 * c2sm * c2sm)))
        if abs(lam - previous) < 1e-12:
            break
    u2 = c2a * (a * a - b * b) / (b * b)
    A = 1 + u2 / 16384 * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)))
    B = u2 / 1024 * (256 + u2 * (-128 + u2 * (74 - 47 * u2)))
    ds = B * ss * (c2sm + B / 4 * (cs * (-1 + 2 * c2sm * c2sm) - B / 6 * c2sm * (-3 + 4 * ss * ss) * (-3 + 4 * c2sm * c2sm)))
    distance = b * A * (sigma - ds)
    bearing = math.degrees(math.atan2(cU2 * math.sin(lam), cU1 * sU2 - sU1 * cU2 * math.cos(lam)))
    return distance, bearing % 360


def start_script(extra=None):
    """What a script begins with: its arguments, the board, the list of checks, the folder for
    screenshots made."""
    args = arguments(extra)
    os.makedirs(args.shots, exist_ok=True)
    return args, Board(args), Checks()


def axe_for(driver):
    """axe-core in `driver` (the venv has one of the two Selenium packages that bundle it)."""
    try:
        from selenium_axe_python import Axe
    except ImportError:  # the older package, if that is what the venv has
        from axe_selenium_python import Axe
    return Axe(driver)


def network_log(driver):
    """What DevTools' performance log holds since the last call: requests (id → url), responses
    (id → response), finished (id → encoded length over the wire, headers and body) and
    bodies (id → a POST's body)."""
    requests, responses, finished, bodies = {}, {}, {}, {}
    for entry in driver.get_log("performance"):
        m = json.loads(entry["message"])["message"]
        p = m.get("params", {})
        if m["method"] == "Network.requestWillBeSent":
            requests[p["requestId"]] = p["request"]["url"]
            if p["request"].get("postData"):
                bodies[p["requestId"]] = p["request"]["postData"]
        elif m["method"] == "Network.responseReceived":
            responses[p["requestId"]] = p["response"]
        elif m["method"] == "Network.loadingFinished":
            finished[p["requestId"]] = p["encodedDataLength"]
    return requests, responses, finished, bodies
