import Foundation
@testable import Geo
import Testing
import TestSupport
@testable import Regions

// Property tests of the geometric shortcuts of the monitor's fast path: the chord test of
// `Geodesic.isWithin`, the chord and raster upper bounds of a fence's signed distance, the query
// boxes around a path, and the index query along a path with and without `NearbyCache`.
// Every name here is private and prefixed `ss` so as not to clash with the module's other helpers.

private let ssGeo = Geodesic.wgs84

extension SplitMix64 {
    fileprivate mutating func ssLogUniform(_ lo: Double, _ hi: Double) -> Double { exp(uniform(log(lo), log(hi))) }
    fileprivate mutating func ssChance(_ p: Double) -> Bool { uniform(0, 1) < p }
    fileprivate mutating func ssInt(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// A star-shaped (so simple, often concave) ring of `n` vertices around `centre`.
private func ssStar(_ centre: Coordinate, n: Int, lo: Double, hi: Double, rng: inout SplitMix64) -> [Coordinate] {
    (0..<n).map { k in
        let bearing = 360.0 * (Double(k) + rng.uniform(-0.3, 0.3)) / Double(n)
        return ssGeo.direct(from: centre, bearing: bearing, distance: rng.uniform(lo, hi))
    }
}

/// A fence and what the reference computations need of it: a centre and a geodesic radius
/// around it that holds the whole boundary.
private struct SSFence {
    var shape: Shape
    var centre: Coordinate
    var bound: Double
    /// Polygons: the hole's inner radius (a point nearer the centre is in the hole), else 0.
    var holeInner = 0.0
}

/// A random fence around `centre`: a circle (3 m – 1 km), or a concave star polygon (20 m – 3 km),
/// often with a hole, sometimes with a second part.
private func ssRandomFence(_ centre: Coordinate, rng: inout SplitMix64, maxSize: Double = 3_000) -> SSFence {
    if rng.ssChance(0.35) {
        let r = rng.ssLogUniform(3, min(1_000, maxSize))
        return SSFence(shape: .circle(center: centre, radius: r), centre: centre, bound: r)
    }
    let size = rng.ssLogUniform(20, maxSize)
    let n = 3 + rng.ssInt(38)
    let lo = size * rng.uniform(0.25, 0.9)
    var rings = [ssStar(centre, n: n, lo: lo, hi: size, rng: &rng)]
    var holeInner = 0.0
    if rng.ssChance(0.4) {
        let hi = lo * 0.8
        holeInner = hi * 0.5
        rings.append(ssStar(centre, n: 3 + rng.ssInt(10), lo: holeInner, hi: hi, rng: &rng).reversed())
    }
    var parts = [rings]
    if rng.ssChance(0.15) {
        let c2 = ssGeo.direct(from: centre, bearing: rng.uniform(0, 360), distance: size * 2.5)
        parts.append([ssStar(c2, n: 5 + rng.ssInt(8), lo: size * 0.1, hi: size * 0.3, rng: &rng)])
    }
    let bound = parts.flatMap { $0.flatMap { $0 } }.map { ssGeo.distance(centre, $0) }.max()! * 1.001 + 1
    return SSFence(shape: .polygons(Polygons(parts)), centre: centre, bound: bound, holeInner: holeInner)
}

private func ssRegions(_ fences: [SSFence], prefix: String = "f") -> [Region] {
    fences.enumerated().map { Region(id: "\(prefix)\($0.offset)", kind: .album, name: "\(prefix)\($0.offset)", shape: $0.element.shape) }
}

/// Distance in space from `p` to the straight segment from `a` to `b`.
private func ssSegmentDistance(_ p: ECEF, _ a: ECEF, _ b: ECEF) -> Double {
    let dx = b.x - a.x, dy = b.y - a.y, dz = b.z - a.z
    let len2 = dx * dx + dy * dy + dz * dz
    var t = len2 > 0 ? ((p.x - a.x) * dx + (p.y - a.y) * dy + (p.z - a.z) * dz) / len2 : 0
    t = min(1, max(0, t))
    return ECEF(x: a.x + t * dx, y: a.y + t * dy, z: a.z + t * dz).distance(to: p)
}

private func ssDescribe(_ c: Coordinate) -> String { "(\(c.latitude), \(c.longitude))" }

// MARK: - Geodesic.isWithin

@Suite struct ChordShortcut {
    /// `isWithin(limit, a, b)` is exactly `distance(a, b) <= limit`, for both overloads, at limits
    /// on both sides of the distance down to one ulp, around the 10⁻⁴ chord slack and the 100 km
    /// switch, from millimetres to antipodes, at the poles and across the antimeridian.
    @Test func isWithinIsExactlyTheKarneyComparison() {
        var rng = SplitMix64(seed: 0x1517_0001)
        var pairs: [(Coordinate, Coordinate, String)] = []
        func random() -> Coordinate {
            Coordinate(latitude: asin(rng.uniform(-1, 1)) * 180 / .pi, longitude: rng.uniform(-180, 180))
        }
        for _ in 0..<300 {  // everywhere, every scale
            let a = random()
            pairs.append((a, ssGeo.direct(from: a, bearing: rng.uniform(0, 360), distance: rng.ssLogUniform(1e-3, 2e7)), "random"))
        }
        for _ in 0..<150 {  // short, where the chord and the geodesic differ by less than their rounding
            let a = random()
            pairs.append((a, ssGeo.direct(from: a, bearing: rng.uniform(0, 360), distance: rng.ssLogUniform(1e-3, 200)), "short"))
        }
        for _ in 0..<60 {  // under a millimetre, where 10⁻⁴ of the chord is below the rounding of the chord
            let a = random()
            pairs.append((a, ssGeo.direct(from: a, bearing: rng.uniform(0, 360), distance: rng.ssLogUniform(1e-7, 1e-3)), "tiny"))
        }
        for _ in 0..<80 {  // around the 100 km switch
            let a = random()
            pairs.append((a, ssGeo.direct(from: a, bearing: rng.uniform(0, 360), distance: rng.uniform(99_000, 101_000)), "100 km"))
        }
        for k in 0..<60 {  // from a pole
            let a = Coordinate(latitude: k % 2 == 0 ? 90 : -90, longitude: rng.uniform(-180, 180))
            pairs.append((a, ssGeo.direct(from: a, bearing: rng.uniform(0, 360), distance: rng.ssLogUniform(1, 2e7)), "pole"))
        }
        for k in 0..<60 {  // across the antimeridian
            let a = Coordinate(latitude: rng.uniform(-89, 89), longitude: (k % 2 == 0 ? 1 : -1) * rng.uniform(179.9, 180))
            let b = Coordinate(latitude: a.latitude + rng.uniform(-0.05, 0.05), longitude: (k % 2 == 0 ? -1 : 1) * rng.uniform(179.9, 180))
            pairs.append((a, b, "antimeridian"))
        }
        for _ in 0..<60 {  // nearly antipodal
            let a = random()
            let b = Coordinate(latitude: -a.latitude + rng.uniform(-0.5, 0.5), longitude: a.longitude > 0 ? a.longitude - 180 + rng.uniform(-0.5, 0.5) : a.longitude + 180 + rng.uniform(-0.5, 0.5))
            pairs.append((a, b, "antipodal"))
        }
        let relative: [Double] = [0, 1e-15, -1e-15, 1e-12, -1e-12, 1e-9, -1e-9, 3e-9, -3e-9, 1e-7, -1e-7, 1e-5, -1e-5, 5e-5, -5e-5,
                                  9.9e-5, 1e-4, -1e-4, 1.01e-4, 2e-4, -2e-4, 1e-3, -1e-3, 0.1, -0.1]
        var checked = 0, insideCount = 0
        var wrong: [String] = []
        var wrongByLabel: [String: (count: Int, first: String)] = [:]
        var falselyWithin = 0, firstFalselyWithin = ""  // isWithin true, Karney farther than the limit
        for (a, b, label) in pairs {
            let d = ssGeo.distance(a, b)
            let pa = ECEF(a), pb = ECEF(b)
            let chord = pa.distance(to: pb)
            var limits = relative.map { d * (1 + $0) }
            limits += [d.nextUp, d.nextDown, chord, chord.nextUp, chord.nextDown, chord * (1 + 1e-4), (chord * (1 + 1e-4)).nextUp, (chord * (1 + 1e-4)).nextDown]
            for limit in limits {
                let expected = d <= limit
                let got = Geodesic.isWithin(limit, a, b)
                let gotSpace = Geodesic.isWithin(limit, a, pa, b, pb)
                checked += 1
                if expected { insideCount += 1 }
                if got != expected || gotSpace != expected {
                    if !expected {
                        falselyWithin += 1
                        if falselyWithin == 1 { firstFalselyWithin = "\(label): a \(ssDescribe(a)) b \(ssDescribe(b)) limit \(limit) (limit − d = \(limit - d)): Karney d \(d), chord \(chord)" }
                    }
                    wrongByLabel[label, default: (0, "")].count += 1
                    if wrongByLabel[label]!.count == 1 {
                        wrongByLabel[label]!.first = "a \(ssDescribe(a)) b \(ssDescribe(b)) limit \(limit) (limit − d = \(limit - d)): Karney d \(d), chord \(chord), expected \(expected), got \(got)"
                    }
                    wrong.append("\(label): a \(ssDescribe(a)) b \(ssDescribe(b)) limit \(limit) (limit − d = \(limit - d)): Karney d \(d), chord \(chord), expected \(expected), got \(got) / \(gotSpace)")
                }
            }
        }
        #expect(checked > 20_000 && insideCount > 8_000 && checked - insideCount > 8_000)
        let byLabel = wrongByLabel.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.count), e.g. \($0.value.first)" }
        #expect(wrong.count == 0, "\(wrong.count) of \(checked) limits disagree with Karney (\(falselyWithin) of them within by the chord though Karney is beyond: \(firstFalselyWithin)); by kind of pair:\n\(byLabel.joined(separator: "\n"))")
    }
}

// MARK: - Upper bounds of the signed distance

@Suite struct SignedDistanceUpperBounds {
    /// `chordUpperBound` and `signedDistanceUpperBound` are never below `approximateSignedDistance`
    /// nor (by more than a millimetre) below `signedDistance`, and the raster bound never exceeds
    /// the chord bound: for circles and concave polygons with holes, at points inside, in holes, at
    /// edges, off the raster, in outside cells, and up to 30 km away; mid-latitudes, near 85°,
    /// across the antimeridian.
    @Test func boundsAreNeverBelowTheSignedDistance() {
        var rng = SplitMix64(seed: 0x1517_0002)
        var fences: [SSFence] = []
        for k in 0..<48 {
            let centre: Coordinate
            switch k % 6 {
            case 0: centre = Coordinate(latitude: rng.uniform(84, 86), longitude: rng.uniform(-180, 180))
            case 1: centre = Coordinate(latitude: rng.uniform(-60, 60), longitude: (k % 4 == 1 ? 1 : -1) * rng.uniform(179.98, 180))
            default: centre = Coordinate(latitude: rng.uniform(-70, 70), longitude: rng.uniform(-180, 180))
            }
            fences.append(ssRandomFence(centre, rng: &rng, maxSize: 5_000))
        }
        let set = RegionSet(ssRegions(fences))
        var count = 0, offRaster = 0, outsideCell = 0, insidePoints = 0, farPoints = 0, rasterTighter = 0
        var violations: [(amount: Double, chord: Double, what: String, text: String)] = []
        for (i, f) in fences.enumerated() {
            let core = set.fences.cores[Int(set.fences.coreOfRegion[i])]
            let size = f.bound
            var points: [(Coordinate, String)] = []
            for j in 0..<160 {
                let bearing = rng.uniform(0, 360)
                switch j % 8 {
                case 0, 1, 2:
                    points.append((ssGeo.direct(from: f.centre, bearing: bearing, distance: rng.uniform(0, 1.4 * size)), "near"))
                case 3:
                    // At the boundary: a vertex or a circle's rim, nudged up to a metre either way.
                    switch f.shape {
                    case let .circle(c, r):
                        points.append((ssGeo.direct(from: c, bearing: bearing, distance: max(0, r + rng.uniform(-1, 1))), "rim"))
                    case let .polygons(parts):
                        let rings = parts[rng.ssInt(parts.count)]
                        let ring = rings[rng.ssInt(rings.count)]
                        let e = rng.ssInt(ring.count)
                        let v = ring[e], w = ring[(e + 1) % ring.count]
                        let on = ssGeo.direct(from: v, bearing: ssGeo.inverse(v, w).initialBearing, distance: rng.uniform(0, 1) * ssGeo.distance(v, w))
                        points.append((ssGeo.direct(from: on, bearing: bearing, distance: rng.uniform(0, 1)), "edge"))
                    }
                case 4:
                    if f.holeInner > 0 {
                        points.append((ssGeo.direct(from: f.centre, bearing: bearing, distance: rng.uniform(0, f.holeInner)), "hole"))
                    } else {
                        points.append((ssGeo.direct(from: f.centre, bearing: bearing, distance: size * rng.uniform(1, 1.2)), "just off"))
                    }
                case 5 where core.radius == 0:
                    // Out beyond the vertex farthest from the frame's origin, on the line from the
                    // origin through it: where the nearest boundary point is as far out as `reach`.
                    guard case let .polygons(parts) = f.shape else { break }
                    let o = core.frame.origin
                    let far = parts.flatMap { $0.flatMap { $0 } }.max { core.frame.chord(ECEF($0)) < core.frame.chord(ECEF($1)) }!
                    let out = ssGeo.inverse(o, far)
                    points.append((ssGeo.direct(from: o, bearing: out.initialBearing, distance: out.distance + rng.uniform(0, 30_000)), "beyond the farthest vertex"))
                default:
                    points.append((ssGeo.direct(from: f.centre, bearing: bearing, distance: size + rng.ssLogUniform(1, 30_000)), "far"))
                }
            }
            for (c, kind) in points {
                let p = ECEF(c)
                let approx = set.approximateSignedDistance(i, p)
                let sd = set.signedDistance(i, c)
                let byChord = set.chordUpperBound(i, p)
                let bound = set.signedDistanceUpperBound(i, p)
                count += 1
                if sd > 0 { insidePoints += 1 }
                if core.frame.chord(p) > 9_000 + size { farPoints += 1 }
                if bound < byChord { rasterTighter += 1 }
                if core.radius == 0, core.frame.chord(p) <= core.reach + FenceCore.farMargin {
                    let q = core.frame.project(p)
                    let gx = (q.x - core.gridMinX) * core.gridScaleX, gy = (q.y - core.gridMinY) * core.gridScaleY
                    let side = Double(FenceCore.gridSide)
                    if gx < 0 || gy < 0 || gx > side || gy > side {
                        offRaster += 1
                    } else {
                        let cell = min(Int(gy), FenceCore.gridSide - 1) * FenceCore.gridSide + min(Int(gx), FenceCore.gridSide - 1)
                        if (set.fences.grids[Int(core.gridStart) + cell >> 5] >> UInt64((cell & 31) * 2)) & 3 == FenceCore.cellOutside { outsideCell += 1 }
                    }
                }
                let shape = core.radius > 0 ? "circle r \(core.radius)" : "polygon reach \(core.reach)"
                func fail(_ what: String, _ amount: Double) {
                    violations.append((amount, core.frame.chord(p), what, "fence \(i) (\(shape), centre \(ssDescribe(f.centre))), \(kind) point \(ssDescribe(c)) at chord \(core.frame.chord(p)) m from the origin: \(what) by \(amount) m [approx \(approx), signedDistance \(sd), chordUpperBound \(byChord), signedDistanceUpperBound \(bound)]"))
                }
                if byChord < approx { fail("chordUpperBound < approximateSignedDistance", approx - byChord) }
                if bound < approx { fail("signedDistanceUpperBound < approximateSignedDistance", approx - bound) }
                if byChord < sd - 1e-3 { fail("chordUpperBound < signedDistance − 1 mm", sd - byChord) }
                if bound < sd - 1e-3 { fail("signedDistanceUpperBound < signedDistance − 1 mm", sd - bound) }
                if bound > byChord { fail("signedDistanceUpperBound > chordUpperBound", bound - byChord) }
            }
        }
        #expect(count > 48 * 150)
        #expect(insidePoints > 1_000 && farPoints > 400 && offRaster > 400 && outsideCell > 200 && rasterTighter > 800,
                "coverage: inside \(insidePoints), far \(farPoints), off raster \(offRaster), outside cells \(outsideCell), raster tighter \(rasterTighter)")
        violations.sort { $0.amount > $1.amount }
        let kinds = Dictionary(grouping: violations, by: \.what).map { "\($0.value.count) × \($0.key)" }.sorted()
        let nearest = violations.map(\.chord).min() ?? 0
        #expect(violations.count == 0, "\(violations.count) violations at \(count) points (\(kinds.joined(separator: "; "))), the nearest \(nearest) m from the fence's origin; worst: \(violations.prefix(3).map(\.text).joined(separator: "\n"))")
    }

