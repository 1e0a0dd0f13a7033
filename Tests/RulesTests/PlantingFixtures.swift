import Foundation
import Geo
@testable import Rules
import TestSupport
import Regions

/// Areas, species and independent checks for the planting planner's tests. Everything is
/// measured on the ellipsoid with Karney's geodesics (PROJ), never in the planner's plane.
enum PlantingFixtures {
    static let geodesic = Geodesic.wgs84

    /// Places on Earth to plant at: mid and high latitudes, both hemispheres, the equator, the
    /// antimeridian.
    static let places: [(name: String, center: Coordinate)] = [
        ("Lisbon", Coordinate(latitude: 38.72, longitude: -9.14)),
        ("Helsinki, 60°N", Coordinate(latitude: 60.17, longitude: 24.94)),
        ("Tromsø, 69.6°N", Coordinate(latitude: 69.65, longitude: 18.96)),
        ("Cape Town", Coordinate(latitude: -33.92, longitude: 18.42)),
        ("Quito, on the equator", Coordinate(latitude: -0.18, longitude: -78.47)),
        ("Fiji, on the antimeridian", Coordinate(latitude: -17.0, longitude: 179.9995)),
    ]

    static func species(_ spacing: Double) -> Species {
        Species(latin: "Testus \(spacing)", common: "test", spacing: spacing, minHeight: 1, maxHeight: 2)
    }

    /// The point `east` and `north` metres from `c` (along a geodesic).
    static func offset(_ c: Coordinate, east: Double, north: Double) -> Coordinate {
        let d = (east * east + north * north).squareRoot()
        guard d > 0 else { return c }
        return geodesic.direct(from: c, bearing: atan2(east, north) * 180 / .pi, distance: d)
    }

    /// A rectangle's ring, corners `east`/`north` metres from `c`.
    static func rectangle(_ c: Coordinate, west: Double, south: Double, east: Double, north: Double) -> [Coordinate] {
        [offset(c, east: west, north: south), offset(c, east: east, north: south),
         offset(c, east: east, north: north), offset(c, east: west, north: north)]
    }

    /// A star-shaped (generally concave) ring of `n` vertices around `c`, radii in [lo, hi] metres,
    /// bearings jittered but increasing, so it is simple.
    static func star(_ c: Coordinate, n: Int, lo: Double, hi: Double, rng: inout SplitMix64) -> [Coordinate] {
        (0..<n).map { k in
            let bearing = 360.0 * (Double(k) + rng.uniform(-0.3, 0.3)) / Double(n)
            return geodesic.direct(from: c, bearing: bearing, distance: rng.uniform(lo, hi))
        }
    }

    /// A random polygon of about `scale` metres radius around `c`: a concave star of 8–16 vertices
    /// (radii 0.5–1 × scale) with `holes` star-shaped holes (radii 0.05–0.15 × scale, 0.22 × scale
    /// from the centre, on opposite sides), which stay clear of the outer ring and of each other.
    static func polygon(_ c: Coordinate, scale: Double, holes: Int, rng: inout SplitMix64) -> [[Coordinate]] {
        var rings = [star(c, n: 8 + Int(rng.next() % 9), lo: 0.5 * scale, hi: scale, rng: &rng)]
        let bearing = rng.uniform(0, 360)
        for h in 0..<holes {
            let hc = geodesic.direct(from: c, bearing: bearing + 180 * Double(h), distance: 0.22 * scale)
            rings.append(star(hc, n: 5 + Int(rng.next() % 4), lo: 0.05 * scale, hi: 0.15 * scale, rng: &rng))
        }
        return rings
    }

