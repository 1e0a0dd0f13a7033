import Foundation
import Geo
import TestSupport
import Testing

@Suite struct GeodesyAgainstGeod {
    /// 1,000 random pairs over the whole globe, compared with PROJ's own `geod -I` (proj-bin).
    @Test func inverseWithinOneMicrometreOfGeod() throws {
        var rng = SplitMix64(seed: 3)
        var pairs: [(Coordinate, Coordinate)] = []
        for k in 0..<1000 {
            let a = Coordinate(latitude: rng.uniform(-89.9, 89.9), longitude: rng.uniform(-180, 180))
            // A third of them local (up to 50 km), the rest anywhere.
            let b = k % 3 == 0
                ? Geodesic.wgs84.direct(from: a, bearing: rng.uniform(0, 360), distance: rng.uniform(1, 50_000))
                : Coordinate(latitude: rng.uniform(-89.9, 89.9), longitude: rng.uniform(-180, 180))
            pairs.append((a, b))
        }
        let input = pairs.map { "\($0.0.latitude) \($0.0.longitude) \($0.1.latitude) \($0.1.longitude)" }.joined(separator: "\n") + "\n"
        let output = try run("geod", ["+ellps=WGS84", "-I", "-f", "%.12f", "-F", "%.9f"], input: input)
        let rows = output.split(separator: "\n").map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Double($0) } }
        #expect(rows.count == 1000)
        var worstDistance = 0.0, worstBearing = 0.0
        for ((a, b), row) in zip(pairs, rows) {
            let r = Geodesic.wgs84.inverse(a, b)
            worstDistance = max(worstDistance, abs(r.distance - row[2]))
            var az = row[0]
            if az < 0 { az += 360 }
            let d = abs(r.initialBearing - az)
            worstBearing = max(worstBearing, min(d, 360 - d))
        }
        #expect(worstDistance < 1e-6, "worst distance difference \(worstDistance) m")
        #expect(worstBearing < 1e-9, "worst bearing difference \(worstBearing)°")
    }

    @Test func directMatchesGeod() throws {
        var rng = SplitMix64(seed: 4)
        var cases: [(Coordinate, Double, Double)] = []
        for _ in 0..<200 {
            cases.append((Coordinate(latitude: rng.uniform(-89, 89), longitude: rng.uniform(-180, 180)), rng.uniform(0, 360), rng.uniform(1, 5_000_000)))
        }
        let input = cases.map { "\($0.0.latitude) \($0.0.longitude) \($0.1) \($0.2)" }.joined(separator: "\n") + "\n"
        let output = try run("geod", ["+ellps=WGS84", "-f", "%.12f"], input: input)
        let rows = output.split(separator: "\n").map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Double($0) } }
        #expect(rows.count == 200)
        for (c, row) in zip(cases, rows) {
            let p = Geodesic.wgs84.direct(from: c.0, bearing: c.1, distance: c.2)
            // 1e-11 degrees is about a micrometre.
            #expect(abs(p.latitude - row[0]) < 1e-11)
            let dl = abs(p.longitude - row[1])
            #expect(min(dl, 360 - dl) < 1e-11)
        }
    }
}

@Suite struct LocalFrames {
    @Test func chordAndPlaneDistancesTrackTheGeodesic() {
        var rng = SplitMix64(seed: 5)
        for _ in 0..<500 {
            let o = Coordinate(latitude: rng.uniform(-85, 85), longitude: rng.uniform(-180, 180))
            let frame = LocalFrame(origin: o)
            let d = rng.uniform(1, 25_000)
            let p = Geodesic.wgs84.direct(from: o, bearing: rng.uniform(0, 360), distance: d)
            let q = frame.project(p)
            let planar = (q.x * q.x + q.y * q.y).squareRoot()
            #expect(abs(planar - d) < 1e-5 * d + 1e-6, "plane distance \(planar) vs geodesic \(d)")
            #expect(abs(frame.chord(ECEF(p)) - d) < 1e-6 * d + 1e-6)
        }
    }
}

@Suite struct ECEFConversion {
    /// `ECEF.init` takes sine and cosine from glibc's `sincos`, one call for both: every value
    /// the monitor computes hangs on them, so they must equal `sin` and `cos` bit for bit (the
    /// pipeline benchmark's events did not move by a byte). 200,000 random positions over the
    /// whole globe, and the edges: ±90°, ±180°, 0, and the smallest normal and subnormal numbers.
    @Test func sincosEqualsSinAndCosBitForBit() {
        var rng = SplitMix64(seed: 0x51_4C05)
        var coordinates = [(0.0, 0.0), (-0.0, -0.0), (90, 180), (-90, -180), (45, 90), (1e-300, 5e-324), (2.2250738585072014e-308, -1e-310)]
            .map { Coordinate(latitude: $0.0, longitude: $0.1) }
        for _ in 0..<200_000 { coordinates.append(Coordinate(latitude: rng.uniform(-90, 90), longitude: rng.uniform(-180, 180))) }
        var differing: [Coordinate] = []
        for c in coordinates {
            let p = ECEF(c)
            let phi = c.latitude * (.pi / 180), lambda = c.longitude * (.pi / 180)
            let sp = sin(phi), cp = cos(phi)
            let n = ECEF.a / (1 - ECEF.e2 * sp * sp).squareRoot()
            let q = ECEF(x: n * cp * cos(lambda), y: n * cp * sin(lambda), z: n * (1 - ECEF.e2) * sp)
            if p.x.bitPattern != q.x.bitPattern || p.y.bitPattern != q.y.bitPattern || p.z.bitPattern != q.z.bitPattern { differing.append(c) }
        }
        #expect(differing.count == 0, "\(differing.count) positions differ, e.g. \(Array(differing.prefix(3)))")
    }
}
