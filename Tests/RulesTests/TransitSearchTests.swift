import Foundation
import Geo
@testable import Rules
import Testing
import TestSupport
import Regions

// Property tests of the transit search: `RegionMonitor.pointAtDepth` (branch and bound on a
// 1-Lipschitz function) against analytic functions, and the monitor's transit events on random
// straight runs through and past circles, against the geometry. Every name here is private and
// prefixed `ts` so as not to clash with the module's other helpers.

private let tsGeo = Geodesic.wgs84
private let tsStart = UTCTime(year: 2026, month: 6, day: 1, nanosOfDay: 10 * 3_600_000_000_000)!

private func tsTime(_ seconds: Double) -> UTCTime { UTCTime(nanoseconds: tsStart.nanoseconds + Int64((seconds * 1e9).rounded())) }
private func tsSeconds(_ t: UTCTime) -> Double { Double(t.nanoseconds - tsStart.nanoseconds) / 1e9 }

/// `east` and `north` metres from `origin` (negative: west, south), along geodesics.
private func tsAt(_ origin: Coordinate, _ east: Double, _ north: Double) -> Coordinate {
    let e = tsGeo.direct(from: origin, bearing: east < 0 ? 270 : 90, distance: abs(east))
    return north == 0 ? e : tsGeo.direct(from: e, bearing: north > 0 ? 0 : 180, distance: abs(north))
}

private func tsFix(_ seconds: Double, _ c: Coordinate, error: Double?, hdop: Double?) -> Fix {
    Fix(time: tsTime(seconds), mode: .threeD, coordinate: c, horizontalError: error, hdop: hdop)
}

