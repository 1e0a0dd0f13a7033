"""The HTTP API is the socket's protocol behind a token, over TLS with the board's certificate.

Run by WebTests after the walk has ended (the journal holds the regions files' record and the walk's 28 events: 29)."""
import gzip
import json
import os
import socket
import ssl
import subprocess
import tempfile

from webcheck import Board, Checks, arguments, result

args = arguments()
board = Board(args)
checks = Checks()
check = checks.check

# --- Without the token: 401 and nothing else, on every path and method.
paths = ["/", "/index.html", "/app.js", "/style.css", "/leaflet/leaflet.js", "/leaflet/leaflet.css",
         "/leaflet/images/marker-icon.png", "/api", "/api/events", "/api/events?since=0", "/api/regions.geojson",
         "/api/trees.geojson", "/api/track.geojson", "/api/web.json", "/api/photos/x.jpg", "/no/such/path",
         "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd"]
attempts = []
for p in paths:
    attempts.append(("GET", p, None, {}))
    attempts.append(("GET", p, None, {"Authorization": "Bearer not-the-token-at-all-0000000000"}))
    attempts.append(("GET", p, None, {"Cookie": "treeline_token=wrong"}))
attempts.append(("POST", "/api", b'{"cmd":"state"}', {}))
attempts.append(("POST", "/api", b'{"cmd":"water","plant":"plant-sobreiro"}', {"Authorization": "Basic dXNlcjpwYXNz"}))
attempts.append(("POST", "/api/captures?album=album-ribeira", b"\xff\xd8\xff\xe0", {}))
attempts.append(("GET", "/?token=wrong", None, {}))
attempts.append(("DELETE", "/api", None, {}))
for method, path, body, headers in attempts:
    status, h, data = board.request(method, path, body=body, headers=headers, token=False)
    ok = status == 401 and h.get("content-type") == "application/json" and json.loads(data).get("class") == "ERROR"
    check(ok, f"{method} {path} {headers} without the token: {status} {data[:120]!r}")
    check("set-cookie" not in h, f"{method} {path}: a cookie was set without the token")
result(unauthorized_paths=len(attempts))
seq_before = json.loads(board.ask('{"cmd":"state"}'))["seq"]
check(seq_before == 29, f"the files' record and the walk's 28 events before the checks (29), not {seq_before}")

# The token in the address: a cookie (HttpOnly, Secure, SameSite=Strict) and a redirect that
# drops the token; the cookie alone then opens the page.
status, h, _ = board.request("GET", "/?token=" + board.token + "&view=plants", token=False)
cookie = h.get("set-cookie", "")
check(status == 303 and h.get("location") == "/?view=plants", f"/?token=…: {status} to {h.get('location')}")
check(all(a in cookie for a in ("HttpOnly", "Secure", "SameSite=Lax")), f"the cookie's attributes: {cookie}")
for path, location in [("//evil.example/?token=", "/"), ("/?view=a%0d%0aSet-Cookie:%20x=1&token=", "/?view=a%0D%0ASet-Cookie:%20x%3D1")]:
    status, h, _ = board.request("GET", path + board.token, token=False)
    check(status == 303 and h.get("location") == location, f"{path}…: redirected to {h.get('location')!r}, not {location!r} (another site, or a header from the query)")
status, h, body = board.request("GET", "/", headers={"Cookie": cookie.split(";")[0]}, token=False)
check(status == 200 and h.get("content-type", "").startswith("text/html") and b"<html" in body.lower(), f"/ with the cookie: {status}")
check("default-src 'self'" in h.get("content-security-policy", ""), "the page's content security policy")
status, h, _ = board.request("GET", "/leaflet/leaflet.js")
check(status == 200 and "javascript" in h.get("content-type", ""), f"Debian's Leaflet at /leaflet/leaflet.js: {status}")

# --- The page's files from memory, in the smallest encoding the client takes: Debian's own
# brotli and gzip copies of Leaflet, the app's files gzipped once at start; the same bytes back.
web_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "web")


def only_comment_lines_dropped(text, served):
    """Whether `served` is `text`'s lines in order, less some that are comments."""
    kept = served.split("\n")
    k, in_block = 0, False
    for line in text.split("\n"):
        if k < len(kept) and kept[k] == line:
            k += 1
            continue
        t = line.strip()
        if not (in_block or t.startswith("//") or t.startswith("/*")):
            return False
        in_block = (in_block or t.startswith("/*")) and not t.endswith("*/")
    return k == len(kept)