    /// The smallest case of the property above: a 100 m diamond, and points due north of it
    /// (beyond its northern vertex, the one that sets `reach`) from 1 to 30 km away.
    @Test func boundsAtPointsFarBeyondAPolygonsFarthestVertex() {
        let centre = Coordinate(latitude: 40, longitude: -8)
        let diamond = [0.0, 90, 180, 270].map { ssGeo.direct(from: centre, bearing: $0, distance: 100) }
        let set = RegionSet([Region(id: "diamond", kind: .album, name: "diamond", shape: .polygons([[diamond]]))])
        var worst = (excess: -Double.infinity, distance: 0.0, approx: 0.0, bound: 0.0)
        for km in [1.0, 5, 9, 10, 15, 20, 25, 30] {
            let p = ssGeo.direct(from: centre, bearing: 0, distance: 100 + km * 1_000)
            let e = ECEF(p)
            let approx = set.approximateSignedDistance(0, e)
            let bound = min(set.chordUpperBound(0, e), set.signedDistanceUpperBound(0, e))
            if approx - bound > worst.excess { worst = (approx - bound, km, approx, bound) }
            #expect(set.chordUpperBound(0, e) >= approx && set.signedDistanceUpperBound(0, e) >= approx,
                    "\(km) km north of the northern vertex \(ssDescribe(p)): approximateSignedDistance \(approx), chordUpperBound \(set.chordUpperBound(0, e)), signedDistanceUpperBound \(set.signedDistanceUpperBound(0, e)), signedDistance \(set.signedDistance(0, p))")
            #expect(set.signedDistanceUpperBound(0, e) >= set.signedDistance(0, p) - 1e-3)
        }
        print("diamond: worst approximateSignedDistance − bound \(worst.excess) m at \(worst.distance) km")
    }
}

