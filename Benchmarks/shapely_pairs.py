#!/usr/bin/env python3
"""shapely_pairs.py FENCES POINTS OURS_PAIRS

Compares Treeline's (point, fence) pairs (treeline-bench fences --pairs OUT: "point region" per
line, region = feature index) with shapely's, computed exactly as Benchmarks/baselines/bench_geofence.py
does (UTM 29N, circles buffered to 32-gons, STRtree bulk 'within'), and explains the differences:
a circle pair whose point lies between the inscribed 32-gon and the true (geodesic) circle is the
32-gon's doing; one just outside the true circle, within UTM's 0.04 % scale error, is the
projection's. Prints one JSON line.
"""
import json
import math
import sys

import numpy as np
import pyproj
import shapely
from shapely import STRtree


def main():
    fences_path, points_path, ours_path = sys.argv[1:4]
    with open(fences_path) as f:
        feats = json.load(f)["features"]
    tr = pyproj.Transformer.from_crs("EPSG:4326", "EPSG:32629", always_xy=True)
    poly_idx = [i for i, ft in enumerate(feats) if ft["geometry"]["type"] == "Polygon"]
    circ_idx = [i for i, ft in enumerate(feats) if ft["geometry"]["type"] == "Point"]
    polys = np.array([shapely.Polygon(feats[i]["geometry"]["coordinates"][0], feats[i]["geometry"]["coordinates"][1:])
                      for i in poly_idx], dtype=object)
    polys = shapely.transform(polys, lambda x, y: tr.transform(x, y), interleaved=False)
    cxy = np.array([feats[i]["geometry"]["coordinates"] for i in circ_idx], dtype=float).reshape(-1, 2)
    radius = np.array([feats[i]["properties"]["radius_m"] for i in circ_idx], dtype=float)
    cx, cy = tr.transform(cxy[:, 0], cxy[:, 1])
    circles = shapely.buffer(shapely.points(cx, cy), radius, quad_segs=8)
    fences = np.concatenate([polys, circles])
    feature_of = np.array(poly_idx + circ_idx, dtype=np.int64)

    ll = np.loadtxt(points_path, delimiter=",", ndmin=2)
    lat, lon = ll[:, 0], ll[:, 1]
    x, y = tr.transform(lon, lat)
    res = STRtree(fences).query(shapely.points(x, y), predicate="within")
    K = len(feats)
    theirs = np.unique(res[0].astype(np.int64) * K + feature_of[res[1]])
    ours_raw = np.loadtxt(ours_path, dtype=np.int64, ndmin=2)
    ours = np.unique(ours_raw[:, 0] * K + ours_raw[:, 1]) if ours_raw.size else np.array([], dtype=np.int64)
    only_ours = np.setdiff1d(ours, theirs, assume_unique=True)
    only_theirs = np.setdiff1d(theirs, ours, assume_unique=True)

    # Explain: circle pairs with the point between the 32-gon (r cos(pi/32) at its edges' middles)
    # and the true circle of radius r (geodesic, WGS84).
    geod = pyproj.Geod(ellps="WGS84")
    is_circle = np.zeros(K, dtype=bool)
    is_circle[circ_idx] = True
    rad_of = np.zeros(K)
    rad_of[circ_idx] = radius
    centre = np.zeros((K, 2))
    centre[circ_idx] = cxy

    def explain(pairs):
        p, f = pairs // K, pairs % K
        circ = is_circle[f]
        d = np.full(len(pairs), np.nan)
        if circ.any():
            _, _, d[circ] = geod.inv(centre[f[circ], 0], centre[f[circ], 1], lon[p[circ]], lat[p[circ]])
        r = rad_of[f]
        in_ring = circ & (d <= r + 1e-6) & (d >= r * math.cos(math.pi / 32) - 0.05)
        # UTM 29N's scale factor is 0.9996 on its central meridian (9 W, through Lisbon): a buffer
        # of r projected metres reaches r / 0.9996 true metres, 0.04 % beyond the true circle.
        utm_scale = circ & (d > r) & (d <= r / 0.9996 + 0.05)
        return int(in_ring.sum()), int((~circ).sum()), int((circ & ~in_ring & ~utm_scale).sum()), int(utm_scale.sum())

    o_ring, o_poly, o_other, _ = explain(only_ours)
    t_ring, t_poly, t_other, t_scale = explain(only_theirs)
    print(json.dumps({
        "K": K, "points": len(lat), "pairs_treeline": int(len(ours)), "pairs_shapely": int(len(theirs)),
        "only_treeline": int(len(only_ours)), "only_shapely": int(len(only_theirs)),
        "only_treeline_circle_outside_32gon": o_ring, "only_treeline_polygon": o_poly, "only_treeline_other_circle": o_other,
        "only_shapely_circle_utm_scale": t_scale, "only_shapely_circle_other": t_ring + t_other,
        "only_shapely_polygon": t_poly,
    }))


if __name__ == "__main__":
    main()