extension SplitMix64 {
    fileprivate mutating func tsChance(_ p: Double) -> Bool { uniform(0, 1) < p }
    fileprivate mutating func tsLogUniform(_ lo: Double, _ hi: Double) -> Double { exp(uniform(log(lo), log(hi))) }
    fileprivate mutating func tsInt(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// A 1-Lipschitz function of the distance along a path: the highest of some tents (slopes at
/// most 1), and of a plateau (a constant up to `plateauEnd`, falling at slope 1 after it).
private struct TSProfile: CustomStringConvertible {
    var tents: [(position: Double, height: Double, slope: Double)]
    var plateau: (height: Double, end: Double)?

    func callAsFunction(_ x: Double) -> Double {
        var best = -Double.infinity
        for t in tents { best = max(best, t.height - t.slope * abs(x - t.position)) }
        if let p = plateau { best = max(best, p.height - max(0, x - p.end)) }
        return best
    }

    /// The maximum on [0, length], exactly.
    func maximum(_ length: Double) -> Double {
        var best = -Double.infinity
        for t in tents { best = max(best, t.height - t.slope * max(0, -t.position, t.position - length)) }
        if let p = plateau { best = max(best, p.height) }
        return best
    }

    var description: String {
        "tents \(tents.map { "(at \($0.position) m, height \($0.height), slope \($0.slope))" }.joined(separator: ", "))" + (plateau.map { ", plateau \($0.height) to \($0.end) m" } ?? "")
    }
}

/// `pointAtDepth` on `profile` over `length` metres, with the number of evaluations it made.
private func tsSearch(_ depth: Double, _ length: Double, _ profile: TSProfile) -> (at: Double?, evaluations: Int) {
    var evaluations = 0
    let at = RegionMonitor.pointAtDepth(depth, length: length, profile(0), profile(length)) { f in
        evaluations += 1
        return profile(f * length)
    }
    return (at, evaluations)
}

@Suite struct PointAtDepth {
    /// Random profiles of one to four tents on paths up to 500 m: an answer is always a point at
    /// least `depth` deep; a profile whose maximum is below `depth` gives nil; one whose maximum
    /// is at least half a metre above `depth` gives an answer; never more than the budget (two evaluations a resolution step).
    @Test func tentPeaksAreFoundAndNoneIsInvented() {
        var rng = SplitMix64(seed: 0x7A11_0001)
        var problems: [String] = []
        var found = 0, belowAndNil = 0, clearlyAbove = 0, gray = 0, grayFound = 0
        for k in 0..<5_000 {
            let length = rng.tsLogUniform(0.3, 500)
            let depth = rng.uniform(-10, 40)
            var tents: [(position: Double, height: Double, slope: Double)] = []
            for _ in 0..<(1 + rng.tsInt(4)) {
                let position = rng.uniform(-0.2, 1.2) * length
                let height = k % 3 == 0 ? depth + rng.uniform(-1, 1) : depth + rng.uniform(-20, 20)
                tents.append((position, height, rng.tsChance(0.6) ? 1 : rng.uniform(0.05, 1)))
            }
            let profile = TSProfile(tents: tents)
            let top = profile.maximum(length)
            let (at, evaluations) = tsSearch(depth, length, profile)
            let w = "length \(length) depth \(depth) \(profile) (maximum \(top))"
            if evaluations > tsBudget(length) { problems.append("\(w): \(evaluations) evaluations") }
            if let at {
                found += 1
                if !(at >= 0 && at <= 1) || profile(at * length) < depth {
                    problems.append("\(w): answered \(at), where the profile is \(profile(at * length)) < depth")
                }
            }
            if top < depth {
                belowAndNil += 1
                if at != nil { problems.append("\(w): answered \(at!) though the maximum is below depth") }
            } else if top >= depth + 0.5 {
                clearlyAbove += 1
                if at == nil { problems.append("\(w): nil though the profile reaches \(top - depth) m above depth") }
            } else {
                gray += 1
                if at != nil { grayFound += 1 }
            }
        }
        #expect(found > 1_500 && belowAndNil > 1_000 && clearlyAbove > 1_500 && gray > 100,
                "coverage: found \(found), below \(belowAndNil), clearly above \(clearlyAbove), within half a metre \(gray)")
        #expect(problems.count == 0, "\(problems.count) problems; first: \(problems.prefix(5).joined(separator: "\n"))")
        print("pointAtDepth: peaks less than half a metre above depth found \(grayFound) of \(gray)")
    }

    /// Peaks just above depth (0.5–0.6 m, slope 1: under a metre and a bit wide), anywhere on
    /// paths of 1–500 m, alone or on a plateau just below depth that keeps every stretch's bound
    /// above depth: always found. Peaks less than half a metre above: any answer is deep enough.
    @Test func narrowPeaksJustAboveDepth() {
        var rng = SplitMix64(seed: 0x7A11_0002)
        var problems: [String] = []
        var clear = 0, shallow = 0, shallowFound = 0
        for k in 0..<4_000 {
            let length = k % 2 == 0 ? rng.uniform(1, 500) : rng.uniform(1, 250)
            let depth = rng.uniform(0, 30)
            let above = k % 4 < 2 ? rng.uniform(0.5, 0.6) : rng.uniform(1e-6, 0.5)
            let position = rng.uniform(0, 1) * length
            var profile = TSProfile(tents: [(position, depth + above, 1)])
            // The ends well below depth, unless the peak is near them.
            if k % 2 == 1 { profile.plateau = (depth - rng.tsLogUniform(1e-3, 1), length * rng.uniform(0, 1)) }
            let (at, evaluations) = tsSearch(depth, length, profile)
            let w = "length \(length) depth \(depth) \(profile)"
            if evaluations > tsBudget(length) { problems.append("\(w): \(evaluations) evaluations") }
            if let at, profile(at * length) < depth { problems.append("\(w): answered \(at) where the profile is below depth") }
            if above >= 0.5 {
                clear += 1
                if at == nil { problems.append("\(w): the peak \(above) m above depth was not found") }
            } else {
                shallow += 1
                if at != nil { shallowFound += 1 }
            }
        }
        #expect(clear > 1_800 && shallow > 1_800)
        #expect(problems.count == 0, "\(problems.count) problems; first: \(problems.prefix(5).joined(separator: "\n"))")
        print("pointAtDepth: peaks under half a metre above depth found \(shallowFound) of \(shallow)")
    }

    /// Profiles that stay below depth (tents, plateaus a nanometre to metres below, sums of
    /// sines of slope at most 1), on paths up to 10 km: nil, within the budget.
    @Test func profilesBelowDepthGiveNil() {
        var rng = SplitMix64(seed: 0x7A11_0003)
        var problems: [String] = []
        for k in 0..<3_000 {
            let length = rng.tsLogUniform(0.3, 10_000)
            let depth = rng.uniform(-10, 40)
            let gap = k % 3 == 0 ? 1e-9 : rng.tsLogUniform(1e-6, 20)
            var evaluations = 0
            let at: Double?
            let what: String
            if k % 2 == 0 {
                // A wave of slope at most 1 whose top is `gap` below depth.
                let amplitude = rng.uniform(0, 10), wavelength = max(2 * .pi * amplitude, 1) * rng.uniform(1, 5), phase = rng.uniform(0, 6.3)
                func d(_ x: Double) -> Double { depth - gap - amplitude * (1 - sin(2 * .pi * x / wavelength + phase)) }
                at = RegionMonitor.pointAtDepth(depth, length: length, d(0), d(length)) { f in evaluations += 1; return d(f * length) }
                what = "wave amplitude \(amplitude) wavelength \(wavelength) phase \(phase)"
            } else {
                let profile = TSProfile(tents: [(rng.uniform(0, 1) * length, depth - gap, 1), (rng.uniform(0, 1) * length, depth - gap - rng.uniform(0, 5), 0.5)],
                                        plateau: rng.tsChance(0.5) ? (depth - gap, rng.uniform(0, 1) * length) : nil)
                at = RegionMonitor.pointAtDepth(depth, length: length, profile(0), profile(length)) { f in evaluations += 1; return profile(f * length) }
                what = "\(profile)"
            }
            if at != nil || evaluations > tsBudget(length) {
                problems.append("length \(length) depth \(depth) gap \(gap) \(what): answered \(String(describing: at)) after \(evaluations) evaluations")
            }
        }
        #expect(problems.count == 0, "\(problems.count) problems; first: \(problems.prefix(5).joined(separator: "\n"))")
    }

    /// The guarantee on longer paths (a fix after a gap: 100 m/s allows 1 km in 10 s): a plateau 1 cm
    /// below depth for most of the path, then a peak 10 m above depth, 50 m before the end.
    @Test func aPeakAfterALongPlateauJustBelowDepthIsFound() {
        var missed: [String] = []
        for length in [300.0, 500, 600, 1_000, 2_000] {
            let depth = 5.0
            let profile = TSProfile(tents: [(length - 50, depth + 10, 1)], plateau: (depth - 0.01, length - 100))
            let (at, evaluations) = tsSearch(depth, length, profile)
            if at == nil { missed.append("length \(length): nil after \(evaluations) evaluations; the profile reaches \(profile.maximum(length)) at \(length - 50) m") }
            if let at { #expect(profile(at * length) >= depth) }
        }
        #expect(missed.count == 0, "\(missed.joined(separator: "\n"))")
    }
}

// MARK: - Transit on random runs

/// A circle placed on a run, and what the geometry says of it.
private struct TSCircle {
    var centre: Coordinate
    var radius: Double
    /// Distance of the run from the centre.
    var offset: Double
    /// Through: the depth the run reaches (radius − offset) is at least the margin plus half a
    /// metre, and the expected crossing times; miss: that depth is below the margin.
    var through: Bool
    var enter = 0.0, exit = 0.0
    var gap: Int
    var margin: Double
}

@Suite struct TransitOnRandomRuns {
    /// Straight runs at 5–40 m/s with fixes at 1 Hz (mid-latitudes, across ±180°, across 85° N and
    /// S), with circles of 3–30 m between fixes. A circle the run crosses at least half a metre
    /// deeper than the margin (hysteresis + accuracy factor × the larger error of the two fixes)
    /// gives exactly an enter and an exit, both transit, enter first, at times within 0.05 s of
    /// the analytic crossings (and positions within 1 cm of the rim); a circle the run passes
    /// farther than radius − margin from the centre (down to 1 mm too far) gives no event at all.
    /// The events come in time order.
    @Test func throughCirclesTransitAndPastCirclesStayQuiet() {
        var rng = SplitMix64(seed: 0x7A11_0004)
        var problems: [String] = []
        var throughCount = 0, centreCount = 0, missCount = 0, justMissed = 0, smallCircleMisses = 0
        var antimeridianRuns = 0, polarRuns = 0
        var worstTime = 0.0, worstRim = 0.0
        for run in 0..<240 {
            var config = MonitorConfig()
            switch run % 3 {
            case 1: config.hysteresisMetres = 2; config.accuracyFactor = 0.5
            case 2: config.hysteresisMetres = 1; config.accuracyFactor = 1.5
            default: break
            }
            let speed = rng.uniform(5, 40)
            let fixes = 10
            let runLength = speed * Double(fixes - 1)
            var start: Coordinate
            var bearing: Double
            switch run % 5 {
            case 3:  // east across the antimeridian, half way
                let lat = rng.uniform(-60, 60)
                bearing = 90 + rng.uniform(-30, 30)
                start = Coordinate(latitude: lat, longitude: 180 - runLength / 2 / (111_319 * cos(lat * .pi / 180)))
                antimeridianRuns += 1
            case 4:  // poleward across 85°, half way
                let north = run % 2 == 0
                bearing = north ? rng.uniform(-20, 20) : 180 + rng.uniform(-20, 20)
                start = Coordinate(latitude: (north ? 1 : -1) * (85 - runLength / 2 / 111_700), longitude: rng.uniform(-180, 180))
                polarRuns += 1
            default:
                start = Coordinate(latitude: rng.uniform(-70, 70), longitude: rng.uniform(-180, 180))
                bearing = rng.uniform(0, 360)
            }
            if bearing < 0 { bearing += 360 }
            func point(_ s: Double) -> Coordinate { s == 0 ? start : tsGeo.direct(from: start, bearing: bearing, distance: s) }

            var track: [Fix] = []
            var errors: [Double] = []
            for k in 0..<fixes {
                let f: Fix
                switch rng.tsInt(5) {
                case 0: f = tsFix(Double(k), point(Double(k) * speed), error: 0, hdop: 0.8)
                case 1, 2: f = tsFix(Double(k), point(Double(k) * speed), error: rng.uniform(0, 3), hdop: 0.9)
                default: f = tsFix(Double(k), point(Double(k) * speed), error: nil, hdop: rng.uniform(0.5, 1.2))
                }
                track.append(f)
                errors.append(QualityGate.horizontalError(f))
            }

            var circles: [TSCircle] = []
            for gap in 0..<(fixes - 1) {
                let pathMargin = config.hysteresisMetres + config.accuracyFactor * max(errors[gap], errors[gap + 1])
                let s0 = Double(gap) * speed
                let minR = max(3, pathMargin + 0.5), maxR = min(30, speed / 2 - 0.1)
                var through = rng.tsChance(0.6) && minR <= maxR
                if !through && rng.tsChance(0.15) { continue }
                var radius: Double, offset: Double, along: Double
                if through {
                    radius = rng.uniform(minR, maxR)
                    offset = rng.tsChance(0.5) ? 0 : rng.uniform(0, radius - pathMargin - 0.5)
                    let half = (radius * radius - offset * offset).squareRoot()
                    along = s0 + rng.uniform(half + 0.05, speed - half - 0.05)
                } else {
                    radius = rng.uniform(3, 30)
                    let least = max(0, radius - pathMargin + 0.001)
                    offset = rng.tsChance(0.3) ? least : least + rng.uniform(0, 15)
                    along = s0 + rng.uniform(0, speed)
                    through = false
                }
                let q = point(along)
                let side = tsGeo.inverse(q, point(along + 1)).initialBearing + (rng.tsChance(0.5) ? 90 : -90)
                var centre = offset > 0 ? tsGeo.direct(from: q, bearing: side, distance: offset) : q
                var margin = pathMargin
                if !through, track.contains(where: { tsGeo.distance(centre, $0.coordinate!) <= radius + 0.01 }) {
                    // A circle over a fix is judged at that fix (and its neighbours' paths) too: the
                    // run must stay shallower than the smallest margin of the run.
                    margin = config.hysteresisMetres + config.accuracyFactor * errors.min()!
                    offset = max(offset, radius - margin + 0.001)
                    centre = tsGeo.direct(from: q, bearing: side, distance: offset)
                }
                // The first fix sets the state silently: keep it outside every circle.
                if tsGeo.distance(centre, track[0].coordinate!) <= radius + 0.01 { continue }
                var c = TSCircle(centre: centre, radius: radius, offset: offset, through: through, gap: gap, margin: margin)
                if through {
                    let half = (radius * radius - offset * offset).squareRoot()
                    c.enter = (along - half) / speed
                    c.exit = (along + half) / speed
                    throughCount += 1
                    if offset == 0 { centreCount += 1 }
                } else {
                    missCount += 1
                    if offset == max(0, radius - margin + 0.001), radius > margin { justMissed += 1 }
                    if radius < margin { smallCircleMisses += 1 }
                }
                circles.append(c)
            }
            guard !circles.isEmpty else { continue }
            let regions = circles.enumerated().map { k, c in
                Region(id: "c\(k)", kind: .plant, name: "c\(k)", shape: .circle(center: c.centre, radius: c.radius))
            }
            var monitor = RegionMonitor(regions: RegionSet(regions), config: config)
            var events: [RegionEvent] = []
            for f in track { monitor.process(f) { events.append($0) } }
            #expect(monitor.gate.accepted == fixes, "run \(run): the gate dropped fixes")

            let w = "run \(run) (start \(start.latitude), \(start.longitude), bearing \(bearing), \(speed) m/s, hysteresis \(config.hysteresisMetres), factor \(config.accuracyFactor), errors \(errors))"
            for pair in zip(events, events.dropFirst()) where pair.1.time < pair.0.time {
                problems.append("\(w): events out of time order: \(pair.0.type) of \(pair.0.region) at \(tsSeconds(pair.0.time)) s before \(pair.1.type) of \(pair.1.region) at \(tsSeconds(pair.1.time)) s")
            }
            for (i, c) in circles.enumerated() {
                let mine = events.filter { $0.region == i }
                let what = "\(w): circle \(i) radius \(c.radius) at \(c.centre.latitude), \(c.centre.longitude), offset \(c.offset), margin \(c.margin), between fixes \(c.gap) and \(c.gap + 1)"
                let got = mine.map { "\($0.type)\($0.transit ? " (transit)" : "") at \(tsSeconds($0.time)) s" }
                if !c.through {
                    if !mine.isEmpty { problems.append("\(what): passes \(c.radius - c.offset) m deep, under the margin, yet \(got)") }
                    continue
                }
                guard mine.count == 2, mine[0].type == .enter, mine[1].type == .exit, mine.allSatisfy(\.transit) else {
                    problems.append("\(what): expected a transit enter at \(c.enter) s and exit at \(c.exit) s, got \(got)")
                    continue
                }
                let tIn = tsSeconds(mine[0].time), tOut = tsSeconds(mine[1].time)
                worstTime = max(worstTime, abs(tIn - c.enter), abs(tOut - c.exit))
                if !(tIn < tOut) || abs(tIn - c.enter) > 0.05 || abs(tOut - c.exit) > 0.05 {
                    problems.append("\(what): expected enter \(c.enter) s, exit \(c.exit) s; got \(tIn) s, \(tOut) s")
                }
                let rim = max(abs(tsGeo.distance(c.centre, mine[0].coordinate) - c.radius), abs(tsGeo.distance(c.centre, mine[1].coordinate) - c.radius))
                worstRim = max(worstRim, rim)
                if rim > 0.01 { problems.append("\(what): event positions \(rim) m off the rim") }
            }
        }
        #expect(throughCount > 400 && centreCount > 150 && missCount > 500 && justMissed > 100 && smallCircleMisses > 50 && antimeridianRuns > 40 && polarRuns > 40,
                "coverage: through \(throughCount) (\(centreCount) by the centre), missed \(missCount) (\(justMissed) by a millimetre, \(smallCircleMisses) smaller than the margin)")
        #expect(problems.count == 0, "\(problems.count) problems; first: \(problems.prefix(5).joined(separator: "\n"))")
        print("transit: \(throughCount) crossings, worst time error \(worstTime) s, worst rim error \(worstRim) m; \(missCount) misses")
    }

    /// The monitor-level consequence of a long plateau just below the margin: a 9.98 m wide corridor
    /// (200 m or 1.8 km long) ending in a 40 m square, a run along the corridor's axis from 20 m
    /// before it to 20 m past the square, fixes 30 s apart (at most 63 m/s). The path is 20 m deep
    /// in the square, 15 m beyond the 5 m margin: a transit, whatever the corridor's length.
    @Test(arguments: [200.0, 1_800.0]) func aLongPathAlongACorridorIntoASquareIsATransit(corridor: Double) throws {
        let origin = Coordinate(latitude: 40.1, longitude: -8.24)
        func at(_ east: Double, _ north: Double) -> Coordinate { tsAt(origin, east, north) }
        let c = corridor
        let ring = [(0.0, -4.99), (c, -4.99), (c, -20), (c + 40, -20), (c + 40, 20), (c, 20), (c, 4.99), (0, 4.99)].map { at($0.0, $0.1) }
        let set = RegionSet([Region(id: "keyhole", kind: .plant, name: "keyhole", shape: .polygons([[ring]]))])
        let a = at(-20, 0), b = at(c + 60, 0)
        #expect(set.signedDistance(0, a) < -19 && set.signedDistance(0, b) < -19)
        #expect(abs(set.signedDistance(0, at(c / 2, 0)) - 4.99) < 0.05, "the corridor is 4.99 m deep on its axis")
        #expect(set.signedDistance(0, at(c + 20, 0)) > 19.9, "the square is 20 m deep at its centre")
        var monitor = RegionMonitor(regions: set, config: MonitorConfig())
        let events = monitor.process(tsFix(0, a, error: 0, hdop: 0.8)) + monitor.process(tsFix(30, b, error: 0, hdop: 0.8))
        #expect(monitor.gate.accepted == 2)
        #expect(events.map(\.type) == [.enter, .exit] && events.allSatisfy(\.transit),
                "got \(events.map { "\($0.type) at \(tsSeconds($0.time)) s" })")
    }
}

