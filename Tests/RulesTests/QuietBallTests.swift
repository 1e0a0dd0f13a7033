import Foundation
import Geo
@testable import Rules
import Testing
import TestSupport
import Regions

// The quiet ball (QuietBall.swift, RegionMonitor+QuietBall.swift): fixes in it skip the regions. It must change nothing a user
// sees: the same events, at the same times, with the same numbers, and the same state, as a
// monitor that evaluates every fix. Every name here is private and prefixed `qb`.

private let qbGeo = Geodesic.wgs84
private let qbStart = UTCTime(year: 2026, month: 6, day: 1, nanosOfDay: 8 * 3_600_000_000_000)!

private func qbTime(_ seconds: Double) -> UTCTime { UTCTime(nanoseconds: qbStart.nanoseconds + Int64((seconds * 1e9).rounded())) }

extension SplitMix64 {
    fileprivate mutating func qbInt(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    fileprivate mutating func qbChance(_ p: Double) -> Bool { uniform(0, 1) < p }
    fileprivate mutating func qbGauss() -> Double {
        (-2 * log(max(1e-300, uniform(0, 1)))).squareRoot() * cos(2 * .pi * uniform(0, 1))
    }
}

/// A star-shaped ring around `centre`, counter-clockwise, `n` vertices between `inner` and
/// `outer` metres out.
private func qbStar(_ centre: Coordinate, _ n: Int, _ inner: Double, _ outer: Double, _ rng: inout SplitMix64) -> [Coordinate] {
    let turn = rng.uniform(0, 360)
    return (0..<n).map { k in
        qbGeo.direct(from: centre, bearing: turn - 360 * Double(k) / Double(n), distance: rng.uniform(inner, outer))
    }
}

/// Fences scattered around `centre` within `spread` metres: circles from 4 to 300 m, concave
/// polygons from 15 to 400 m across, a third with a hole, of every kind; plants due at
/// different times.
private func qbScene(_ centre: Coordinate, spread: Double, count: Int, _ rng: inout SplitMix64) -> RegionSet {
    var regions: [Region] = []
    for k in 0..<count {
        let at = qbGeo.direct(from: centre, bearing: rng.uniform(0, 360), distance: spread * rng.uniform(0, 1).squareRoot())
        let kind = RegionKind.allCases[rng.qbInt(3)]
        let shape: Shape
        if rng.qbChance(0.4) {
            shape = .circle(center: at, radius: exp(rng.uniform(log(4), log(300))))
        } else {
            let size = exp(rng.uniform(log(15), log(400))) / 2
            var rings = [qbStar(at, 6 + rng.qbInt(30), size * 0.5, size, &rng)]
            if rng.qbChance(0.33) { rings.append(qbStar(at, 5 + rng.qbInt(8), size * 0.1, size * 0.3, &rng).reversed()) }
            shape = .polygons([rings])
        }
        let watered = kind == .plant ? qbTime(-86_400 * rng.uniform(0, 3)) : nil
        regions.append(Region(id: "r\(k)", kind: kind, name: "r\(k)", shape: shape,
                              intervalDays: kind == .plant ? 1 + rng.qbInt(2) : nil, lastWatered: watered))
    }
    // Circles 5 to 60 km across whose boundary runs through the scene: there the chord and the
    // geodesic to the centre differ by up to a few centimetres.
    for k in 0..<4 {
        let radius = rng.uniform(5_000, 60_000)
        let near = qbGeo.direct(from: centre, bearing: rng.uniform(0, 360), distance: spread * rng.uniform(0, 0.5))
        let middle = qbGeo.direct(from: near, bearing: rng.uniform(0, 360), distance: radius)
        regions.append(Region(id: "big\(k)", kind: .reforestation, name: "big\(k)", shape: .circle(center: middle, radius: radius)))
    }
    return RegionSet(regions)
}

/// A track from `centre`: spells of standing (GPS jitter of 0.3–3 m), walking (1–2 m/s) and
/// driving (5–25 m/s), with turns, errors that wander between 1 and 15 m (some fixes give only
/// HDOP) or, with `rtk`, of 0 to 0.5 m, and outages.
private func qbTrack(_ centre: Coordinate, seconds: Int, rtk: Bool, _ rng: inout SplitMix64) -> [Fix] {
    var fixes: [Fix] = []
    var position = centre, heading = rng.uniform(0, 360), speed = 0.0, jitter = 1.0
    var spellLeft = 0, error = 5.0, outage = 0
    for s in 0..<seconds {
        if spellLeft == 0 {
            spellLeft = 20 + rng.qbInt(200)
            switch rng.qbInt(3) {
            case 0: speed = 0
            case 1: speed = rng.uniform(1, 2)
            default: speed = rng.uniform(5, 25)
            }
            jitter = rng.uniform(0.3, 3)
        }
        spellLeft -= 1
        heading += rng.qbChance(0.05) ? rng.uniform(-100, 100) : rng.qbGauss() * 5
        if speed > 0 { position = qbGeo.direct(from: position, bearing: heading, distance: speed) }
        error = min(15, max(1, error + rng.qbGauss() * 0.3))
        if outage > 0 { outage -= 1; continue }
        if rng.qbChance(0.002) { outage = 5 + rng.qbInt(40) }
        let seen = qbGeo.direct(from: position, bearing: rng.uniform(0, 360), distance: abs(rng.qbGauss()) * jitter)
        let onlyHDOP = !rtk && rng.qbChance(0.2)
        // An RTK receiver: centimetres of error, now and then none at all.
        let e = rtk ? (rng.qbChance(0.1) ? 0 : rng.uniform(0.01, 0.5)) : error
        fixes.append(Fix(time: qbTime(Double(s)), mode: .threeD, coordinate: seen,
                         horizontalError: onlyHDOP ? nil : e, hdop: e / 5))
    }
    return fixes
}

/// The events of `fixes` through a monitor with quiet balls on or off, with a `water`
/// acknowledgement of every plant inside at each of `waterAt` (seconds), and the monitor's state
/// stored and restored into a fresh one (as the daemon does on a restart) after fix `cut`; the
/// final state, the last fix and how many fixes were quiet. After each fix in `newAt`, every
/// region is offered to `treatAsNew` (as a region added where the walker stands would be); how
/// many became new is counted.
private func qbRun(_ set: RegionSet, _ config: MonitorConfig, _ fixes: [Fix], quiet: Bool, waterAt: [Double], cut: Int, newAt: Set<Int> = [])
    -> (events: [RegionEvent], states: [RegionState], last: LastFix?, quietFixes: Int, watchedFixes: Int, madeNew: Int) {
    var monitor = RegionMonitor(regions: set, config: config)
    monitor.quietBalls = quiet
    var events: [RegionEvent] = []
    var waterings = waterAt.sorted()
    var quietFixes = 0, watchedFixes = 0, madeNew = 0
    for (k, fix) in fixes.enumerated() {
        if let w = waterings.first, let t = fix.time, t >= qbTime(w) {
            waterings.removeFirst()
            for i in 0..<set.count where monitor.inside[i] {
                if let e = monitor.water(i, at: t) { events.append(e) }
            }
        }
        monitor.process(fix) { events.append($0) }
        #expect(monitor.newRegions == monitor.table.new.count(where: { $0 }), "fix \(k): the count of new regions")
        if newAt.contains(k) {
            for i in 0..<set.count where !monitor.table.new[i] {
                monitor.treatAsNew(i)
                if monitor.table.new[i] { madeNew += 1 }
            }
        }
        if k == cut {
            var states: [String: RegionState] = [:]
            for i in 0..<set.count { states[set.regions[i].id] = monitor.state(of: i) }
            quietFixes += monitor.quietFixes
            watchedFixes += monitor.watchedFixes
            let last = monitor.lastFix
            monitor = RegionMonitor(regions: set, config: config)
            monitor.quietBalls = quiet
            monitor.restore(last: last, regions: states)
        }
    }
    return (events, (0..<set.count).map { monitor.state(of: $0) }, monitor.lastFix, quietFixes + monitor.quietFixes,
            watchedFixes + monitor.watchedFixes, madeNew)
}

/// Two events equal bit for bit (`==` takes −0.0 for 0.0).
private func qbSame(_ a: RegionEvent, _ b: RegionEvent) -> Bool {
    a.time == b.time && a.type == b.type && a.region == b.region && a.initial == b.initial && a.transit == b.transit
        && a.coordinate.latitude.bitPattern == b.coordinate.latitude.bitPattern
        && a.coordinate.longitude.bitPattern == b.coordinate.longitude.bitPattern
        && a.distance.bitPattern == b.distance.bitPattern && a.error.bitPattern == b.error.bitPattern
}

@Suite struct QuietBalls {
    /// Random scenes in six places (Lisbon, 60°N, 69.6°N, the equator, Cape Town, across the
    /// antimeridian), with circles up to 60 km across among the small fences; random tracks (a
    /// quarter of them RTK-accurate), two waterings and a restart each; five configurations. The
    /// events and final states with quiet balls equal those without, event for event and bit
    /// for bit. Over all cases a good share of the fixes must have been quiet, or this would
    /// test nothing.
    @Test func quietBallsChangeNoEventAndNoState() {
        let places = [Coordinate(latitude: 38.70, longitude: -9.14), Coordinate(latitude: 60, longitude: 25),
                      Coordinate(latitude: 69.6, longitude: 18.9), Coordinate(latitude: 0.01, longitude: 30),
                      Coordinate(latitude: -33.9, longitude: 18.4), Coordinate(latitude: -17, longitude: 179.995)]
        var configs: [MonitorConfig] = []
        configs.append(MonitorConfig())
        var c = MonitorConfig(); c.hysteresisMetres = 0; configs.append(c)
        c = MonitorConfig(); c.accuracyFactor = 0; c.dwellSeconds = 20; configs.append(c)
        c = MonitorConfig(); c.initialEnter = true; c.accuracyFactor = 2; configs.append(c)
        c = MonitorConfig(); c.transit = false; c.hysteresisMetres = 2; configs.append(c)
        var rng = SplitMix64(seed: 0x0B_A11)
        var fixes = 0, quiet = 0, watched = 0, events = 0, transits = 0, madeNew = 0, initialLater = 0
        var problems: [String] = []
        for k in 0..<30 {
            let place = places[k % places.count]
            let set = qbScene(place, spread: 800, count: 100 + rng.qbInt(200), &rng)
            let config = configs[k % configs.count]
            let track = qbTrack(place, seconds: 2000, rtk: k % 4 == 3, &rng)
            let waterAt = [rng.uniform(0, 2000), rng.uniform(0, 2000)]
            let cut = rng.qbInt(track.count)
            // Regions added where the walker stands, now and then (their first enter is `initial`).
            let newAt = Set((0..<12).map { _ in rng.qbInt(track.count) })
            let plain = qbRun(set, config, track, quiet: false, waterAt: waterAt, cut: cut, newAt: newAt)
            let fast = qbRun(set, config, track, quiet: true, waterAt: waterAt, cut: cut, newAt: newAt)
            madeNew += plain.madeNew
            initialLater += plain.events.filter { $0.initial && $0.time > track[0].time! }.count
            fixes += track.count
            quiet += fast.quietFixes
            watched += fast.watchedFixes
            events += plain.events.count
            transits += plain.events.filter(\.transit).count
            if plain.events.count != fast.events.count || !zip(plain.events, fast.events).allSatisfy(qbSame) {
                var first = 0
                while first < min(plain.events.count, fast.events.count), qbSame(plain.events[first], fast.events[first]) { first += 1 }
                problems.append("case \(k) at \(place): \(plain.events.count) events without balls, \(fast.events.count) with; first difference at \(first): "
                                + "\(plain.events.dropFirst(first).first.map { "\($0)" } ?? "none") vs \(fast.events.dropFirst(first).first.map { "\($0)" } ?? "none")")
            }
            if plain.states != fast.states || plain.last != fast.last { problems.append("case \(k) at \(place): the final states differ") }
            #expect(plain.quietFixes == 0)
        }
        #expect(problems.isEmpty, "\(problems.prefix(3).joined(separator: "\n"))")
        #expect(events > 1000 && transits > 50, "only \(events) events, \(transits) in transit: the scenes test too little")
        #expect(madeNew > 30 && initialLater > 5, "only \(madeNew) regions made new, \(initialLater) entered as new: too few to test them")
        #expect(Double(quiet) > 0.3 * Double(fixes), "only \(quiet) of \(fixes) fixes were quiet")
        // Fixes in a ball that left regions out, evaluated those alone: also equal.
        #expect(Double(watched) > 0.05 * Double(fixes), "only \(watched) of \(fixes) fixes evaluated a ball's watched regions")
        print("quiet balls: \(quiet) of \(fixes) fixes quiet (\(watched) of them evaluating watched regions), \(events) events (\(transits) in transit, \(initialLater) of regions made new), all equal")
    }

