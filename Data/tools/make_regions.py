#!/usr/bin/env python3
"""make_regions.py

Writes the sample regions around Data/walk.nmea (a forest plot near Lousã, Portugal):
  Data/regions.geojson             plants, albums and a reforestation area with a hole (WGS84)
  Data/regions-pt-tm06.geojson     a reforestation area drawn in EPSG:3763 (PT-TM06/ETRS89),
                                   as Portuguese forestry maps are; converted with PROJ's cs2cs
Shapes are written in metres east/north of the walk's start (40.1000 N, 8.2400 W) and converted
with the WGS84 ellipsoid's radii of curvature there (exact to millimetres at this size).
The cork oak seedling's circle (9 m) is centred on the midpoint of the two fixes of the walk's
dash nearest (80, 420): the path between them runs through its centre, 9 m deep, while each fix
is only about 6 m inside (not evidence at the default margin of 5 m + the fix's error), so the
monitor must find the pass between fixes. Run make_walk.py first.
Needs cs2cs (Debian proj-bin). Deterministic.
"""
import json
import math
import subprocess

LAT0, LON0 = 40.1000, -8.2400
A, F = 6378137.0, 1 / 298.257223563
E2 = F * (2 - F)
_s = math.sin(math.radians(LAT0))
M_PER_DEG_LAT = A * (1 - E2) / (1 - E2 * _s * _s) ** 1.5 * math.pi / 180
M_PER_DEG_LON = A / math.sqrt(1 - E2 * _s * _s) * math.cos(math.radians(LAT0)) * math.pi / 180


def lonlat(e, n):
    return [round(LON0 + e / M_PER_DEG_LON, 7), round(LAT0 + n / M_PER_DEG_LAT, 7)]


def ring(points):
    pts = [lonlat(e, n) for e, n in points]
    return pts + [pts[0]]


def circle_ring(ce, cn, r, k=24, reverse=False):
    pts = [(ce + r * math.cos(2 * math.pi * i / k), cn + r * math.sin(2 * math.pi * i / k)) for i in range(k)]
    if reverse:
        pts.reverse()
    return ring(pts)


def walk_positions(path="Data/walk.nmea"):
    """(east, north) metres of each GGA fix in the walk, in order."""
    out = []
    for line in open(path):
        f = line.split(",")
        if not f[0].endswith("GGA") or f[6] == "0":
            continue
        lat = int(f[2][:2]) + float(f[2][2:]) / 60
        lon = -(int(f[4][:3]) + float(f[4][3:]) / 60)
        out.append(((lon - LON0) * M_PER_DEG_LON, (lat - LAT0) * M_PER_DEG_LAT))
    return out


def dash_midpoint(target=(80, 420)):
    """The midpoint of the consecutive fixes farther apart than 4 m (the dash) nearest `target`."""
    p = walk_positions()
    pairs = [(p[i], p[i + 1]) for i in range(len(p) - 1) if math.dist(p[i], p[i + 1]) > 4]
    a, b = min(pairs, key=lambda ab: math.dist(((ab[0][0] + ab[1][0]) / 2, (ab[0][1] + ab[1][1]) / 2), target))
    return (a[0] + b[0]) / 2, (a[1] + b[1]) / 2


def feature(props, geometry):
    return {"type": "Feature", "properties": props, "geometry": geometry}


def main():
    seedling = dash_midpoint()
    features = [
        feature({"id": "ref-encosta", "kind": "reforestation", "name": "Encosta do Castelo",
                 "species": ["Quercus robur", "Castanea sativa", "Arbutus unedo", "Pinus pinaster"]},
                {"type": "Polygon", "coordinates": [
                    ring([(190, 100), (420, 110), (440, 260), (400, 380), (230, 360), (180, 220)]),
                    circle_ring(300, 220, 30, reverse=True)]}),  # a rock outcrop: nothing planted
        feature({"id": "plant-carvalho", "kind": "plant", "name": "Young oak by the path",
                 "interval_days": 7, "last_watered": "2026-04-20T08:00:00Z", "radius_m": 20},
                {"type": "Point", "coordinates": lonlat(120, 460)}),
        feature({"id": "plant-medronheiro", "kind": "plant", "name": "Strawberry tree",
                 "interval_days": 14, "last_watered": "2026-04-28T17:30:00Z", "radius_m": 15},
                {"type": "Point", "coordinates": lonlat(250, 420)}),
        feature({"id": "plant-sobreiro", "kind": "plant", "name": "Cork oak seedling",
                 "interval_days": 3, "last_watered": "2026-04-25T09:00:00Z", "radius_m": 9},
                {"type": "Point", "coordinates": lonlat(*seedling)}),
        feature({"id": "album-miradouro", "kind": "album", "name": "Viewpoint", "radius_m": 60},
                {"type": "Point", "coordinates": lonlat(330, 320)}),
        feature({"id": "album-ribeira", "kind": "album", "name": "Stream crossing"},
                {"type": "Point", "coordinates": lonlat(-130, 120)}),
    ]
    with open("Data/regions.geojson", "w") as f:
        json.dump({"type": "FeatureCollection", "features": features}, f, indent=1)
        f.write("\n")

    # The second reforestation area, drawn in EPSG:3763.
    corners = [(-190, 150), (-40, 170), (-20, 330), (-120, 360), (-200, 280)]
    geo = [lonlat(e, n) for e, n in corners]
    text = "".join("%.9f %.9f\n" % (lon, lat) for lon, lat in geo)
    out = subprocess.run(["cs2cs", "-f", "%.3f", "EPSG:4326", "EPSG:3763"], input="".join(
        "%.9f %.9f\n" % (lat, lon) for lon, lat in geo), capture_output=True, text=True, check=True).stdout
    xy = [[float(v) for v in line.split()[:2]] for line in out.strip().splitlines()]
    xy.append(xy[0])
    pt = {"type": "FeatureCollection", "crs": "EPSG:3763", "features": [
        feature({"id": "ref-vale", "kind": "reforestation", "name": "Vale da Ribeira (PT-TM06)",
                 "species": ["Alnus glutinosa", "Fraxinus angustifolia", "Salix atrocinerea"]},
                {"type": "Polygon", "coordinates": [xy]})]}
    with open("Data/regions-pt-tm06.geojson", "w") as f:
        json.dump(pt, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
