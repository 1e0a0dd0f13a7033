"""A hostile page and hostile uploads against the web app, while the walk runs (a capture needs a
fresh fix): paths with a NUL or a backslash, pictures that are pages, a photo served back as
anything but itself, a POST from another port of the same host with the cookie, the 413's
headers, the `/?token=` redirect to another site. Each is refused; the page's own requests and
the bearer token's still work."""
import json
import os
import socket
import stat
import struct
import time
import zlib

from webcheck import Board, Checks, arguments, result

args = arguments()
board = Board(args)
checks = Checks()
check = checks.check
print("READY", flush=True)  # the walk starts now: a fix comes within seconds

own_origin = f"https://{board.host}:{board.port}"
other_origin = f"https://{board.host}:{board.port + 1}"  # another port of the same host
cookie = f"treeline_token={board.token}"


def with_cookie(method, path, body=None, headers=None):
    h = {"Cookie": cookie}
    h.update(headers or {})
    return board.request(method, path, body=body, headers=h, token=False)


def message(data):
    try:
        return json.loads(data).get("message", "")
    except ValueError:
        return ""


def raw(request, read=65536):
    """The reply's bytes to a request written as is (paths http.client would not send)."""
    s = board.context.wrap_socket(socket.create_connection((board.host, board.port), timeout=10), server_hostname=board.host)
    try:
        s.sendall(request)
        reply = b""
        while b"\r\n\r\n" not in reply:
            got = s.recv(read)
            if not got:
                break
            reply += got
        return reply
    except OSError:
        return b""
    finally:
        s.close()


def head_of(reply):
    lines = reply.split(b"\r\n\r\n", 1)[0].decode(errors="replace").split("\r\n")
    try:
        status = int(lines[0].split(" ", 2)[1])
    except (IndexError, ValueError):
        status = 0
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return status, headers