    /// A region made new where the walker stands (added at runtime: `treatAsNew`) is settled by
    /// the first fix that evaluates it outside, and its later enter is then an ordinary one. With
    /// quiet balls, a ball once skipped that fix: a ball that watched the region kept its bound,
    /// which said "short of the margin" and returned before the region was settled; one that
    /// did not watch it never evaluated it. Both gave `initial: true` where every fix evaluated
    /// gives `false`. Two walks, a polygon and a circle, each with both monitors.
    @Test func aRegionMadeNewSettlesAsItWouldWithoutBalls() {
        let g = qbGeo
        let c = Coordinate(latitude: 45, longitude: 7)
        /// `east` and `north` metres from `c`.
        func at(_ east: Double, _ north: Double) -> Coordinate {
            g.direct(from: g.direct(from: c, bearing: 90, distance: east), bearing: 0, distance: north)
        }
        let square = Region(id: "square", kind: .album, name: "square", shape: .polygons(Polygons([[[
            at(-30, -30), at(30, -30), at(30, 30), at(-30, 30),
        ]]])))
        let circle = Region(id: "circle", kind: .album, name: "circle", shape: .circle(center: c, radius: 20))
        // (region, walk in metres east and north of the centre, the fix after which it is made new)
        let walks: [(Region, [(Double, Double)], Int)] = [
            // Out, 2 m in (short of a 7 m margin), 1 m along, 1 m out, 20 m in.
            (square, [(60, 1), (28, 1), (28, 2), (31, 2), (10, 2)], 1),
            // Out, 2 m in, standing still, 1 m out, at the centre.
            (circle, [(40, 0), (18, 0), (18, 0), (21, 0), (0, 0)], 1),
        ]
        for (region, walk, newAfter) in walks {
            var runs: [[RegionEvent]] = []
            for quiet in [false, true] {
                var monitor = RegionMonitor(regions: RegionSet([region]))
                monitor.quietBalls = quiet
                var events: [RegionEvent] = []
                for (k, (east, north)) in walk.enumerated() {
                    monitor.process(Fix(time: qbTime(Double(k)), mode: .threeD, coordinate: at(east, north), horizontalError: 2, hdop: 0.4)) { events.append($0) }
                    if k == newAfter {
                        monitor.treatAsNew(0)
                        #expect(monitor.table.new[0], "\(region.id): made new")
                    }
                }
                runs.append(events)
            }
            #expect(runs[0].map(\.type) == [.enter, .captureAllowed] && runs[0].first?.initial == false, "\(region.id): \(runs[0])")
            #expect(runs[0].count == runs[1].count && zip(runs[0], runs[1]).allSatisfy(qbSame), "\(region.id): \(runs[0]) without balls, \(runs[1]) with")
        }
    }

