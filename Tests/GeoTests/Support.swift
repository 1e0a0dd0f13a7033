import Foundation
import Geo
import TestSupport
import Regions

/// Runs a command with `input` on stdin and returns stdout; fails the test if it cannot run.
func run(_ tool: String, _ args: [String], input: String) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = [tool] + args
    let inp = Pipe(), out = Pipe()
    p.standardInput = inp
    p.standardOutput = out
    try p.run()
    let writer = Thread { inp.fileHandleForWriting.write(Data(input.utf8)); try? inp.fileHandleForWriting.close() }
    writer.start()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else {
        throw NSError(domain: "treeline-tests", code: Int(p.terminationStatus), userInfo: [
            NSLocalizedDescriptionKey: "\(tool) failed (exit \(p.terminationStatus)); it comes with Debian's proj-bin, which `make deps` installs"])
    }
    return String(decoding: data, as: UTF8.self)
}

/// A FeatureCollection text from feature bodies.
func collection(_ features: [String], crs: String? = nil) -> [UInt8] {
    let head = crs.map { "\"crs\":\"\($0)\"," } ?? ""
    return Array("{\"type\":\"FeatureCollection\",\(head)\"features\":[\(features.joined(separator: ",\n"))]}".utf8)
}

func polygonFeature(_ id: String, _ rings: [[(Double, Double)]], kind: String = "album", extra: String = "") -> String {
    let coords = rings.map { r in "[" + r.map { "[\($0.0),\($0.1)]" }.joined(separator: ",") + "]" }.joined(separator: ",")
    return "{\"type\":\"Feature\",\"properties\":{\"id\":\"\(id)\",\"kind\":\"\(kind)\"\(extra)},\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[\(coords)]}}"
}

func circleFeature(_ id: String, lon: Double, lat: Double, radius: Double?, kind: String = "album", extra: String = "") -> String {
    let r = radius.map { ",\"radius_m\":\($0)" } ?? ""
    return "{\"type\":\"Feature\",\"properties\":{\"id\":\"\(id)\",\"kind\":\"\(kind)\"\(r)\(extra)},\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(lon),\(lat)]}}"
}

/// Closes a ring of (lon, lat) pairs.
func closed(_ r: [(Double, Double)]) -> [(Double, Double)] { r + [r[0]] }

/// A star-shaped ring of `n` vertices around `center`, radii between `lo` and `hi` metres.
func starRing(_ center: Coordinate, n: Int, lo: Double, hi: Double, rng: inout SplitMix64) -> [Coordinate] {
    (0..<n).map { k in
        let bearing = 360.0 * (Double(k) + rng.uniform(-0.3, 0.3)) / Double(n)
        return Geodesic.wgs84.direct(from: center, bearing: bearing, distance: rng.uniform(lo, hi))
    }
}

/// Test fence number `k`: a star of `n` vertices around `centre`, `size` metres across; every
/// third with a hole, every seventh with a second part three sizes away.
func starPolygon(_ k: Int, _ centre: Coordinate, size: Double, n: Int, rng: inout SplitMix64) -> [[[Coordinate]]] {
    var rings = [starRing(centre, n: n, lo: size * 0.6, hi: size, rng: &rng)]
    if k % 3 == 0 { rings.append(starRing(centre, n: 3 + k % 13, lo: size * 0.1, hi: size * 0.4, rng: &rng).reversed()) }
    var parts = [rings]
    if k % 7 == 0 {
        let other = Geodesic.wgs84.direct(from: centre, bearing: rng.uniform(0, 360), distance: size * 3)
        parts.append([starRing(other, n: 7, lo: size * 0.3, hi: size * 0.5, rng: &rng)])
    }
    return parts
}

/// Distance from `p` to the geodesic from `a` to `b`: sampled, then refined by golden section.
func geodesicSegmentDistance(_ p: Coordinate, _ a: Coordinate, _ b: Coordinate) -> Double {
    let g = Geodesic.wgs84
    let ab = g.inverse(a, b)
    func at(_ t: Double) -> Double { g.distance(p, g.direct(from: a, bearing: ab.initialBearing, distance: t * ab.distance)) }
    let samples = 64
    var bestK = 0
    var best = Double.infinity
    for k in 0...samples {
        let d = at(Double(k) / Double(samples))
        if d < best { best = d; bestK = k }
    }
    var lo = max(0, Double(bestK - 1) / Double(samples)), hi = min(1, Double(bestK + 1) / Double(samples))
    let phi = (5.0.squareRoot() - 1) / 2
    for _ in 0..<60 {
        let m1 = hi - phi * (hi - lo), m2 = lo + phi * (hi - lo)
        if at(m1) < at(m2) { hi = m2 } else { lo = m1 }
    }
    return min(best, at((lo + hi) / 2))
}

/// `count` albums ("r0", "r1", …) within `within` metres of `base`: star polygons of
/// `vertices[k % vertices.count]` vertices (holes and parts as `starPolygon` makes them), every
/// `circleEvery`-th a circle; sizes (radius or reach) drawn from `sizes`.
func starRegions(_ count: Int, around base: Coordinate, within: Double, sizes: ClosedRange<Double>, circleEvery: Int,
                 vertices: [Int], rng: inout SplitMix64) -> [Region] {
    let g = Geodesic.wgs84
    return (0..<count).map { k in
        let centre = g.direct(from: base, bearing: rng.uniform(0, 360), distance: rng.uniform(0, within))
        let size = rng.uniform(sizes.lowerBound, sizes.upperBound)
        let shape: Shape = k % circleEvery == circleEvery - 1 ? .circle(center: centre, radius: size)
            : .polygons(Polygons(starPolygon(k, centre, size: size, n: vertices[k % vertices.count], rng: &rng)))
        return Region(id: "r\(k)", kind: .album, name: "r\(k)", shape: shape)
    }
}