// MARK: - Raster bounds beyond one cell

@Suite struct RasterRings {
    /// `clearRings` against a cell-by-cell look at the rings around a cell, on random rasters
    /// from nearly empty to nearly all edges, at every kind of cell near the grid's sides.
    @Test func clearRingsIsTheCellByCellCount() {
        var rng = SplitMix64(seed: 0x1517_0101)
        let n = FenceCore.gridSide
        var checked = 0, reachedTheLimit = 0, stoppedShort = 0
        for trial in 0..<400 {
            let edgeShare = [0.0, 0.002, 0.01, 0.05, 0.3, 0.9][trial % 6]
            var cells = [UInt64](repeating: 0, count: n * n)
            for k in cells.indices { cells[k] = rng.ssChance(edgeShare) ? FenceCore.cellEdge : (rng.ssChance(0.5) ? FenceCore.cellInside : FenceCore.cellOutside) }
            var words = [UInt64](repeating: 0, count: FenceCore.gridWords + 3)
            let start = 3  // a raster need not begin the store's words
            for k in cells.indices { words[start + k >> 5] |= cells[k] << UInt64((k & 31) * 2) }
            for _ in 0..<40 {
                let cx = rng.ssInt(n), cy = rng.ssInt(n)
                guard cells[cy * n + cx] != FenceCore.cellEdge else { continue }
                var expected = 0
                rings: while expected < FenceCore.maxClearRings {
                    let r = expected + 1
                    for y in max(cy - r, 0)...min(cy + r, n - 1) {
                        for x in max(cx - r, 0)...min(cx + r, n - 1) where cells[y * n + x] == FenceCore.cellEdge { break rings }
                    }
                    expected = r
                }
                let got = words.withUnsafeBufferPointer { FenceCore.clearRings($0, start: start, cx, cy) }
                #expect(got == expected, "cell (\(cx), \(cy)), edge share \(edgeShare): \(got) rings, cell by cell \(expected)")
                checked += 1
                if expected == FenceCore.maxClearRings { reachedTheLimit += 1 } else { stoppedShort += 1 }
            }
        }
        #expect(checked > 8_000 && reachedTheLimit > 1_000 && stoppedShort > 1_000, "checked \(checked), at the limit \(reachedTheLimit), short of it \(stoppedShort)")
    }

