"""The board's offline basemap: an MBTiles file made by GDAL (gdal_create, gdal_translate -of
MBTILES, gdaladdo) served at /tiles/{z}/{x}/{y} with rows from the north, compared with the file
read here with Python's sqlite3 (rows from the south, as TMS counts them). Then the page in
chromium draws it under the regions: its tiles loaded and decoded, none asked deeper than the
file's maxzoom (scaled up beyond), none outside its bounds."""
import json
import sqlite3
import sys
import time

from webcheck import Board, Checks, arguments, chromium, result


def extra(p):
    p.add_argument("--mbtiles", required=True, help="the MBTiles file the daemon serves")


args = arguments(extra)
board = Board(args)
checks = Checks()
check = checks.check

db = sqlite3.connect(f"file:{args.mbtiles}?mode=ro", uri=True)
stored = db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles").fetchall()
meta = dict(db.execute("SELECT name, value FROM metadata").fetchall())
check(len(stored) >= 3, f"the file holds {len(stored)} tiles")
print(f"{len(stored)} tiles in the file", file=sys.stderr, flush=True)

# Every tile, under both addresses of the first layer, with and without a suffix.
served = 0
for z, col, row, data in stored:
    y = (1 << z) - 1 - row
    for path in (f"/tiles/{z}/{col}/{y}.png", f"/tiles/0/{z}/{col}/{y}"):
        status, h, body = board.request("GET", path)
        ok = status == 200 and h.get("content-type") == "image/png" and body == bytes(data)
        check(ok, f"GET {path}: {status} {h.get('content-type')}, {len(body)} bytes, the file's z {z} column {col} row {row}: {len(data)}")
        served += ok
    etag = h.get("etag")
    status, _, body = board.request("GET", path, headers={"If-None-Match": etag})
    check(status == 304 and body == b"", f"GET {path} with its ETag: {status}")
    check("max-age=604800" in h.get("cache-control", ""), f"a week's cache: {h.get('cache-control')}")

# What the file lacks, what no map asks for, and a layer that is not there.
z, col, row, _ = stored[0]
for path, want in [(f"/tiles/{z}/{col}/{(1 << z) - 1 - row + 1}", 404), ("/tiles/3/0/0", 404), ("/tiles/31/0/0", 400),
                   (f"/tiles/{z}/{1 << z}/0", 400), ("/tiles/2/-1/0", 400), ("/tiles/2/0/zero", 400), ("/tiles/2/0/1.tiff", 400),
                   ("/tiles/1/2/0/0", 404)]:
    status, h, body = board.request("GET", path)
    message = json.loads(body).get("message", "") if h.get("content-type", "").startswith("application/json") else ""
    check(status == want and message, f"GET {path}: {status} {message!r}, not {want} with a message")
status, _, _ = board.request("GET", f"/tiles/{z}/{col}/0", token=False)
check(status == 401, f"a tile without the token: {status}")

# web.json describes the layer from the file's metadata.
status, _, body = board.request("GET", "/api/web.json")
layers = json.loads(body).get("layers")
check(status == 200 and isinstance(layers, list) and len(layers) == 1, f"web.json's layers: {layers}")
if layers:
    layer = layers[0]
    bounds = [float(v) for v in meta["bounds"].split(",")]
    check(layer["name"] == meta["name"] and layer["format"] == "png" and layer["url"].startswith("/tiles/0/{z}/{x}/{y}?v="), f"the layer: {layer}")
    check(layer.get("minzoom") == int(meta["minzoom"]) and layer.get("maxzoom") == int(meta["maxzoom"]), f"zooms: {layer}")
    check(all(abs(a - b) < 1e-6 for a, b in zip(layer.get("bounds", []), bounds)), f"bounds {layer.get('bounds')}, the file's {bounds}")

# The page draws it: at zoom 18 over the file, tiles of zoom 16 (its maxzoom) scaled up.
print("the page, in chromium", file=sys.stderr, flush=True)
driver = chromium(args.cert)
driver.set_page_load_timeout(30)
driver.set_script_timeout(10)
drawn = []
try:
    driver.get(args.url + "?token=" + board.token)
    print("the page loaded", file=sys.stderr, flush=True)
    TILES_JS = """return [...document.querySelectorAll('.leaflet-tile-pane img.leaflet-tile-loaded')]
                  .map((i) => [new URL(i.src).pathname, i.naturalWidth]);"""
    deadline = time.time() + 30
    while time.time() < deadline and not drawn:
        if driver.execute_script("return !!(window.treeline && window.treeline.setMapZoom && window.treeline.position)"):
            driver.execute_script("window.treeline.setMapZoom(18)")
            time.sleep(1.5)
            drawn = driver.execute_script(TILES_JS)
        else:
            time.sleep(0.3)
    check(drawn and all(w == 256 for _, w in drawn), f"the map drew the basemap's tiles: {drawn[:4]}")
    zooms = {int(path.split("/")[3]) for path, _ in drawn}
    check(zooms and max(zooms) <= int(meta["maxzoom"]), f"tiles asked at zooms {sorted(zooms)}, the file's maxzoom {meta['maxzoom']}")
    check(all(path.startswith("/tiles/0/") for path, _ in drawn), f"every tile from the first layer: {drawn[:3]}")
    check(driver.execute_script("return window.treeline.basemaps ? window.treeline.basemaps() : null") == [meta["name"]],
          "the layer named from the file's metadata")
finally:
    driver.quit()
result(tiles_in_file=len(stored), tiles_served=served, layer=layers[0]["name"] if layers else None, tiles_drawn=len(drawn))
checks.done()