/// `pointAtDepth`'s budget: two evaluations per resolution step (half a metre, or 1/4096 of a
/// path over 2 km), plus 64.
private func tsBudget(_ length: Double) -> Int {
    2 * Int((length / max(0.5, length / 4096)).rounded(.up)) + 64
}

/// Transit takes a polygon's distance at each end of its path from the evaluation of that end's
/// fix, where it computed one (`RegionMonitor.searched`), rather than compute it again.
@Suite struct TransitReusesDistances {
    /// 3.2 km square, its south edge running east from `origin`; `at(east, north)` metres from it.
    private static let origin = Coordinate(latitude: 45, longitude: 7)
    private static func at(_ east: Double, _ north: Double) -> Coordinate { tsAt(origin, east, north) }
    private static let field = Region(id: "field", kind: .reforestation, name: "field", shape: .polygons(Polygons([[[
        at(0, 0), at(3_200, 0), at(3_200, 3_200), at(0, 3_200),
    ]]])))

    /// A polygon's exact bound from `classify` is its `approximateSignedDistance`, bit for bit:
    /// what transit's search takes in its place. Points across the square's raster cells, on
    /// both sides of its edges.
    @Test func aPolygonsExactBoundIsItsSearchDistance() {
        let set = RegionSet([Self.field])
        var rng = SplitMix64(seed: 11)
        var exact = 0
        for _ in 0..<4_000 {
            let c = Self.at(rng.uniform(-50, 3_250), rng.uniform(-50, 3_250))
            let p = ECEF(c)
            let (_, bound, isExact) = set.classify(0, c, p)
            guard isExact else { continue }
            exact += 1
            #expect(bound.bitPattern == set.approximateSignedDistance(0, p).bitPattern, "\(c)")
        }
        #expect(exact > 200, "\(exact) points in the raster's edge cells")
    }