    /// `classify`'s bound holds (at least that far inside when inside, at most when outside) on
    /// random circles and concave polygons with holes, and in raster cells deep inside or far
    /// outside it reaches past the cell's own sides.
    @Test func classifyBoundsHoldAndReachPastTheCell() {
        var rng = SplitMix64(seed: 0x1517_0102)
        var fences: [SSFence] = []
        for _ in 0..<40 {
            fences.append(ssRandomFence(Coordinate(latitude: rng.uniform(-70, 70), longitude: rng.uniform(-179, 179)), rng: &rng))
        }
        let set = RegionSet(ssRegions(fences))
        var count = 0, rastered = 0, pastTheCell = 0
        var violations: [String] = []
        for (i, f) in fences.enumerated() {
            let core = set.fences.cores[Int(set.fences.coreOfRegion[i])]
            for _ in 0..<200 {
                let c = ssGeo.direct(from: f.centre, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 1.3 * f.bound))
                let p = ECEF(c)
                let (inside, bound, exact) = set.classify(i, c, p)
                let sd = set.signedDistance(i, c)
                count += 1
                if inside != set.contains(i, c) { violations.append("fence \(i), \(ssDescribe(c)): classify says inside \(inside), contains says not") }
                if inside ? sd < bound - 1e-3 : sd > bound + 1e-3 {
                    violations.append("fence \(i), \(ssDescribe(c)): inside \(inside), bound \(bound), signedDistance \(sd)")
                }
                guard core.radius == 0, !exact else { continue }
                let q = core.frame.project(p)
                let gx = (q.x - core.gridMinX) * core.gridScaleX, gy = (q.y - core.gridMinY) * core.gridScaleY
                let side = Double(FenceCore.gridSide)
                guard gx >= 0, gy >= 0, gx < side, gy < side else { continue }
                rastered += 1
                // The cell's own sides: the most a bound from one cell could say.
                let fx = gx - gx.rounded(.down), fy = gy - gy.rounded(.down)
                let ownSides = min(min(fx, 1 - fx) / core.gridScaleX, min(fy, 1 - fy) / core.gridScaleY)
                if abs(bound) > ownSides + 1 / min(core.gridScaleX, core.gridScaleY) - 2e-3 { pastTheCell += 1 }
            }
        }
        #expect(count == 40 * 200 && rastered > 1_500 && pastTheCell > 500, "points \(count), in rastered cells \(rastered), bounds a cell or more past their own cell's sides \(pastTheCell)")
        #expect(violations.isEmpty, "\(violations.count) violations: \(violations.prefix(5).joined(separator: "\n"))")
    }
}

// MARK: - Query boxes