leaflet_dir = "/usr/share/javascript/leaflet"
encoded = {}
for path, disk, accept, want in [
        ("/leaflet/leaflet.min.js", f"{leaflet_dir}/leaflet.min.js", "gzip, deflate, br, zstd", "br"),
        ("/leaflet/leaflet.min.js", f"{leaflet_dir}/leaflet.min.js", "gzip", "gzip"),
        ("/leaflet/leaflet.min.js", f"{leaflet_dir}/leaflet.min.js", None, None),
        ("/js/ar/main.js", f"{web_dir}/js/ar/main.js", "gzip, deflate, br", "gzip"),
        ("/style.css", f"{web_dir}/style.css", "gzip", "gzip"),
        ("/", f"{web_dir}/index.html", "gzip", "gzip")]:
    status, h, body = board.request("GET", path, headers={"Accept-Encoding": accept} if accept else {})
    original = open(disk, "rb").read()
    coding = h.get("content-encoding")
    check(status == 200 and coding == want, f"GET {path} taking {accept}: {status}, Content-Encoding {coding}, not {want}")
    if disk.startswith(web_dir) and disk.endswith((".js", ".css")):
        # The page's scripts and stylesheets come without their comment lines, the same
        # bytes in every encoding.
        _, _, plain = board.request("GET", path)
        check(only_comment_lines_dropped(original.decode(), plain.decode()), f"GET {path}: {disk} less comment lines, and only those")
        check(len(plain) < len(original), f"GET {path}: {len(plain)} bytes, {disk} {len(original)}")
        original = plain
    if coding == "gzip":
        check(gzip.decompress(body) == original, f"GET {path}: the gzip decodes to {disk}")
    elif coding == "br":
        check(body == open(disk + ".brotli", "rb").read(), f"GET {path}: Debian's brotli copy of {disk}")
    else:
        check(body == original, f"GET {path}: the bytes of {disk}")
    check(h.get("vary") == "Accept-Encoding" and h.get("etag") and h.get("cache-control") == "no-cache",
          f"GET {path}: Vary {h.get('vary')}, ETag {h.get('etag')}, Cache-Control {h.get('cache-control')}")
    encoded[f"{path} {want}"] = len(body)
    # Asked again with its ETag: 304 and nothing more; HEAD: the length, no body.
    status, h304, body304 = board.request("GET", path, headers={**({"Accept-Encoding": accept} if accept else {}), "If-None-Match": h.get("etag", "")})
    check(status == 304 and body304 == b"", f"GET {path} with its ETag: {status}, {len(body304)} bytes")
    status, hh, bh = board.request("HEAD", path, headers={"Accept-Encoding": accept} if accept else {})
    check(status == 200 and bh == b"" and hh.get("content-length") == str(len(body)), f"HEAD {path}: {status}, length {hh.get('content-length')} for {len(body)}")
result(encoded_bytes=encoded)

# --- TLS: the certificate presented is the one the daemon wrote, pinned; it names the board.
with socket.create_connection((board.host, board.port)) as raw:
    with board.context.wrap_socket(raw, server_hostname=board.host) as tls:
        presented = tls.getpeercert(binary_form=True)
        names = tls.getpeercert().get("subjectAltName", ())
pinned = ssl.PEM_cert_to_DER_cert(open(args.cert).read())
check(presented == pinned, "the certificate presented is the one in web-cert.pem")
dns = {v for k, v in names if k == "DNS"}
ips = {v for k, v in names if k == "IP Address"}
hostname = socket.gethostname()
check({"localhost", hostname}.issubset(dns), f"the certificate's names {sorted(dns)} include localhost and {hostname}")
check("127.0.0.1" in ips, f"the certificate's addresses {sorted(ips)} include 127.0.0.1")
try:
    with socket.create_connection((board.host, board.port)) as raw:
        ssl.create_default_context().wrap_socket(raw, server_hostname=board.host)
    check(False, "a client trusting only the system's CAs accepted the self-signed certificate")
except ssl.SSLCertVerificationError:
    pass
with socket.create_connection(("127.0.0.1", board.port)) as raw:
    with board.context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
        check(tls.version() in ("TLSv1.2", "TLSv1.3"), f"TLS version {tls.version()}")
result(certificate_names=sorted(dns), certificate_addresses=sorted(ips))