    /// A restore puts the whole state back: no region stays new from before it. One that did was
    /// entered again, flagged `initial`, at the second fix after the restore, while already inside.
    @Test func aRestoreForgetsWhichRegionsWereNew() {
        let c = Coordinate(latitude: 45, longitude: 7)
        let set = RegionSet([Region(id: "circle", kind: .album, name: "circle", shape: .circle(center: c, radius: 20))])
        for quiet in [false, true] {
            var monitor = RegionMonitor(regions: set)
            monitor.quietBalls = quiet
            func fix(_ s: Double, _ east: Double) -> Fix {
                Fix(time: qbTime(s), mode: .threeD, coordinate: qbGeo.direct(from: c, bearing: 90, distance: east), horizontalError: 2, hdop: 0.4)
            }
            #expect(monitor.process(fix(0, 40)).isEmpty)
            #expect(monitor.process(fix(1, 18)).isEmpty, "2 m in, short of the margin")
            monitor.treatAsNew(0)
            #expect(monitor.newRegions == 1)
            monitor.restore(last: nil, regions: [:])
            #expect(monitor.newRegions == 0 && !monitor.table.new[0])
            #expect(monitor.process(fix(2, 0)).isEmpty, "the first fix: inside, silently")
            #expect(monitor.process(fix(3, 0)).isEmpty, "still inside: nothing")
            #expect(monitor.inside[0])
        }
    }