/// `circleBoxPair` as it was before `boxPair` (commit ade9e4d^), the reference for "unchanged".
private func ssOldCircleBoxPair(center: Coordinate, radius: Double) -> (GeoBox, GeoBox?) {
    let dLat = radius / Fence.minMetresPerDegreeLatitude * 1.01 + 1e-9
    let minLat = max(-90, center.latitude - dLat), maxLat = min(90, center.latitude + dLat)
    let extreme = max(abs(minLat), abs(maxLat))
    if extreme >= 89.999 {
        return (GeoBox(minLat: minLat, minLon: -180, maxLat: maxLat, maxLon: 180), nil)
    }
    let metresPerDegreeLon = 111_319.49 * cos(extreme * .pi / 180)
    let dLon = min(180, radius / metresPerDegreeLon * 1.01 + 1e-9)
    let lo = center.longitude - dLon, hi = center.longitude + dLon
    if dLon >= 180 { return (GeoBox(minLat: minLat, minLon: -180, maxLat: maxLat, maxLon: 180), nil) }
    if lo < -180 {
        return (GeoBox(minLat: minLat, minLon: -180, maxLat: maxLat, maxLon: hi),
                GeoBox(minLat: minLat, minLon: lo + 360, maxLat: maxLat, maxLon: 180))
    }
    if hi > 180 {
        return (GeoBox(minLat: minLat, minLon: lo, maxLat: maxLat, maxLon: 180),
                GeoBox(minLat: minLat, minLon: -180, maxLat: maxLat, maxLon: hi - 360))
    }
    return (GeoBox(minLat: minLat, minLon: lo, maxLat: maxLat, maxLon: hi), nil)
}

private func ssValid(_ b: GeoBox) -> Bool {
    b.minLat <= b.maxLat && b.minLon <= b.maxLon && b.minLat >= -90 && b.maxLat <= 90 && b.minLon >= -180 && b.maxLon <= 180
}

/// Whether `c` is in one of the boxes; a longitude of ±180 is tried both ways.
private func ssCovered(_ c: Coordinate, _ boxes: (GeoBox, GeoBox?)) -> Bool {
    var alternatives = [c]
    if c.longitude == 180 { alternatives.append(Coordinate(latitude: c.latitude, longitude: -180)) }
    if c.longitude == -180 { alternatives.append(Coordinate(latitude: c.latitude, longitude: 180)) }
    return alternatives.contains { boxes.0.contains($0) || boxes.1?.contains($0) == true }
}

@Suite struct QueryBoxes {
    /// `circleBoxPair` gives exactly the boxes it gave before it was rewritten on `boxPair`,
    /// for centres anywhere (poles, ±180°) and radii from 0 to half the Earth, including the radii
    /// where the box just reaches all longitudes.
    @Test func circleBoxPairIsUnchanged() {
        var rng = SplitMix64(seed: 0x1517_0003)
        var differ: [String] = [], fullInsteadOfSliver: [String] = []
        var splits = 0, full = 0, n = 0
        for k in 0..<6_000 {
            var lat = rng.uniform(-90, 90), lon = rng.uniform(-180, 180)
            switch k % 10 {
            case 0: lat = [90.0, -90, 89.99, -89.99, 0][rng.ssInt(5)]
            case 1: lon = [180.0, -180, 179.999_999, -179.999_999][rng.ssInt(4)]
            case 2: lat = rng.uniform(-89.99, 89.99)
            default: break
            }
            var radius = k % 7 == 0 ? 0 : rng.ssLogUniform(1e-3, 2e7)
            if k % 11 == 0 {
                // The radius at which the longitude span just reaches 360°, give or take an ulp-ish.
                lat = rng.uniform(-40, 40)
                // Bisection on the radius for a longitude half-span of 180°.
                var lo = 1e6, hi = 5e6
                for _ in 0..<200 {
                    let r = (lo + hi) / 2
                    let extreme = abs(lat) + r / Fence.minMetresPerDegreeLatitude * 1.01 + 1e-9
                    if r / (111_319.49 * cos(extreme * .pi / 180)) * 1.01 + 1e-9 < 180 { lo = r } else { hi = r }
                }
                radius = [lo, hi, lo.nextDown, hi.nextUp][rng.ssInt(4)]
            }
            let c = Coordinate(latitude: lat, longitude: lon)
            let new = Fence.circleBoxPair(center: c, radius: radius), old = ssOldCircleBoxPair(center: c, radius: radius)
            n += 1
            if new.1 != nil { splits += 1 }
            if new.0.minLon == -180 && new.0.maxLon == 180 { full += 1 }
            if new.0 != old.0 || new.1 != old.1 {
                // The one difference allowed: where the old pair's two boxes together spanned every
                // longitude but for a rounding sliver, the new code may give the single full box.
                let oldSpan = (old.0.maxLon - old.0.minLon) + ((old.1?.maxLon ?? 0) - (old.1?.minLon ?? 0))
                let newIsFull = new.1 == nil && new.0.minLon == -180 && new.0.maxLon == 180
                    && new.0.minLat == old.0.minLat && new.0.maxLat == old.0.maxLat
                if newIsFull && old.1 != nil && abs(oldSpan - 360) < 1e-9 {
                    fullInsteadOfSliver.append("centre \(ssDescribe(c)) radius \(radius): old \(old)")
                } else {
                    differ.append("centre \(ssDescribe(c)) radius \(radius): new \(new), old \(old)")
                }
            }
        }
        #expect(splits > 200 && full > 200, "splits \(splits), full \(full)")
        #expect(differ.count == 0, "\(differ.count) of \(n) differ; first: \(differ.prefix(4).joined(separator: "\n"))")
        #expect(fullInsteadOfSliver.count < 20, "the full box replaced a split pair \(fullInsteadOfSliver.count) times: \(fullInsteadOfSliver.prefix(2))")
        print("circleBoxPair: \(n) compared, \(fullInsteadOfSliver.count) where the old split pair left a sliver and the new box is full: \(fullInsteadOfSliver.prefix(1))")
    }