# --- One protocol: POST /api answers byte for byte what the socket answers.
parity = [
    '{"cmd":"state"}', '{"cmd":"regions"}', '{"cmd":"regions","geometry":true}', '{"cmd":"export"}',
    '{"cmd":"can_plant","species":"Quercus robur","at":[40.1021,-8.2365]}',
    '{"cmd":"can_plant","species":"Quercus robur"}',
    '{"cmd":"plan","area":"ref-encosta","species":"Quercus robur","count":5,"at":[40.1021,-8.2360],"seed":3}',
    '{"cmd":"trees"}', '{"cmd":"captures"}', '{"cmd":"track"}', '{"cmd":"species","query":"oak"}', '{"cmd":"species"}',
    # Layouts that succeed: from a point, and at the last fix (the walk's end).
    '{"cmd":"layout","at":[40.1005,-8.2405],"heading":45,"fov":[60,45],"screen":[1280,720],"offset":"automatic"}',
    '{"cmd":"layout","heading":90,"pitch":5,"fov":[60,45],"screen":[360,740],"box":[90,36],"max_visible":4,"projection":"pinhole"}',
    '{"cmd":"layout","panorama":true,"fov":[60,45],"screen":[360,740]}',
    '{"cmd":"round","kind":"plant"}', '{"cmd":"round","regions":["album-ribeira","plant-carvalho","ref-vale"],"at":[40.1005,-8.2405]}',
    '{"cmd":"trails"}',
    # Refusals: the same message, 400 for what does not parse, 422 for what the daemon refuses.
    'not json', '[1,2]', '{"cmd":"nope"}', '{"cmd":"water"}', '{"cmd":"water","plant":"no-such-plant"}',
    '{"cmd":"add_region","kind":"tree"}', '{"cmd":"remove_region","region":"plant-carvalho"}',
    '{"cmd":"plan","area":"ref-encosta","species":"Quercus robur","count":0}', '{"cmd":"state","extra":1}',
    '{"cmd":"capture","album":"album-miradouro"}',
    '{"cmd":"round"}', '{"cmd":"round","regions":["nope"]}', '{"cmd":"start_trail","trail":"nope"}',
]
answered = parity[:parity.index("not json")]  # the lines above the refusals: each must succeed
for line in parity:
    by_socket = board.ask(line)
    if line in answered:
        check(json.loads(by_socket).get("class") != "ERROR", f"{line} succeeds over the socket: {by_socket[:300]}")
    status, h, body = board.api(line)
    text = body.decode()
    refused = json.loads(by_socket).get("class") == "ERROR"
    want = (400, 422) if refused else (200,)
    check(status in want and h.get("content-type") == "application/json", f"POST /api {line}: status {status}")
    check(text == by_socket, f"POST /api {line}: {text[:300]} ≠ the socket's {by_socket[:300]}")
# The layouts' answers are layouts: the regions in force, laid out (not an error that matches).
for line in [l for l in answered if '"layout"' in l]:
    o = json.loads(board.api(line)[2])
    kind = "PANORAMA" if '"panorama":true' in line else "LAYOUT"
    check(o.get("class") == kind and isinstance(o.get("lat"), float), f"POST /api {line}: a {kind}: {str(o)[:300]}")
    if kind == "LAYOUT":
        check(o.get("pois") == 7 and 1 <= len(o.get("items", [])) <= 7, f"POST /api {line}: the 7 regions laid out: {str(o)[:300]}")
check(board.api('{"cmd":"nope"}')[0] == 400 and board.api('{"cmd":"water","plant":"no-such-plant"}')[0] == 422, "400 for bad requests, 422 for refusals")
status, _, body = board.api('{"cmd":"subscribe","since":0}')
check(status == 400 and b"/api/events" in body, f"subscribe over POST says to use /api/events: {status} {body[:200]!r}")
result(parity_commands=len(parity))

# A change over HTTP is the daemon's: the region is in the socket's list, and goes again.
status, _, body = board.api({"cmd": "add_region", "kind": "album", "name": "From the web", "radius_m": 40, "at": [40.1, -8.24]})
added = json.loads(body)
check(status == 200 and added.get("type") == "region_added" and added.get("seq") == 30, f"add_region over HTTP: {status} {body[:200]!r}")
ids = [r["id"] for r in json.loads(board.ask('{"cmd":"regions"}'))["regions"]]
check(added.get("region") in ids, f"the region added over HTTP is in the socket's list {ids}")
board.ask(json.dumps({"cmd": "remove_region", "region": added.get("region")}))