    /// A restore starts the fix numbers again: a distance kept from before it must not be taken
    /// for one at the restored fix or the next. Here one kept 8 m inside the square, under the
    /// number the next fix takes, would have made a path 4 m outside it a transit.
    @Test func aRestoreForgetsTheDistancesItsFixesComputed() {
        var monitor = RegionMonitor(regions: RegionSet([Self.field]))
        func fix(_ s: Double, _ east: Double, _ north: Double) -> Fix {
            Fix(time: tsTime(s), mode: .threeD, coordinate: Self.at(east, north), horizontalError: 0)
        }
        #expect(monitor.process(fix(0, 1_000, 8)).isEmpty, "the first fix: inside, silently")
        // 20 m along the edge: the bound no longer shows it inside, so the square is classified
        // there, in a raster cell its edge crosses, and its distance kept.
        #expect(monitor.process(fix(2, 1_020, 8)).isEmpty)
        #expect(monitor.searched(0, at: 2).map { abs($0 - 8) < 0.01 } == true, "8 m inside, kept for fix 2")

        // Restored to a fix 4 m south of the edge, outside; the next fix 30 m east along it.
        monitor.restore(last: LastFix(time: tsTime(100), coordinate: Self.at(1_500, -4), error: 0), regions: [:])
        var events: [RegionEvent] = []
        monitor.process(fix(101, 1_530, -4)) { events.append($0) }
        #expect(events.isEmpty, "\(events)")
        #expect(!monitor.inside[0])
    }

