import Foundation
@testable import Geo
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
    /// `ECEF.init` takes a latitude's and a longitude's sines and cosines from `SinCos` (fdlibm's
    /// kernels, in two SIMD lanes) rather than from libm: within an ulp of glibc's `sin`
    /// and `cos` (or 2⁻⁸⁰ where those are tinier than that: cos 90°, sin 180°), at a million random angles
    /// in ±π, every whole degree and the edges (0, −0, ±π/4 and ±π/2 and ±π and the doubles next
    /// to them, subnormals).
    @Test func sinesAndCosinesWithinAnUlpOfLibm() {
        var rng = SplitMix64(seed: 0x51_4C05)
        var angles: [Double] = [0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-300, -1e-10]
        for edge in [Double.pi / 4, .pi / 2, 3 * .pi / 4, .pi] {
            for a in [edge, edge.nextUp, edge.nextDown] { angles += [a, -a] }
        }
        for degree in -180...180 { angles.append(Double(degree) * (.pi / 180)) }
        for _ in 0..<1_000_000 { angles.append(rng.uniform(-.pi, .pi)) }
        if angles.count % 2 == 1 { angles.append(1) }  // two lanes at a time
        var worst = (ulps: 0.0, angle: 0.0), signs: [Double] = []
        for k in stride(from: 0, to: angles.count - 1, by: 2) {
            let (s, c) = SinCos.sinCos(SIMD2(angles[k], angles[k + 1]))
            for lane in 0..<2 {
                let x = angles[k + lane]
                for (got, want) in [(s[lane], sin(x)), (c[lane], cos(x))] {
                    let off = abs(got - want) / max(want.ulp, 0x1p-80)
                    if !(off <= worst.ulps) { worst = (off, x) }
                    if got.sign != want.sign { signs.append(x) }
                }
            }
        }
        #expect(worst.ulps <= 1, "\(worst.ulps) ulps at \(worst.angle)")
        #expect(signs.isEmpty, "signs other than libm's (−0 for +0?) at \(signs.prefix(5))")
    }

    /// Positions from `ECEF.init` within 4 nm of those from libm's `sin` and `cos` (an ulp of a
    /// coordinate at the Earth's radius is 0.93 nm), over the whole globe and its edges; beyond
    /// ±π (a coordinate no file gives) and NaN, libm's own.
    @Test func positionsWithinFourNanometresOfLibms() {
        var rng = SplitMix64(seed: 0x51_4C06)
        var coordinates = [(0.0, 0.0), (-0.0, -0.0), (90, 180), (-90, -180), (45, 90), (1e-300, 5e-324), (2.2250738585072014e-308, -1e-310), (10, 200), (-91, 0)]
            .map { Coordinate(latitude: $0.0, longitude: $0.1) }
        for _ in 0..<200_000 { coordinates.append(Coordinate(latitude: rng.uniform(-90, 90), longitude: rng.uniform(-180, 180))) }
        var worst = (metres: 0.0, at: Coordinate(latitude: 0, longitude: 0))
        for c in coordinates {
            let p = ECEF(c)
            let phi = c.latitude * (.pi / 180), lambda = c.longitude * (.pi / 180)
            let sp = sin(phi), cp = cos(phi)
            let n = ECEF.a / (1 - ECEF.e2 * sp * sp).squareRoot()
            let q = ECEF(x: n * cp * cos(lambda), y: n * cp * sin(lambda), z: n * (1 - ECEF.e2) * sp)
            let off = max(abs(p.x - q.x), abs(p.y - q.y), abs(p.z - q.z))
            if !(off <= worst.metres) { worst = (off, c) }
        }
        #expect(worst.metres <= 4e-9, "\(worst.metres) m at \(worst.at)")
        let far = ECEF(Coordinate(latitude: 10, longitude: 200)), wrapped = ECEF(Coordinate(latitude: 10, longitude: -160))
        #expect(far.distance(to: wrapped) < 1e-6, "200° E is 160° W")
        #expect(ECEF(Coordinate(latitude: .nan, longitude: 0)).x.isNaN)
    }
}
