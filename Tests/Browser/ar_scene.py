"""The AR view's scene: regions placed by bearing and distance around a standing point, and an
NMEA log of a receiver that stands there, walks 20 m north, and stands again.

    python3 ar_scene.py OUT_DIR      writes regions.geojson, stand-walk.nmea and scene.json

The regions are chosen for what the AR test looks at: three POIs close together due north (they
stack), two just either side of due south (179° and 181°: the panorama's seam), an area east,
a plant west, and an album 900 m away (beyond a max distance). The observer stands inside the
album "gate" (capture allowed) and outside every plant."""
import json
import math
import os
import sys

LAT, LON = 40.1000000, -8.2400000  # where the receiver stands first
A, F = 6378137.0, 1 / 298.257223563
E2 = F * (2 - F)


def offset(lat, lon, bearing, metres):
    """The point `metres` along `bearing` on the ellipsoid's local tangent (radii of curvature at
    lat): within millimetres of the geodesic for the few hundred metres used here."""
    phi = math.radians(lat)
    w = math.sqrt(1 - E2 * math.sin(phi) ** 2)
    m = A * (1 - E2) / w ** 3          # meridian
    n = A / w                          # prime vertical
    b = math.radians(bearing)
    dlat = metres * math.cos(b) / m
    dlon = metres * math.sin(b) / (n * math.cos(phi))
    return lat + math.degrees(dlat), lon + math.degrees(dlon)


POIS = [
    # id, kind, name, bearing, metres, extra properties
    ("plant-olive", "plant", "Olive by the gate", 2, 30, {"interval_days": 3, "last_watered": "2026-05-01T08:00:00Z", "radius_m": 5}),
    ("album-gate", "album", "Gate", 5, 50, {"radius_m": 80}),
    ("plant-fig", "plant", "Fig tree", 8, 80, {"interval_days": 7, "radius_m": 6}),
    ("plant-seam-west", "plant", "Chestnut south-west", 181, 40, {"interval_days": 5, "last_watered": "2026-05-01T08:00:00Z", "radius_m": 5}),
    ("album-seam-east", "album", "Stone wall", 179, 60, {"radius_m": 10}),
    ("plant-west", "plant", "Walnut", 270, 200, {"interval_days": 10, "radius_m": 8}),
    ("album-far", "album", "Ridge", 30, 900, {"radius_m": 50}),
]
AREA = ("ref-east", "Terrace east", 90, 120, 20)  # id, name, bearing, metres, half side


def feature(pid, kind, name, bearing, metres, extra):
    lat, lon = offset(LAT, LON, bearing, metres)
    props = {"id": pid, "kind": kind, "name": name, **extra}
    return {"type": "Feature", "properties": props, "geometry": {"type": "Point", "coordinates": [round(lon, 8), round(lat, 8)]}}


def area():
    pid, name, bearing, metres, half = AREA
    clat, clon = offset(LAT, LON, bearing, metres)
    ring = []
    for b in (45, 135, 225, 315, 45):
        lat, lon = offset(clat, clon, b, half * math.sqrt(2))
        ring.append([round(lon, 8), round(lat, 8)])
    ring = [ring[0], ring[3], ring[2], ring[1], ring[0]]  # counter-clockwise
    return {"type": "Feature", "properties": {"id": pid, "kind": "reforestation", "name": name,
                                               "species": ["Quercus robur", "Castanea sativa"], "spacing_m": 4},
            "geometry": {"type": "Polygon", "coordinates": [ring]}}


def nmea(body):
    c = 0
    for ch in body.encode():
        c ^= ch
    return f"${body}*{c:02X}"


def dm(value, lat):
    a = abs(value)
    d = int(a)
    m = (a - d) * 60
    if lat:
        return f"{d:02d}{m:08.5f}", "N" if value >= 0 else "S"
    return f"{d:03d}{m:08.5f}", "E" if value >= 0 else "W"


def epoch(t, lat, lon, speed_ms, course):
    hh, mm, ss = t // 3600, (t // 60) % 60, t % 60
    stamp = f"{hh:02d}{mm:02d}{ss:02d}.00"
    la, ns = dm(lat, True)
    lo, ew = dm(lon, False)
    knots = speed_ms / 0.514444
    return [
        nmea(f"GPRMC,{stamp},A,{la},{ns},{lo},{ew},{knots:.3f},{course:.2f},150526,,,A"),
        nmea(f"GPGGA,{stamp},{la},{ns},{lo},{ew},1,11,0.90,210.0,M,50.9,M,,"),
        nmea("GPGSA,A,3,02,05,07,09,13,15,18,20,24,27,29,,1.40,0.90,1.10"),
    ]


STAND, WALK, STAND_AFTER = 60, 20, 60  # epochs (1 Hz); the walk is 1 m a second due north


def log():
    lines = []
    t = 9 * 3600
    for _ in range(STAND):
        lines += epoch(t, LAT, LON, 0, 0)
        t += 1
    for k in range(1, WALK + 1):
        lat, lon = offset(LAT, LON, 0, k)
        lines += epoch(t, lat, lon, 1.0, 0)
        t += 1
    lat, lon = offset(LAT, LON, 0, WALK)
    for _ in range(STAND_AFTER):
        lines += epoch(t, lat, lon, 0, 0)
        t += 1
    return lines


def main(out):
    os.makedirs(out, exist_ok=True)
    features = [feature(*p) for p in POIS] + [area()]
    with open(os.path.join(out, "regions.geojson"), "w") as f:
        json.dump({"type": "FeatureCollection", "features": features}, f, indent=1)
    lines = log()
    with open(os.path.join(out, "stand-walk.nmea"), "w") as f:
        f.write("\r\n".join(lines) + "\r\n")
    end = 9 * 3600 + STAND + WALK + STAND_AFTER - 1
    scene = {"at": [LAT, LON], "lines_per_epoch": 3, "stand_lines": 3 * STAND, "walk_m": WALK,
             "last_fix": f"2026-05-15T{end // 3600:02d}:{(end // 60) % 60:02d}:{end % 60:02d}.000Z",
             "pois": {p[0]: {"bearing": p[3], "metres": p[4], "kind": p[1], "name": p[2]} for p in POIS}}
    with open(os.path.join(out, "scene.json"), "w") as f:
        json.dump(scene, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: ar_scene.py OUT_DIR")
    main(sys.argv[1])