def png(width=2, height=2):
    """A real picture, as Python's zlib makes it."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + b"\x20\x80\x20" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


# --- An album where the walker stands, once there is a fix.
album = None
deadline = time.time() + 90
while album is None and time.time() < deadline:
    status, _, body = board.api({"cmd": "add_region", "kind": "album", "name": "Security album", "radius_m": 2000})
    if status == 200:
        album = json.loads(body)["region"]
    else:
        time.sleep(0.5)
check(album is not None, f"an album added where the walker stands: {status} {body[:200]!r}")


def upload(body, headers=None, how=with_cookie):
    h = {"Content-Type": "image/png", "Origin": own_origin}
    h.update(headers or {})
    return how("POST", f"/api/captures?album={album}", body=body, headers=h)


# --- A real photo is kept, 0600 in a folder 0700, and served back by its name as what it is, in
# a sandbox.
picture = png()
status, _, body = upload(picture)
answer = json.loads(body) if body.startswith(b"{") else {}
check(status == 200 and answer.get("recorded") is not False, f"a real PNG from the page (cookie, own Origin): {status} {body[:200]!r}")
name = os.path.basename(str(answer.get("capture", {}).get("file", "")))
if not name and album:
    for c in json.loads(board.ask(json.dumps({"cmd": "captures", "album": album}))).get("captures", []):
        name = os.path.basename(str(c.get("file") or "")) or name
photos = os.path.join(os.path.dirname(args.token_file), "photos")
if check(name != "", f"the capture names its photo: {answer}"):
    mode = stat.S_IMODE(os.stat(photos).st_mode)
    check(mode == 0o700, f"the photos folder is {oct(mode)}, not 0o700")
    mode = stat.S_IMODE(os.stat(os.path.join(photos, name)).st_mode)
    check(mode == 0o600, f"the photo {name} is {oct(mode)}, not 0o600")
    status, h, data = with_cookie("GET", "/api/photos/" + name)
    check(status == 200 and data == picture, f"GET /api/photos/{name}: {status}, {len(data)} bytes")
    check(h.get("content-type") == "image/png", f"the photo's Content-Type: {h.get('content-type')}")
    check(h.get("content-disposition") == f'inline; filename="{name}"', f"the photo's Content-Disposition: {h.get('content-disposition')}")
    check("sandbox" in h.get("content-security-policy", "").split(";")[0], f"the photo's CSP: {h.get('content-security-policy')}")
    check(h.get("x-content-type-options") == "nosniff", f"the photo's nosniff: {h}")
    # Only that very name: another extension, a NUL, a suffix, a path are not it.
    stem = name.rsplit(".", 1)[0]
    for path, want in [(f"/api/photos/{stem}.html", (404,)), (f"/api/photos/{stem}.gif", (404,)),
                       (f"/api/photos/{name}%00.html", (400,)), (f"/api/photos/{name}%00.js", (400,)),
                       (f"/api/photos/{name}.html", (404,)), (f"/api/photos/{name}/", (404,)),
                       ("/api/photos/../web-token", (400, 404)), ("/api/photos/web-token", (404,)),
                       (f"/api/photos/%2e%2e%2fphotos%2f{name}", (400,)), (f"/api/photos/{name.upper()}", (404,))]:
        status, h, data = with_cookie("GET", path)
        check(status in want and board.token.encode() not in data, f"GET {path}: {status} {h.get('content-type')} {data[:80]!r}, expected {want}")
result(photo=name)

# --- Pictures that are pages, or not whole: 415, nothing kept.
before = sorted(os.listdir(photos)) if os.path.isdir(photos) else []
page = b"<html><script>fetch('/api',{method:'POST',body:'{\"cmd\":\"state\"}'})</script></html>"
for label, data in [("a page behind GIF8", b"GIF8" + page),
                    ("a page behind GIF89a", b"GIF89a" + page),
                    ("ftyp with a bogus brand", b"\x00\x00\x00\x18ftyphtml\x00\x00\x00\x00html" + page),
                    ("ftyp mif1 alone, then a page", b"\x00\x00\x00\x10ftypmif1\x00\x00\x00\x00" + page),
                    ("a PNG signature without IHDR", b"\x89PNG\r\n\x1a\n" + page),
                    ("a JPEG SOI then a page", b"\xff\xd8\xff" + page),
                    ("a WebP whose RIFF size is not the body's", b"RIFF\x00\x10\x00\x00WEBPVP8 " + page),
                    ("a PNG cut in its IHDR", picture[:20])]:
    status, _, body = upload(data)
    check(status == 415 and "JPEG, PNG, WebP" in message(body), f"upload of {label}: {status} {body[:200]!r}")
after = sorted(os.listdir(photos)) if os.path.isdir(photos) else []
check(after == before, f"no file kept from a refused upload: {sorted(set(after) - set(before))}")

# --- Paths with a NUL, a control character, a backslash or an encoded slash: 400 before any file
# is looked up, static files too.
for path in ["/ar/index.html%00.js", "/index.html%00.js", "/app.js%00.html", "/leaflet/leaflet.js%00.html",
             "/api%00", "/api/web.json%0a", "/%5Cweb-token", "/ar%2Findex.html", "/ar%2findex.html", "/a%7f"]:
    status, h, data = with_cookie("GET", path)
    check(status == 400, f"GET {path}: {status} {h.get('content-type')} {data[:80]!r}")
for target in [b"/\\web-token", b"/ar\\index.html", b"/ar/index.html\x00.js"]:
    reply = raw(b"GET " + target + b" HTTP/1.1\r\nHost: localhost\r\nCookie: " + cookie.encode() + b"\r\nConnection: close\r\n\r\n")
    status, h = head_of(reply)
    check(status == 400 or reply == b"", f"GET {target!r} sent raw: {reply[:120]!r}")

# --- POST /api with the cookie: only JSON, and only from this origin.
regions_before = len(json.loads(board.ask('{"cmd":"regions"}'))["regions"])
plant = json.dumps({"cmd": "add_region", "kind": "plant", "name": "planted by another page", "interval_days": 7, "radius_m": 5, "at": [40.1, -8.24]}).encode()
status, _, body = with_cookie("POST", "/api", body=plant, headers={"Content-Type": "text/plain", "Origin": own_origin})
check(status == 415 and "application/json" in message(body), f"text/plain POST /api with the cookie: {status} {body[:200]!r}")
status, _, body = with_cookie("POST", "/api", body=plant, headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": own_origin})
check(status == 415, f"a form's POST /api with the cookie: {status} {body[:200]!r}")
status, _, body = board.request("POST", "/api", body=plant, headers={"Content-Type": "text/plain"})
check(status == 415, f"text/plain POST /api with the bearer token: {status} {body[:200]!r}")
# What a page on another port of the board sends (fetch no-cors, a form): refused whatever the type.
for kind in ["text/plain", "application/json", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]:
    status, _, body = with_cookie("POST", "/api", body=plant, headers={"Content-Type": kind, "Origin": other_origin})
    check(status == 403 and "origin" in message(body).lower(), f"cookie POST /api ({kind}) from {other_origin}: {status} {body[:200]!r}")
for headers in [{"Origin": "null"}, {"Origin": "https://evil.example"}, {"Origin": f"http://{board.host}:{board.port}"},
                {}, {"Sec-Fetch-Site": "same-site"}, {"Sec-Fetch-Site": "cross-site"}]:
    status, _, body = with_cookie("POST", "/api", body=plant, headers={"Content-Type": "application/json", **headers})
    check(status == 403, f"cookie POST /api with {headers}: {status} {body[:200]!r}")
for method in ["PUT", "PATCH", "DELETE"]:
    status, _, body = with_cookie(method, "/api", body=b"{}", headers={"Content-Type": "application/json", "Origin": other_origin})
    check(status == 403, f"cookie {method} /api from {other_origin}: {status} {body[:200]!r}")
status, _, body = upload(picture, headers={"Origin": other_origin})
check(status == 403, f"cookie POST /api/captures from {other_origin}: {status} {body[:200]!r}")
regions_after = len(json.loads(board.ask('{"cmd":"regions"}'))["regions"])
check(regions_after == regions_before, f"no region added by another origin: {regions_before} → {regions_after}")
# This origin's page (Origin sent, or only Sec-Fetch-Site), and the bearer token from anywhere: fine.
state = json.dumps({"cmd": "state"}).encode()
for headers in [{"Origin": own_origin}, {"Origin": own_origin.upper().replace("HTTPS", "https")},
                {"Sec-Fetch-Site": "same-origin"}]:
    status, _, body = with_cookie("POST", "/api", body=state, headers={"Content-Type": "application/json; charset=utf-8", **headers})
    check(status == 200 and json.loads(body).get("class") == "STATE", f"cookie POST /api with {headers}: {status} {body[:200]!r}")
status, _, body = board.request("POST", "/api", body=state, headers={"Content-Type": "application/json", "Origin": other_origin})
check(status == 200, f"bearer POST /api with Origin {other_origin}: {status} {body[:200]!r}")
status, _, body = with_cookie("GET", "/api/web.json", headers={"Origin": other_origin})
check(status == 200, f"cookie GET from another origin (reads are not changes): {status}")

# --- The 413 written below the router carries the security headers too.
reply = raw(f"POST /api HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {board.token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {8 << 20}\r\n\r\n".encode())
status, h = head_of(reply)
check(status == 413, f"an 8 MiB POST /api: {reply[:120]!r}")
for header, want in [("x-content-type-options", "nosniff"), ("referrer-policy", "no-referrer"), ("x-frame-options", "DENY"),
                     ("cache-control", "no-store")]:
    check(h.get(header) == want, f"the 413's {header}: {h.get(header)!r}")
check("default-src 'self'" in h.get("content-security-policy", ""), f"the 413's CSP: {h.get('content-security-policy')!r}")

# --- /?token= sends the browser back to a plain path of this origin, never to another site.
for target in ["/\\evil.example", "/\\\\evil.example", "/%5Cevil.example", "/%20%5Cevil.example", "/%09/evil.example",
               "/%5C%5Cevil.example", "//evil.example", "/.//evil.example"]:
    reply = raw(f"GET {target}?token={board.token} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
    status, h = head_of(reply)
    location = h.get("location")
    check(status == 400 or (status == 303 and location == "/"), f"GET {target}?token=…: {status} Location {location!r}")
reply = raw(f"GET /ar/?token={board.token}&x=1 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
status, h = head_of(reply)
check(status == 303 and h.get("location") == "/ar/?x=1", f"GET /ar/?token=…&x=1: {status} Location {h.get('location')!r}")

checks.done()