    /// Fix numbers wrap after 2³² fixes: the stamps are renumbered, and the distances kept stay
    /// with the fixes they were computed at. A walk east through a row of 20 m squares, each fix
    /// 0.3 m inside an edge (in a raster cell the edge crosses, so its distance is computed and
    /// kept; short of the 6 m margin, so no enter): the 19.4 m steps across a square are transits
    /// that take both ends' kept distances. Two monitors in step, one numbering from 0 and one
    /// wrapping at each fix of the walk in turn: the same events, and the same distances kept for
    /// this fix and the one before, after every fix.
    @Test func fixNumbersWrapWithoutChangingAnEventOrAKeptDistance() {
        var squares: [Region] = []
        for k in 0..<12 {
            let e = 60 + 100 * Double(k), n = -300.0
            squares.append(Region(id: "s\(k)", kind: .album, name: "s\(k)", shape: .polygons(Polygons([[[
                Self.at(e - 10, n - 10), Self.at(e + 10, n - 10), Self.at(e + 10, n + 10), Self.at(e - 10, n + 10),
            ]]]))))
        }
        let set = RegionSet(squares)
        var walk: [Double] = []
        for k in 0..<12 {
            let west: Double = 50.3 + 100 * Double(k)
            walk += [west, west + 19.4]
        }
        func describe(_ e: RegionEvent) -> String { "\(e.time.nanoseconds) \(e.type) \(e.region) \(e.transit)" }
        var transits = 0, kept = 0, differences: [String] = []
        for wrapAt in 1..<walk.count {
            var plain = RegionMonitor(regions: set), wrapping = RegionMonitor(regions: set)
            wrapping.fixNumber = UInt32.max - UInt32(wrapAt)  // fix `wrapAt` (from 0) is numbered 2
            for (s, east) in walk.enumerated() {
                let fix = Fix(time: tsTime(Double(s)), mode: .threeD, coordinate: Self.at(east, -300), horizontalError: 1)
                var a: [String] = [], b: [String] = []
                plain.process(fix) { a.append(describe($0)) }
                wrapping.process(fix) { b.append(describe($0)) }
                if a != b { differences.append("wrapping at fix \(wrapAt), fix \(s): \(a) against \(b)") }
                transits += a.filter { $0.hasSuffix("true") }.count
                for i in 0..<set.count {
                    let now = plain.searched(i, at: plain.fixNumber), before = plain.searched(i, at: plain.fixNumber &- 1)
                    if now != wrapping.searched(i, at: wrapping.fixNumber) || before != wrapping.searched(i, at: wrapping.fixNumber &- 1) {
                        differences.append("wrapping at fix \(wrapAt), fix \(s), square \(i): the distances kept")
                    }
                    if now != nil { kept += 1 }
                }
            }
        }
        #expect(differences.isEmpty, "\(differences.count): \(differences.prefix(3))")
        #expect(transits >= 11 * (walk.count - 1), "\(transits) transit events")
        #expect(kept >= (walk.count - 1) * (walk.count - 1), "\(kept) distances kept")
    }
}