# --- Server-Sent Events: the socket's subscription, resumed by Last-Event-ID.
the_state = json.loads(board.ask('{"cmd":"state"}'))
last, journal_name = the_state["seq"], the_state.get("journal")
socket_lines = board.subscribe('{"cmd":"subscribe","since":0}', until_seq=last)
status, sse = board.events("since=0", until_seq=last)
check(status == 200, f"GET /api/events?since=0: {status}")
if status == 200:
    check([d for _, _, d in sse] == socket_lines, f"SSE since=0 ({len(sse)} messages) equals the socket's {len(socket_lines)} lines")
    check([i for i, _, d in sse if json.loads(d).get("class") == "EVENT"] == [str(n) for n in range(1, last + 1)], "each event's id: is its seq")
status, resumed = board.events("since=0", headers={"Last-Event-ID": "20"}, until_seq=last)
if check(status == 200, f"resume: {status}"):
    seqs = [json.loads(d)["seq"] for _, _, d in resumed if json.loads(d).get("class") == "EVENT"]
    check(json.loads(resumed[0][2]) == {"class": "SUBSCRIBED", "since": 20, "journal": journal_name}, f"Last-Event-ID 20 wins over since=0: {resumed[0]}")
    check(seqs == list(range(21, last + 1)), f"resumed after 20: {seqs}")
# The journal named: taken when it is the board's (as the page's own resumes are), refused when
# it is another's, however low its seqs.
status, named = board.events(f"since=0&journal={journal_name}", until_seq=last)
check(status == 200 and [d for _, _, d in named] == socket_lines, f"since=0&journal=<the board's>: {status}")
status, body = board.events("since=0&journal=0123456789abcdef0123456789abcdef")
check(status == 400 and b"this journal is not the one you read before" in body, f"another journal's name: {status} {body[:160]!r}")
# Filtered: the events of the full stream that pass, read to the last one that does.
passing = [l for l in socket_lines[1:] if json.loads(l).get("kind") == "album" and json.loads(l).get("type") in ("enter", "exit")]
until = json.loads(passing[-1])["seq"]
albums = board.subscribe('{"cmd":"subscribe","since":0,"kinds":["album"],"types":["enter","exit"]}', until_seq=until)
status, filtered = board.events("since=0&kinds=album&types=enter,exit", until_seq=until)
check(len(passing) >= 2 and albums[1:] == passing, f"the socket's filtered subscription: {len(albums) - 1} events, {len(passing)} pass the filter")
check(status == 200 and [d for _, _, d in filtered] == albums, "filters as the socket's")
for query, words in [("since=x", "\"since\" must be a whole number"), ("kinds=tree", "unknown 'tree'"),
                     ("since=99999", "after the last event"), ("regions=nowhere", "no region 'nowhere'"), ("colour=red", "unknown query parameter")]:
    status, body = board.events(query)
    check(status == 400 and words in json.loads(body)["message"], f"/api/events?{query}: {status} {body[:200]!r}")

# --- A photo captured outside its album is refused, and not kept on the board.
import os
# A real 1×1 PNG (a bare signature is refused as not a picture before the album is looked at).
png = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c49444154789c63f8cf"
                    "c0000003010100c9fe92ef0000000049454e44ae426082")
status, _, body = board.request("POST", "/api/captures?album=album-miradouro&note=far", body=png, headers={"Content-Type": "image/png"})
answer = json.loads(body)
check((status == 200 and answer.get("recorded") is False) or status == 422, f"a photo outside the album: {status} {body[:200]!r}")
photos = os.path.join(os.path.dirname(args.token_file), "photos")
check(not os.path.isdir(photos) or os.listdir(photos) == [], f"no photo kept after a refused capture: {os.listdir(photos) if os.path.isdir(photos) else []}")

# --- GeoJSON layers: a regions file treeline check accepts; trees; the track.
status, h, body = board.request("GET", "/api/regions.geojson")
check(status == 200 and h.get("content-type") == "application/geo+json", f"regions.geojson: {status}")
with tempfile.NamedTemporaryFile(suffix=".geojson") as f:
    f.write(body)
    f.flush()
    r = subprocess.run([args.treeline, "check", f.name], capture_output=True, text=True)
    check(r.returncode == 0 and "7 regions" in r.stdout, f"treeline check regions.geojson: {r.stdout[:200]} {r.stderr[:200]}")
status, _, body = board.request("GET", "/api/trees.geojson")
check(status == 200 and json.loads(body)["type"] == "FeatureCollection", f"trees.geojson: {status}")
status, _, body = board.request("GET", "/api/track.geojson")
track = json.loads(body) if status == 200 else {}
points = len(track.get("geometry", {}).get("coordinates", []))
check(status == 200 and track.get("geometry", {}).get("type") == "LineString" and points > 100, f"track.geojson: {status}, {points} points")
result(track_points=points)

checks.done()