    /// Every point within `metres` of a geodesic of up to 10 km (not beyond 85°) lies in
    /// `segmentBoxPair`'s boxes, which are valid boxes; longer paths and paths beyond 85° get nil.
    @Test func segmentBoxPairCoversEveryPointWithinTheMargin() {
        var rng = SplitMix64(seed: 0x1517_0004)
        var missed: [String] = []
        var checked = 0, split = 0, nils = 0
        for k in 0..<1_500 {
            var a: Coordinate
            switch k % 5 {
            case 0: a = Coordinate(latitude: rng.uniform(-80, 80), longitude: (k % 2 == 0 ? 1 : -1) * rng.uniform(179.97, 180))
            case 1: a = Coordinate(latitude: (k % 3 == 0 ? 1 : -1) * rng.uniform(80, 85.2), longitude: rng.uniform(-180, 180))
            default: a = Coordinate(latitude: rng.uniform(-85, 85), longitude: rng.uniform(-180, 180))
            }
            if k % 13 == 0 { a.latitude = 85 }
            let length = k % 4 == 0 ? rng.uniform(9_000, 11_000) : rng.ssLogUniform(0.01, 10_000)
            // Across ±180° heading east from east longitudes and west from west ones.
            let heading = k % 5 == 0 ? (a.longitude > 0 ? 90 : 270) + rng.uniform(-60, 60) : rng.uniform(0, 360)
            let b = ssGeo.direct(from: a, bearing: heading, distance: length)
            let metres = k % 9 == 0 ? 0 : rng.uniform(0, 60)
            let ab = ssGeo.inverse(a, b)
            let declared = k % 2 == 0 ? ab.distance : ab.distance * (1 + 1e-4)
            let boxes = Fence.segmentBoxPair(a, b, length: declared, metres: metres)
            if declared > 10_000 || max(abs(a.latitude), abs(b.latitude)) > 85 {
                #expect(boxes == nil, "a \(ssDescribe(a)) b \(ssDescribe(b)) length \(declared): expected nil")
                nils += 1
                continue
            }
            guard let boxes else {
                missed.append("a \(ssDescribe(a)) b \(ssDescribe(b)) length \(declared): nil for a short path")
                continue
            }
            #expect(ssValid(boxes.0) && (boxes.1.map(ssValid) ?? true), "invalid boxes \(boxes)")
            if boxes.1 != nil { split += 1 }
            for j in 0..<40 {
                let along = j == 0 ? 0 : j == 1 ? ab.distance : rng.uniform(0, 1) * ab.distance
                let x = ssGeo.direct(from: a, bearing: ab.initialBearing, distance: along)
                let reach = j % 3 == 0 ? metres : rng.uniform(0, 1) * metres
                let y = reach > 0 ? ssGeo.direct(from: x, bearing: rng.uniform(0, 360), distance: reach) : x
                checked += 1
                if !ssCovered(y, boxes) {
                    missed.append("a \(ssDescribe(a)) b \(ssDescribe(b)) length \(declared) metres \(metres): point \(ssDescribe(y)) (\(reach) m from \(along) m along) outside \(boxes)")
                }
            }
        }
        #expect(checked > 30_000 && split > 50 && nils > 150, "checked \(checked), split \(split), nil \(nils)")
        #expect(missed.count == 0, "\(missed.count) points missed; first: \(missed.prefix(4).joined(separator: "\n"))")
    }

    /// `boxPair` covers its latitude × longitude ranges grown by the margin, also when the
    /// longitudes run past ±180° (split in two valid boxes), and covers everything near a pole.
    @Test func boxPairSplitsAtTheAntimeridian() {
        var rng = SplitMix64(seed: 0x1517_0005)
        // Fixed cases.
        let east = Fence.boxPair(latitudes: 10...10.1, longitudes: 179.9...180.2, metres: 0)
        #expect(east.0.maxLon == 180 && east.1 != nil && east.1!.minLon == -180 && abs(east.1!.maxLon - -179.8) < 1e-6)
        let west = Fence.boxPair(latitudes: 10...10.1, longitudes: -180.3 ... -179.9, metres: 0)
        #expect(west.0.minLon == -180 && abs(west.0.maxLon - -179.9) < 1e-6 && west.1 != nil && abs(west.1!.minLon - 179.7) < 1e-6 && west.1!.maxLon == 180)
        let wrapped = Fence.boxPair(latitudes: 10...10.1, longitudes: -181 ... -180.5, metres: 0)
        #expect(wrapped.1 == nil && abs(wrapped.0.minLon - 179) < 1e-6 && abs(wrapped.0.maxLon - 179.5) < 1e-6, "\(wrapped)")
        let polar = Fence.boxPair(latitudes: 89.99...89.99, longitudes: 10...10, metres: 2_000)
        #expect(polar.1 == nil && polar.0.minLon == -180 && polar.0.maxLon == 180 && polar.0.maxLat == 90)
        // Random ranges as a path's boxes produce them (the end's longitude within 180° of the start's).
        var missed: [String] = []
        var checked = 0
        for _ in 0..<2_000 {
            let lat0 = rng.uniform(-85, 85), lat1 = min(85, lat0 + rng.ssLogUniform(1e-7, 0.2))
            let a = rng.uniform(-180, 180), b = a + rng.uniform(-0.3, 0.3)
            let longitudes = min(a, b)...max(a, b)
            let metres = rng.uniform(0, 500)
            let boxes = Fence.boxPair(latitudes: lat0...lat1, longitudes: longitudes, metres: metres)
            #expect(ssValid(boxes.0) && (boxes.1.map(ssValid) ?? true), "invalid boxes \(boxes)")
            for _ in 0..<20 {
                var lon = rng.uniform(longitudes.lowerBound, longitudes.upperBound)
                if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
                let c = Coordinate(latitude: rng.uniform(lat0, lat1), longitude: lon)
                let y = metres > 0 ? ssGeo.direct(from: c, bearing: rng.uniform(0, 360), distance: rng.uniform(0, metres)) : c
                checked += 1
                if !ssCovered(y, boxes) {
                    missed.append("latitudes \(lat0)...\(lat1) longitudes \(longitudes) metres \(metres): \(ssDescribe(y)) outside \(boxes)")
                }
            }
        }
        #expect(checked == 40_000)
        #expect(missed.count == 0, "\(missed.count) missed; first: \(missed.prefix(4).joined(separator: "\n"))")
    }
}

// MARK: - Index queries along a path