    /// A receiver standing still with 2 m of jitter deep inside a 200 m circle: after the first
    /// fixes every fix is quiet, and dwell still fires at 60 s, to the second.
    @Test func standingStillIsQuietAndDwellFiresOnTime() {
        let centre = Coordinate(latitude: 45, longitude: 7)
        let set = RegionSet([Region(id: "field", kind: .album, name: "field", shape: .circle(center: centre, radius: 200))])
        var rng = SplitMix64(seed: 7)
        var monitor = RegionMonitor(regions: set)
        var events: [RegionEvent] = []
        for s in 0..<600 {
            let c = qbGeo.direct(from: centre, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 2))
            monitor.process(Fix(time: qbTime(Double(s)), mode: .threeD, coordinate: c, horizontalError: 3)) { events.append($0) }
        }
        #expect(events.map(\.type) == [.dwell])
        #expect(events.first?.time == qbTime(60))
        #expect(monitor.quietFixes >= 597, "\(monitor.quietFixes) of 600 fixes quiet")
    }

    /// Standing by a plant whose interval runs out at 100 s: one `water_due` at 100 s, from a
    /// quiet fix, and none after.
    @Test func aPlantFallsDueWhileTheFixesAreQuiet() {
        let centre = Coordinate(latitude: 45, longitude: 7)
        let watered = UTCTime(nanoseconds: qbTime(100).nanoseconds - UTCTime.nanosPerDay)
        let set = RegionSet([Region(id: "oak", kind: .plant, name: "oak", shape: .circle(center: centre, radius: 30),
                                    intervalDays: 1, lastWatered: watered)])
        var config = MonitorConfig()
        config.dwellSeconds = 0
        var monitor = RegionMonitor(regions: set, config: config)
        var events: [RegionEvent] = []
        var quietBefore = 0
        for s in 0..<300 {
            if s == 100 { quietBefore = monitor.quietFixes }
            let c = qbGeo.direct(from: centre, bearing: Double(s * 37 % 360), distance: 0.5)
            monitor.process(Fix(time: qbTime(Double(s)), mode: .threeD, coordinate: c, horizontalError: 2)) { events.append($0) }
            if s == 100 { #expect(monitor.quietFixes == quietBefore + 1, "the fix at 100 s was not quiet") }
        }
        #expect(events.map(\.type) == [.waterDue])
        #expect(events.first?.time == qbTime(100))
        #expect(abs((events.first?.distance ?? 0) - 29.5) < 0.01)
    }

    /// Standing still in the middle of a 40 m circle, then a step of 30 m that leaves the ball
    /// and the circle: the exit comes at that fix, with its distance.
    @Test func aFixThatLeavesTheBallIsEvaluated() {
        let centre = Coordinate(latitude: -33.9, longitude: 18.4)
        let set = RegionSet([Region(id: "view", kind: .album, name: "view", shape: .circle(center: centre, radius: 20))])
        var monitor = RegionMonitor(regions: set)
        var events: [RegionEvent] = []
        for s in 0..<30 {
            monitor.process(Fix(time: qbTime(Double(s)), mode: .threeD, coordinate: centre, horizontalError: 1)) { events.append($0) }
        }
        #expect(monitor.quietFixes >= 27)
        let away = qbGeo.direct(from: centre, bearing: 90, distance: 30)
        monitor.process(Fix(time: qbTime(30), mode: .threeD, coordinate: away, horizontalError: 1)) { events.append($0) }
        #expect(events.map(\.type) == [.exit, .captureLocked])
        #expect(events.first?.time == qbTime(30))
        #expect(abs((events.first?.distance ?? 0) + 10) < 0.01)
    }
}