    /// A random area: one polygon, or (one time in three) two parts, the second either just
    /// beside the first (closer than any spacing) or far away.
    static func area(_ c: Coordinate, scale: Double, rng: inout SplitMix64) -> [[[Coordinate]]] {
        let first = polygon(c, scale: scale, holes: Int(rng.next() % 3), rng: &rng)
        guard rng.next() % 3 == 0 else { return [first] }
        // Beside: the first part reaches at most `scale` east; the second's rectangle starts 0.5 m beyond.
        let beside = rng.next() % 2 == 0
        let c2 = offset(c, east: beside ? scale + 0.5 : 3000, north: 0)
        return [first, [rectangle(c2, west: 0, south: -0.4 * scale, east: 0.5 * scale, north: 0.4 * scale)]]
    }

    static func reforestation(_ parts: [[[Coordinate]]], id: String = "area") -> Region {
        Region(id: id, kind: .reforestation, name: id, shape: .polygons(Polygons(parts)), species: [])
    }

    /// A random point inside region 0 of `set` (within `scale` of `c`), or nil after many tries.
    static func pointInside(_ set: RegionSet, _ c: Coordinate, scale: Double, margin: Double = 0, rng: inout SplitMix64) -> Coordinate? {
        for _ in 0..<500 {
            let p = offset(c, east: rng.uniform(-scale, scale), north: rng.uniform(-scale, scale))
            if set.contains(0, p), set.signedDistance(0, p) >= margin { return p }
        }
        return nil
    }

    /// Independent inside test: inside some part's outer ring, in none of its holes, each ring
    /// a fence of its own (so the area's hole handling is not what is tested against).
    struct RingCheck {
        let outers: RegionSet
        let holes: RegionSet

        init(_ parts: [[[Coordinate]]]) {
            outers = RegionSet(parts.enumerated().map { k, rings in
                Region(id: "outer\(k)", kind: .album, name: "", shape: .polygons([[rings[0]]]))
            })
            holes = RegionSet(parts.flatMap { $0.dropFirst() }.enumerated().map { k, ring in
                Region(id: "hole\(k)", kind: .album, name: "", shape: .polygons([[ring]]))
            })
        }

        func isInside(_ p: Coordinate) -> Bool { !outers.containing(p).isEmpty && holes.containing(p).isEmpty }
    }

    /// Pairs of `a` (or of `a` with `b`) nearer than `limit` on the ellipsoid, with their distance:
    /// a sweep along ECEF x with the chord (never longer than the geodesic) as a filter, Karney
    /// for the rest.
    static func pairsCloserThan(_ limit: Double, _ a: [Coordinate], _ b: [Coordinate]? = nil) -> [(Int, Int, Double)] {
        let pa = a.map(ECEF.init), pb = (b ?? a).map(ECEF.init)
        let order = pb.indices.sorted { pb[$0].x < pb[$1].x }
        let xs = order.map { pb[$0].x }
        var out: [(Int, Int, Double)] = []
        for (i, p) in pa.enumerated() {
            // First index in `order` with x ≥ p.x − limit.
            var lo = 0, hi = xs.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if xs[mid] < p.x - limit { lo = mid + 1 } else { hi = mid }
            }
            var k = lo
            while k < xs.count, xs[k] <= p.x + limit {
                let j = order[k]
                k += 1
                if b == nil, j <= i { continue }
                guard p.distance(to: pb[j]) < limit else { continue }
                let d = geodesic.distance(a[i], (b ?? a)[j])
                if d < limit { out.append((i, j, d)) }
            }
        }
        return out
    }

    /// The smallest geodesic distance between two points of `a` (brute force over chord-near pairs).
    static func smallestGap(_ a: [Coordinate], below limit: Double) -> Double {
        pairsCloserThan(limit, a).map(\.2).min() ?? .infinity
    }

    /// The geodesic distance from `p` to the nearest of `trees`.
    static func nearest(_ p: Coordinate, _ trees: [Coordinate]) -> Double {
        let pp = ECEF(p)
        var best = Double.infinity, bestChord = Double.infinity
        for t in trees {
            let c = pp.distance(to: ECEF(t))
            if c < bestChord + 1 { bestChord = min(bestChord, c); best = min(best, geodesic.distance(p, t)) }
        }
        return best
    }
}