/// Regions whose signed distance somewhere on the geodesic from `a` to `b` is at least
/// `-metres`: the geodesic sampled every 10 m, then every 0.2 m around samples within 5 m (plus a
/// little) of qualifying (the signed distance changes by at most the distance moved).
private func ssRequired(_ set: RegionSet, _ fences: [SSFence], _ a: Coordinate, _ b: Coordinate, metres: Double) -> Set<Int> {
    let ab = ssGeo.inverse(a, b)
    let length = ab.distance
    let pa = ECEF(a), pb = ECEF(b)
    let sag = length * length / (8 * 6_300_000) * 1.5 + 0.01
    let n = max(1, Int((length / 10).rounded(.up)))
    let step = length / Double(n)
    var samples: [(s: Double, c: Coordinate, p: ECEF)] = []
    func point(_ s: Double) -> Coordinate { s == 0 ? a : ssGeo.direct(from: a, bearing: ab.initialBearing, distance: s) }
    var out = Set<Int>()
    for (i, f) in fences.enumerated() {
        let pc = ECEF(f.centre)
        let slack = metres + 2 + 0.002 * f.bound
        if ssSegmentDistance(pc, pa, pb) - sag - f.bound > slack { continue }
        if samples.isEmpty {
            samples = (0...n).map { j in
                let s = j == n ? length : Double(j) * step
                let c = j == n ? b : point(s)
                return (s, c, ECEF(c))
            }
        }
        var near: [Double] = []
        var found = false
        for x in samples where x.p.distance(to: pc) - f.bound <= slack + step {
            let d = set.signedDistance(i, x.c)
            if d >= -metres { found = true; break }
            if d >= -metres - step / 2 - 0.2 { near.append(x.s) }
        }
        if !found {
            search: for s0 in near {
                var s = max(0, s0 - step / 2)
                while s <= min(length, s0 + step / 2) {
                    if set.signedDistance(i, point(s)) >= -metres { found = true; break search }
                    s += 0.2
                }
            }
        }
        if found { out.insert(i) }
    }
    return out
}

/// A locale for a walk: where its fences are, and how far the walk roams.
private struct SSLocale {
    var name: String
    var centre: Coordinate
    var fenceSpread: Double
}

private let ssLocales = [
    SSLocale(name: "Lisbon", centre: Coordinate(latitude: 38.7, longitude: -9.14), fenceSpread: 3_000),
    SSLocale(name: "Andes", centre: Coordinate(latitude: -33.4, longitude: -70.6), fenceSpread: 2_000),
    SSLocale(name: "antimeridian", centre: Coordinate(latitude: -16.5, longitude: 179.999), fenceSpread: 2_500),
    SSLocale(name: "85 N", centre: Coordinate(latitude: 84.99, longitude: 40), fenceSpread: 2_000),
    SSLocale(name: "85 S", centre: Coordinate(latitude: -85.01, longitude: -179.98), fenceSpread: 2_000),
]

/// A fence's point farthest north, south, east or west (a circle's, or a polygon's vertex), and
/// that bearing.
private func ssExtremePoint(_ f: SSFence, rng: inout SplitMix64) -> (Coordinate, Double) {
    let direction = [0.0, 90, 180, 270][rng.ssInt(4)]
    switch f.shape {
    case let .circle(c, r):
        return (ssGeo.direct(from: c, bearing: direction, distance: r), direction)
    case let .polygons(parts):
        let all = parts.flatMap { $0.flatMap { $0 } }
        func east(_ v: Coordinate) -> Double { Fence.relativeLongitude(v.longitude, to: f.centre.longitude) }
        let pick: Coordinate
        switch direction {
        case 0: pick = all.max { $0.latitude < $1.latitude }!
        case 180: pick = all.min { $0.latitude < $1.latitude }!
        case 90: pick = all.max { east($0) < east($1) }!
        default: pick = all.min { east($0) < east($1) }!
        }
        return (pick, direction)
    }
}

@Suite struct PathQueries {
    /// Random walks (1–50 m steps, jumps of 1–20 km) through random fences in five places (two
    /// across ±180°, two around 85°): every region whose signed distance somewhere on the step's
    /// geodesic is at least −metres is reported, by the plain query and by the cached one (one
    /// cache for the whole walk); each region at most once; the cached answer contains the plain one.
    @Test func everyRegionNearAPathIsReportedOnceWithAndWithoutTheCache() {
        var rng = SplitMix64(seed: 0x1517_0006)
        var required = 0, requiredOnJumps = 0, queries = 0, jumps = 0, antimeridianSteps = 0, beyond85 = 0, below85 = 0
        var extraInCache = 0, targetedCount = 0, targetedRequired = 0
        var problems: [String] = []
        for locale in ssLocales {
            var fences: [SSFence] = []
            for _ in 0..<45 {
                let c = ssGeo.direct(from: locale.centre, bearing: rng.uniform(0, 360), distance: rng.uniform(0, locale.fenceSpread))
                fences.append(ssRandomFence(c, rng: &rng, maxSize: 600))
            }
            let set = RegionSet(ssRegions(fences))
            var cache = NearbyCache()
            var here = locale.centre
            var bearing = rng.uniform(0, 360)
            for step in 0..<220 {
                let jump = step % 12 == 10
                let targeted = step % 2 == 1
                let next: Coordinate
                if jump {
                    next = ssGeo.direct(from: here, bearing: rng.uniform(0, 360), distance: rng.uniform(1_000, 20_000))
                } else if ssGeo.distance(here, locale.centre) > locale.fenceSpread * 1.2 {
                    // Far out after a jump: head back through the fences in one go, or walk back.
                    if rng.ssChance(0.5) {
                        next = ssGeo.direct(from: locale.centre, bearing: rng.uniform(0, 360), distance: rng.uniform(0, locale.fenceSpread))
                    } else {
                        bearing = ssGeo.inverse(here, locale.centre).initialBearing
                        next = ssGeo.direct(from: here, bearing: bearing, distance: rng.uniform(1, 50))
                    }
                } else {
                    bearing += rng.uniform(-40, 40)
                    next = ssGeo.direct(from: here, bearing: bearing, distance: rng.uniform(1, 50))
                }
                var a = here, b = next
                var metres = step % 10 == 0 ? 0 : rng.uniform(0.5, 30)
                if targeted {
                    // A short path passing a fence's northern, southern, eastern or western extreme
                    // 90–100 % of `metres` away, across or ending there: where its box is tightest.
                    let (c, direction) = ssExtremePoint(fences[rng.ssInt(fences.count)], rng: &rng)
                    metres = rng.uniform(0.5, 30)
                    let closest = ssGeo.direct(from: c, bearing: direction, distance: metres * rng.uniform(0.9, 1))
                    let length = rng.uniform(1, 50), before = rng.ssChance(0.3) ? 0 : rng.uniform(0, 1)
                    let across = direction + 90
                    a = before > 0 ? ssGeo.direct(from: closest, bearing: across + 180, distance: before * length) : closest
                    b = ssGeo.direct(from: closest, bearing: across, distance: (1 - before) * length)
                    if rng.ssChance(0.5) { swap(&a, &b) }
                } else {
                    here = next
                }
                let chord = ECEF(a).distance(to: ECEF(b))
                let length = chord <= 100_000 ? chord * (1 + 1e-4) : ssGeo.distance(a, b)
                queries += 1
                if length > 1_000 { jumps += 1 }
                if targeted { targetedCount += 1 }
                if abs(a.longitude) > 179, abs(b.longitude) > 179, (a.longitude > 0) != (b.longitude > 0) { antimeridianSteps += 1 }
                if max(abs(a.latitude), abs(b.latitude)) > 85 { beyond85 += 1 } else if abs(a.latitude) > 84 { below85 += 1 }

                var plain: [Int] = [], cached: [Int] = []
                set.forEachRegion(along: a, b, length: length, within: metres) { plain.append($0) }
                set.forEachRegion(along: a, b, length: length, within: metres, cache: &cache) { cached.append($0) }
                let need = ssRequired(set, fences, a, b, metres: metres)
                required += need.count
                if length > 1_000 { requiredOnJumps += need.count }
                if targeted { targetedRequired += need.count }
                let whereAnswer = "\(locale.name) step \(step): a \(ssDescribe(a)) b \(ssDescribe(b)) length \(length) metres \(metres)"
                if Set(plain).count != plain.count { problems.append("\(whereAnswer): plain query repeats a region: \(plain.sorted())") }
                if Set(cached).count != cached.count { problems.append("\(whereAnswer): cached query repeats a region: \(cached.sorted())") }
                let missedPlain = need.subtracting(plain), missedCached = need.subtracting(cached)
                for i in missedPlain.sorted() {
                    problems.append("\(whereAnswer): plain query misses region \(i) (\(fences[i].shape)), whose signed distance on the path reaches ≥ −\(metres)")
                }
                for i in missedCached.sorted() {
                    problems.append("\(whereAnswer): cached query misses region \(i) (\(fences[i].shape))")
                }
                let notInCache = Set(plain).subtracting(cached)
                if !notInCache.isEmpty { problems.append("\(whereAnswer): the cached query lacks \(notInCache.sorted()) of the plain one") }
                extraInCache += Set(cached).subtracting(plain).count
            }
        }
        #expect(queries == 1_100)
        #expect(required > 800 && requiredOnJumps > 40 && targetedRequired > 500 && jumps > 40 && antimeridianSteps > 3 && beyond85 > 20 && below85 > 20,
                "coverage: required \(required) (\(requiredOnJumps) on jumps, \(targetedRequired) on \(targetedCount) paths past extremes), jumps \(jumps), across ±180° \(antimeridianSteps), beyond 85° \(beyond85), below \(below85)")
        #expect(problems.count == 0, "\(problems.count) problems; first: \(problems.prefix(6).joined(separator: "\n"))")
        print("path queries: \(queries), required regions \(required), extra regions from the cache \(extraInCache)")
    }

    /// One cache shared by three sets (B: A's regions reversed plus others; C: A's regions again,
    /// built anew): each query answers for its own set, as a fresh cache would, never with the
    /// other set's indices.
    @Test func aCacheFromAnotherSetIsNotUsed() {
        var rng = SplitMix64(seed: 0x1517_0007)
        let centre = Coordinate(latitude: 40.1, longitude: -8.24)
        var fencesA: [SSFence] = []
        for _ in 0..<40 {
            fencesA.append(ssRandomFence(ssGeo.direct(from: centre, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 800)), rng: &rng, maxSize: 300))
        }
        var fencesB = Array(fencesA.reversed())
        for _ in 0..<15 {
            fencesB.append(ssRandomFence(ssGeo.direct(from: centre, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 800)), rng: &rng, maxSize: 300))
        }
        let a = RegionSet(ssRegions(fencesA)), b = RegionSet(ssRegions(fencesB, prefix: "b")), c = RegionSet(ssRegions(fencesA))
        let sets = [(a, fencesA), (b, fencesB), (c, fencesA)]
        var shared = NearbyCache()
        var here = centre, bearing = 0.0
        var problems: [String] = []
        var required = 0, differentAnswers = 0
        for step in 0..<150 {
            bearing += rng.uniform(-40, 40)
            if ssGeo.distance(here, centre) > 900 { bearing = ssGeo.inverse(here, centre).initialBearing }
            let next = ssGeo.direct(from: here, bearing: bearing, distance: rng.uniform(1, 50))
            let from = here
            here = next
            let length = ECEF(from).distance(to: ECEF(next)) * (1 + 1e-4)
            let metres = rng.uniform(1, 20)
            var answers: [[Int]] = []
            for (k, (set, fences)) in sets.enumerated() {
                var got: [Int] = [], fresh: [Int] = []
                set.forEachRegion(along: from, next, length: length, within: metres, cache: &shared) { got.append($0) }
                var own = NearbyCache()
                set.forEachRegion(along: from, next, length: length, within: metres, cache: &own) { fresh.append($0) }
                let need = ssRequired(set, fences, from, next, metres: metres)
                required += need.count
                let w = "step \(step) set \(k): \(ssDescribe(from)) → \(ssDescribe(next)) metres \(metres)"
                if got.contains(where: { $0 < 0 || $0 >= set.count }) { problems.append("\(w): index out of range in \(got)") }
                if Set(got).count != got.count { problems.append("\(w): repeats in \(got.sorted())") }
                if !need.isSubset(of: got) { problems.append("\(w): misses \(need.subtracting(got).sorted())") }
                if got.sorted() != fresh.sorted() { problems.append("\(w): shared cache gave \(got.sorted()), a fresh one \(fresh.sorted())") }
                answers.append(got.sorted())
            }
            if answers[0] != answers[1] { differentAnswers += 1 }
        }
        #expect(required > 150 && differentAnswers > 50, "required \(required), steps where A and B answer differently \(differentAnswers)")
        #expect(problems.count == 0, "\(problems.count) problems; first: \(problems.prefix(6).joined(separator: "\n"))")
    }
}
