import Foundation
import Geo
import NMEA
import Rules
import Testing
import Regions

// The monitor's persistent state (RegionMonitor+State.swift): a run cut anywhere, its state taken and
// restored into a fresh monitor, gives the events of the run that was never cut; a reloaded
// regions set takes the state over by id. Names here are private and prefixed `ms`.

/// The repository's Data folder: the walk and its two regions files (one in PT-TM06).
private enum MSData {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Data")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// Every fix of walk.nmea, the no-fix epochs too (the gate drops them).
    static func walk() throws -> [Fix] {
        var reader = NMEAReader()
        var fixes: [Fix] = []
        reader.readAll(try bytes("walk.nmea")) { fixes.append($0) }
        return fixes
    }

    static func regions() throws -> [Region] {
        try ["regions.geojson", "regions-pt-tm06.geojson"].flatMap { try RegionFile.parse(bytes($0), file: $0) }
    }
}

private func msRun(_ monitor: inout RegionMonitor, _ fixes: ArraySlice<Fix>) -> [RegionEvent] {
    var events: [RegionEvent] = []
    for f in fixes { monitor.process(f) { events.append($0) } }
    return events
}

/// What a daemon stores: the last fix and every region's state by id.
private func msSnapshot(_ monitor: RegionMonitor) -> (last: LastFix?, regions: [String: RegionState]) {
    var states: [String: RegionState] = [:]
    for i in 0..<monitor.regions.count { states[monitor.regions.regions[i].id] = monitor.state(of: i) }
    return (monitor.lastFix, states)
}

/// A fresh monitor with `monitor`'s stored state put back.
private func msRestarted(_ monitor: RegionMonitor) -> RegionMonitor {
    let (last, states) = msSnapshot(monitor)
    var fresh = RegionMonitor(regions: monitor.regions, config: monitor.config)
    fresh.restore(last: last, regions: states)
    return fresh
}

private func msCounts(_ events: [RegionEvent]) -> [String: Int] {
    events.reduce(into: [:]) { $0[$1.type.rawValue + ($1.transit ? " transit" : "") + ($1.initial ? " initial" : ""), default: 0] += 1 }
}

private func msDescribe(_ e: RegionEvent) -> String {
    "\(e.time.iso8601) \(e.type.rawValue) \(e.region) d=\(e.distance)\(e.transit ? " transit" : "")\(e.initial ? " initial" : "")"
}

@Suite struct RestoreReplaysTheWalk {
    /// The index of the first fix at or after `t`.
    func index(of t: UTCTime, in fixes: [Fix]) -> Int {
        fixes.firstIndex { ($0.time ?? t) >= t } ?? fixes.count
    }

    /// Cut points: every 50th fix, the ends, and two fixes either side of every event's fix
    /// (the transit dash, enters and the dwells that follow them, water_due).
    func cuts(_ fixes: [Fix], _ events: [RegionEvent]) -> [Int] {
        var cuts = Set(stride(from: 0, through: fixes.count, by: 50))
        cuts.insert(fixes.count)
        for e in events {
            let j = index(of: e.time, in: fixes)
            for k in (j - 2)...(j + 2) where k >= 0 && k <= fixes.count { cuts.insert(k) }
        }
        // Halfway through every stay before its dwell.
        for e in events where e.type == .dwell {
            if let enter = events.last(where: { $0.type == .enter && $0.region == e.region && $0.time < e.time }) {
                cuts.insert((index(of: enter.time, in: fixes) + index(of: e.time, in: fixes)) / 2)
            }
        }
        return cuts.sorted()
    }

    /// Runs `fixes` uninterrupted, then cut at each cut point and restored into a fresh monitor,
    /// then restored after every single fix: the events and the final states are the same.
    func check(_ fixes: [Fix], _ set: RegionSet, _ config: MonitorConfig) -> [RegionEvent] {
        var whole = RegionMonitor(regions: set, config: config)
        let reference = msRun(&whole, fixes[...])
        let final = msSnapshot(whole)
        let cuts = cuts(fixes, reference)
        #expect(cuts.count > 40)
        for (n, k) in cuts.enumerated() {
            var a = RegionMonitor(regions: set, config: config)
            var events = msRun(&a, fixes[..<k])
            // Every other cut restores into a monitor that has run the whole walk: nothing it
            // kept between fixes may leak into the restored run.
            var b = n % 2 == 0 ? RegionMonitor(regions: set, config: config) : whole
            let stored = msSnapshot(a)
            b.restore(last: stored.last, regions: stored.regions)
            #expect(b.takeChangedRegions() == [], "cut \(k): a plain restore changes nothing")
            events += msRun(&b, fixes[k...])
            #expect(events == reference, "cut at fix \(k): \(events.count) events, \(reference.count) uninterrupted; first difference \(zip(events, reference).first { $0 != $1 }.map { "\(msDescribe($0.0)) vs \(msDescribe($0.1))" } ?? "in the count")")
            let after = msSnapshot(b)
            #expect(after.last == final.last && after.regions == final.regions, "cut at fix \(k): the final state")
        }
        // A daemon killed after every fix.
        var monitor = RegionMonitor(regions: set, config: config)
        var events: [RegionEvent] = []
        for f in fixes {
            monitor = msRestarted(monitor)
            monitor.process(f) { events.append($0) }
        }
        #expect(events == reference, "restored before every fix")
        return reference
    }

    @Test func atTheDefaults() throws {
        let fixes = try MSData.walk()
        let set = RegionSet(try MSData.regions())
        #expect(fixes.count == 1340 && set.count == 7)
        let events = check(fixes, set, MonitorConfig())
        // The walk's events (as `treeline replay` prints them): the dash through plant-sobreiro's
        // 9 m circle is a transit pass.
        #expect(msCounts(events) == ["enter": 6, "exit": 6, "enter transit": 1, "exit transit": 1, "water_due": 1, "water_due transit": 1,
                                     "dwell": 4, "capture_allowed": 2, "capture_locked": 2, "planting_allowed": 2, "planting_forbidden": 2])
        let transit = events.filter(\.transit)
        #expect(transit.map { set.regions[$0.region].id } == ["plant-sobreiro", "plant-sobreiro", "plant-sobreiro"])
        #expect(transit.first?.time.iso8601 == "2026-05-01T09:13:57.000Z")
    }

    /// From the middle of the stay in ref-encosta: the first fix is inside (an initial enter),
    /// dwell after 30 s.
    @Test func withInitialEnterAndAShortDwell() throws {
        let all = try MSData.walk()
        let set = RegionSet(try MSData.regions())
        let from = index(of: UTCTime(iso8601: "2026-05-01T09:05:16Z")!, in: all)
        var config = MonitorConfig()
        config.initialEnter = true
        config.dwellSeconds = 30
        let events = check(Array(all[from...]), set, config)
        let first = try #require(events.first)
        #expect(first.initial && first.type == .enter && set.regions[first.region].id == "ref-encosta")
        #expect(events.filter { $0.type == .dwell }.map { set.regions[$0.region].id }
                == ["ref-encosta", "album-miradouro", "ref-vale", "album-ribeira"])
        #expect(events.filter { $0.type == .dwell }.first?.time.iso8601 == "2026-05-01T09:05:46.000Z", "30 s after the first fix")
    }

}

/// What the walk does not show: each detail of the restore, in a run cut where it matters.
@Suite struct RestoreDetails {
    /// Runs `fixes` uninterrupted and cut after `k` fixes; returns both runs' events.
    func uncutAndCut(_ set: RegionSet, _ config: MonitorConfig, _ fixes: [Fix], at k: Int) -> (whole: [RegionEvent], cut: [RegionEvent]) {
        var whole = RegionMonitor(regions: set, config: config)
        let reference = msRun(&whole, fixes[...])
        var a = RegionMonitor(regions: set, config: config)
        var events = msRun(&a, fixes[..<k])
        var b = msRestarted(a)
        events += msRun(&b, fixes[k...])
        return (reference, events)
    }

    /// A runner's fix 5 m inside an 8 m plant (short of the 6 m margin), the next 11.5 m on,
    /// outside: the path through the centre is a pass. Transit skips a short path (under twice
    /// the margin) unless an end is inside the fence, so it must know that the fix before the
    /// cut, the restored one, was.
    @Test func transitKnowsTheRestoredFixWasInsideAFence() {
        let fixes = [fix(0, bearing: 180, metres: 30, eph: 1), fix(1, bearing: 180, metres: 15, eph: 1),
                     fix(2, bearing: 180, metres: 3, eph: 1), fix(3, bearing: 0, metres: 8.5, eph: 1),
                     fix(4, bearing: 0, metres: 20, eph: 1)]
        let (whole, cut) = uncutAndCut(circleSet(radius: 8), MonitorConfig(), fixes, at: 3)
        #expect(whole.map(\.type) == [.enter, .exit] && whole.allSatisfy(\.transit))
        #expect(abs((whole.first?.distance ?? 0) - 5) < 1e-6, "the pass begins at the fix inside")
        #expect(cut == whole)
    }

    /// Two fences entered in the order 1, 0, left together by a fix far from both (transit off:
    /// only the fences the state says we are in are asked). A restored monitor lists them in
    /// the order of the regions: the exits come in that order in both runs.
    @Test func exitsFarAwayComeInTheOrderOfTheRegions() {
        let set = RegionSet([
            Region(id: "a", kind: .plant, name: "a", shape: .circle(center: centre, radius: 300)),
            Region(id: "b", kind: .plant, name: "b", shape: .circle(center: Geodesic.wgs84.direct(from: centre, bearing: 90, distance: 500), radius: 300)),
        ])
        var config = MonitorConfig()
        config.transit = false
        let fixes = [fix(0, bearing: 90, metres: 700), fix(10, bearing: 90, metres: 250), fix(60, bearing: 0, metres: 3_000)]
        let (whole, cut) = uncutAndCut(set, config, fixes, at: 2)
        #expect(whole.map(\.type) == [.enter, .exit, .exit])
        #expect(whole.map(\.region) == [0, 0, 1])
        #expect(cut == whole)
    }

    /// A monitor that has used fixes of its own, restored: it evaluates the next fix afresh
    /// (what it kept per fence, such as which fix last evaluated each, is forgotten).
    @Test func aUsedMonitorForgetsWhatItKnew() {
        var a = RegionMonitor(regions: circleSet(radius: 50))
        #expect(msRun(&a, [fix(0, bearing: 0, metres: 100), fix(1, bearing: 0, metres: 60)][...]).isEmpty)
        let stored = msSnapshot(a)
        // Its own fixes evaluated the circle at fix 2, as the first after the restore will be,
        // and left bounds and an inside state.
        var used = RegionMonitor(regions: circleSet(radius: 50))
        #expect(msRun(&used, [fix(0, bearing: 90, metres: 100), fix(1, bearing: 90, metres: 40)][...]).map(\.type) == [.enter])
        used.restore(last: stored.last, regions: stored.regions)
        let next = fix(2, bearing: 0, metres: 40)
        let events = used.process(next)
        #expect(events.map(\.type) == [.enter])
        #expect(events == a.process(next))
    }

    /// A dropped jump pending at the cut: the fix that confirms it is accepted after the restore too.
    @Test func aPendingJumpSurvives() {
        var a = RegionMonitor(regions: circleSet(radius: 50))
        for s in 0..<10 { _ = a.process(fix(Double(s), bearing: 0, metres: 10)) }
        #expect(a.lastFix?.pendingJump == nil)
        _ = a.process(fix(10, bearing: 0, metres: 5_000))
        #expect(a.gate.dropped[.impossibleJump] == 1)
        #expect(a.lastFix?.time == at(9) && a.lastFix?.pendingJump?.time == at(10))
        var b = msRestarted(a)
        var forgetful = b
        var last = a.lastFix
        last?.pendingJump = nil
        forgetful.restore(last: last, regions: msSnapshot(a).regions)
        let confirming = fix(11, bearing: 0, metres: 5_001)
        #expect(a.process(confirming).map(\.type) == [.exit])
        #expect(b.process(confirming).map(\.type) == [.exit], "the jump is confirmed after the restore")
        #expect(forgetful.process(confirming).isEmpty, "the test can tell: without it the fix is dropped")
        #expect(b.lastFix == a.lastFix)
    }

    @Test func theGateDropsFixesNotAfterTheRestoredOne() {
        var a = RegionMonitor(regions: circleSet(radius: 50))
        _ = a.process(fix(0, bearing: 0, metres: 100))
        _ = a.process(fix(5, bearing: 0, metres: 100))
        var b = msRestarted(a)
        #expect(b.process(fix(5, bearing: 0, metres: 0)).isEmpty)
        #expect(b.process(fix(4, bearing: 0, metres: 0)).isEmpty)
        #expect(b.gate.dropped == [.notAfterLast: 2])
        #expect(b.process(fix(30, bearing: 0, metres: 0)).map(\.type) == [.enter], "not a first fix: an enter, not a silent state")
    }
}

@Suite struct ChangedRegions {
    /// A due plant in an album zone, and a second album far away.
    func set() -> RegionSet {
        RegionSet([
            Region(id: "oak", kind: .plant, name: "Oak", shape: .circle(center: centre, radius: 30),
                   intervalDays: 7, lastWatered: UTCTime(nanoseconds: start.nanoseconds - 10 * 86_400_000_000_000)),
            Region(id: "view", kind: .album, name: "View", shape: .circle(center: centre, radius: 80)),
            Region(id: "far", kind: .album, name: "Far", shape: .circle(center: Geodesic.wgs84.direct(from: centre, bearing: 90, distance: 500), radius: 30)),
        ])
    }

    /// A plant last watered in 1678, the earliest a file or a command can say, is due at a fix in
    /// 2026: the time between is more than Int64 nanoseconds hold, which once stopped the monitor
    /// (an overflow trap) at every fix near the plant.
    @Test func aWateringCenturiesAgoIsDueWithoutOverflow() throws {
        let oldest = try #require(UTCTime(iso8601: "1678-01-01T00:00:00Z"))
        let set = RegionSet([Region(id: "old-oak", kind: .plant, name: "Old oak", shape: .circle(center: centre, radius: 30),
                                    intervalDays: 7, lastWatered: oldest)])
        var monitor = RegionMonitor(regions: set)
        #expect(monitor.process(fix(0, bearing: 0, metres: 100)).isEmpty)
        #expect(monitor.process(fix(2, bearing: 0, metres: 5)).map(\.type) == [.enter, .waterDue])
        let latest = try #require(UTCTime(iso8601: "2261-12-31T23:59:59Z"))
        var future = RegionMonitor(regions: RegionSet([Region(id: "f", kind: .plant, name: "f", shape: .circle(center: centre, radius: 30),
                                                              intervalDays: 7, lastWatered: latest)]))
        _ = future.process(fix(0, bearing: 0, metres: 100))
        #expect(future.process(fix(2, bearing: 0, metres: 5)).map(\.type) == [.enter], "watered after the fix: not due")
    }

    /// Fixes 1678 and 2261 apart, the ends of the times a receiver or a file can give: the gate's
    /// speed test, a transit's times and dwell each subtracted their nanoseconds, more than an
    /// Int64 holds, and trapped. The walk goes on: the transit's events fall between the two fixes,
    /// in order, and dwell fires at the later fix.
    @Test func fixesCenturiesApartAreJudgedWithoutOverflow() throws {
        let oldest = try #require(UTCTime(iso8601: "1678-01-01T00:00:00Z"))
        let latest = try #require(UTCTime(iso8601: "2261-12-31T23:59:59Z"))
        func fix(_ t: UTCTime, bearing: Double, metres: Double) -> Fix {
            Fix(time: t, mode: .threeD, coordinate: Geodesic.wgs84.direct(from: centre, bearing: bearing, distance: metres), horizontalError: 0, hdop: 0.9)
        }
        // Through a 30 m circle between the two fixes.
        var passing = RegionMonitor(regions: circleSet(radius: 30))
        #expect(passing.process(fix(oldest, bearing: 270, metres: 100)).isEmpty)
        let events = passing.process(fix(latest, bearing: 90, metres: 100))
        #expect(events.map(\.type) == [.enter, .exit])
        #expect(events.allSatisfy { $0.transit && $0.time > oldest && $0.time < latest })
        #expect(events.count == 2 && events[0].time < events[1].time)
        #expect(passing.gate.accepted == 2)
        // Inside a 200 m circle at both: dwell at the later.
        var staying = RegionMonitor(regions: circleSet(radius: 200))
        #expect(staying.process(fix(oldest, bearing: 0, metres: 10)).isEmpty)
        #expect(staying.process(fix(latest, bearing: 0, metres: 12)).map(\.type) == [.dwell])
    }

    @Test func eachChangeIsListedOnce() {
        var monitor = RegionMonitor(regions: set())
        #expect(monitor.takeChangedRegions() == [])
        #expect(monitor.process(fix(0, bearing: 0, metres: 50)).isEmpty)
        #expect(monitor.takeChangedRegions() == [1], "the first fix sets `view` inside, silently")
        #expect(monitor.state(of: 1) == RegionState(inside: true, enteredAt: at(0)))
        #expect(monitor.process(fix(1, bearing: 0, metres: 52)).isEmpty)
        #expect(monitor.takeChangedRegions() == [], "no change")
        #expect(monitor.process(fix(2, bearing: 0, metres: 5)).map(\.type) == [.enter, .waterDue])
        #expect(monitor.takeChangedRegions() == [0])
        #expect(monitor.takeChangedRegions() == [], "taken")
        #expect(monitor.state(of: 0).alertedFor == monitor.state(of: 0).lastWatered && monitor.state(of: 0).inside)
        #expect(monitor.water(0, at: at(3)) != nil)
        #expect(monitor.water(1, at: at(3)) == nil, "not a plant")
        #expect(monitor.takeChangedRegions() == [0], "the watering")
        #expect(monitor.state(of: 0).lastWatered == at(3))
        #expect(monitor.process(fix(3, bearing: 0, metres: 5)).isEmpty)
        #expect(monitor.takeChangedRegions() == [])
        #expect(monitor.process(fix(60, bearing: 0, metres: 5)).map(\.type) == [.dwell])
        #expect(monitor.takeChangedRegions() == [1], "view's dwell")
        #expect(monitor.process(fix(62, bearing: 0, metres: 5)).map(\.type) == [.dwell])
        #expect(monitor.takeChangedRegions() == [0], "oak's dwell")
        // Out of both at one fix, into the far one at the next: listed ascending, each once.
        #expect(monitor.process(fix(80, bearing: 90, metres: 100)).map(\.type) == [.exit, .exit, .captureLocked])
        _ = monitor.water(0, at: at(80))
        #expect(monitor.takeChangedRegions() == [0, 1])
        #expect(monitor.process(fix(100, bearing: 90, metres: 500)).map(\.type) == [.enter, .captureAllowed])
        #expect(monitor.takeChangedRegions() == [2])
    }

    @Test func aTransitWaterDueIsAChange() {
        // plant-sobreiro's pass in the walk, in small: a runner through a due 6 m plant.
        let set = RegionSet([Region(id: "seedling", kind: .plant, name: "Seedling", shape: .circle(center: centre, radius: 6),
                                    intervalDays: 3, lastWatered: UTCTime(nanoseconds: start.nanoseconds - 5 * 86_400_000_000_000))])
        var monitor = RegionMonitor(regions: set)
        #expect(monitor.process(fix(0, bearing: 180, metres: 27)).isEmpty)
        #expect(monitor.process(fix(1, bearing: 180, metres: 9)).isEmpty)
        #expect(monitor.takeChangedRegions() == [])
        let pass = monitor.process(fix(2, bearing: 0, metres: 9))
        #expect(pass.map(\.type) == [.enter, .waterDue, .exit] && pass.allSatisfy(\.transit))
        #expect(monitor.takeChangedRegions() == [0])
        #expect(monitor.state(of: 0) == RegionState(lastWatered: set.regions[0].lastWatered, alertedFor: set.regions[0].lastWatered),
                "outside, alerted for this period")
    }
}

@Suite struct Reload {
    /// The walk's regions reversed, without plant-medronheiro, with a new album on the path.
    func reloaded(_ old: [Region], newAt c: Coordinate) -> [Region] {
        var regions = Array(old.reversed().filter { $0.id != "plant-medronheiro" })
        regions.insert(Region(id: "album-new", kind: .album, name: "New", shape: .circle(center: c, radius: 40)), at: 2)
        return regions
    }

    @Test func statesFollowTheIds() throws {
        let fixes = try MSData.walk()
        let old = try MSData.regions()
        let oldSet = RegionSet(old)
        // During the stay in ref-encosta, before its dwell (09:04:46 to 09:05:46).
        let k = try #require(fixes.firstIndex { $0.time == UTCTime(iso8601: "2026-05-01T09:05:16Z") })
        var a = RegionMonitor(regions: oldSet)
        let before = msRun(&a, fixes[..<k])
        #expect(before.map(\.type) == [.enter, .plantingAllowed])
        _ = a.takeChangedRegions()
        let newAt = try #require(fixes[(k + 400)...].lazy.compactMap(\.coordinate).first)
        let newSet = RegionSet(reloaded(old, newAt: newAt))
        #expect(newSet.count == 7 && newSet.regions.map(\.id) == ["ref-vale", "album-ribeira", "album-new", "album-miradouro",
                                                                   "plant-sobreiro", "plant-carvalho", "ref-encosta"])

        var config = MonitorConfig()
        config.dwellSeconds = 60
        var b = a.carried(to: newSet, config: config)
        #expect(b.takeChangedRegions() == [], "the carry changes no state")
        #expect(b.lastFix == a.lastFix)
        #expect(b.gate.accepted == a.gate.accepted, "the gate is carried, counts too")
        for j in 0..<newSet.count {
            let id = newSet.regions[j].id
            if let i = old.firstIndex(where: { $0.id == id }) {
                #expect(b.state(of: j) == a.state(of: i), "\(id)")
            } else {
                #expect(b.state(of: j) == RegionState(), "the new region starts fresh")
            }
        }
        #expect(b.state(of: 6).inside && b.state(of: 6).enteredAt == UTCTime(iso8601: "2026-05-01T09:04:46Z"), "inside ref-encosta, since its enter")
        #expect(b.inside == [false, false, false, false, false, false, true])

        // The rest of the walk: for the regions in both sets, the events of a run over the new
        // set from the start; the new album, entered fresh; nothing of the removed plant.
        let after = msRun(&b, fixes[k...])
        var whole = RegionMonitor(regions: newSet, config: config)
        let wholeAfter = msRun(&whole, fixes[...]).filter { $0.time >= fixes[k].time! }
        let kept = { (e: RegionEvent) in e.region != 2 }
        #expect(after.filter(kept) == wholeAfter.filter(kept))
        #expect(after.filter(kept).count == 24, "28 in the walk, less 2 before the cut and 2 of the removed plant")
        #expect(after.first.map { "\(newSet.regions[$0.region].id) \($0.type.rawValue) \($0.time.iso8601)" } == "ref-encosta dwell 2026-05-01T09:05:46.000Z")
        #expect(after.filter { $0.region == 2 }.map(\.type) == [.enter, .captureAllowed, .exit, .captureLocked])
    }

    @Test func aPendingChangeIsCarried() {
        var a = RegionMonitor(regions: ChangedRegions().set())
        _ = a.process(fix(0, bearing: 0, metres: 50))
        let b = RegionSet(Array(ChangedRegions().set().regions.reversed()))
        var carried = a.carried(to: b, config: MonitorConfig())
        #expect(carried.takeChangedRegions() == [1], "view, not yet taken, listed in the new monitor")
    }
}

@Suite struct WateringAcrossRestarts {
    let day: Int64 = 86_400_000_000_000

    func plant(lastWatered: UTCTime) -> RegionSet {
        RegionSet([Region(id: "oak", kind: .plant, name: "Oak", shape: .circle(center: centre, radius: 30),
                          intervalDays: 7, lastWatered: lastWatered)])
    }

    /// Out, in, out: a walk past the plant from `s0`.
    func walkPast(_ monitor: inout RegionMonitor, from s0: Double) -> [RegionEvent] {
        var events: [RegionEvent] = []
        for (k, metres) in [60.0, 5, 5, 60].enumerated() { events += monitor.process(fix(s0 + Double(k), bearing: 0, metres: metres)) }
        return events
    }

    @Test func aWateredPlantStaysQuietAfterARestart() {
        let set = plant(lastWatered: UTCTime(nanoseconds: start.nanoseconds - 10 * day))
        var a = RegionMonitor(regions: set)
        #expect(walkPast(&a, from: 0).map(\.type) == [.enter, .waterDue, .exit])
        #expect(a.water(0, at: at(10)) != nil)
        var b = msRestarted(a)
        #expect(b.state(of: 0).lastWatered == at(10))
        #expect(walkPast(&b, from: 20).map(\.type) == [.enter, .exit], "watered at 10 s: not due")
        var c = msRestarted(b)
        let sixDays = walkPast(&c, from: Double(6 * day / 1_000_000_000))
        #expect(sixDays.map(\.type) == [.enter, .exit], "six days on: not due")
        var d = msRestarted(c)
        let eightDays = walkPast(&d, from: Double(8 * day / 1_000_000_000))
        #expect(eightDays.map(\.type) == [.enter, .waterDue, .exit], "eight days on: due again")
        #expect(eightDays[1].time == at(Double(8 * day / 1_000_000_000) + 1))
        var e = msRestarted(d)
        #expect(walkPast(&e, from: Double(9 * day / 1_000_000_000)).map(\.type) == [.enter, .exit], "alerted once for that period")
        // The test can tell: without the stored state the plant is due at once.
        var forgetful = RegionMonitor(regions: set)
        #expect(walkPast(&forgetful, from: 20).map(\.type) == [.enter, .waterDue, .exit])
    }

    @Test func theLaterOfTheStoredAndTheFileWateringWins() {
        let old = UTCTime(nanoseconds: start.nanoseconds - 10 * day)
        var a = RegionMonitor(regions: plant(lastWatered: old))
        #expect(walkPast(&a, from: 0).map(\.type) == [.enter, .waterDue, .exit])
        let stored = msSnapshot(a)
        // A keeper watered it yesterday and wrote so in the file: the file's watering wins, and
        // the change is listed for storing.
        let yesterday = UTCTime(nanoseconds: start.nanoseconds - day)
        var edited = RegionMonitor(regions: plant(lastWatered: yesterday))
        edited.restore(last: stored.last, regions: stored.regions)
        #expect(edited.state(of: 0) == RegionState(lastWatered: yesterday, alertedFor: old))
        #expect(edited.takeChangedRegions() == [0])
        #expect(walkPast(&edited, from: 10).map(\.type) == [.enter, .exit])
        // Watered through the daemon after the file's date: the stored one wins.
        _ = a.water(0, at: at(5))
        let later = msSnapshot(a)
        var reloaded = RegionMonitor(regions: plant(lastWatered: yesterday))
        reloaded.restore(last: later.last, regions: later.regions)
        #expect(reloaded.state(of: 0).lastWatered == at(5))
        #expect(reloaded.takeChangedRegions() == [])
        // The same on a reload (SIGHUP).
        let carried = a.carried(to: plant(lastWatered: UTCTime(nanoseconds: start.nanoseconds + day)), config: MonitorConfig())
        #expect(carried.state(of: 0).lastWatered == UTCTime(nanoseconds: start.nanoseconds + day))
    }

    @Test func withoutALastFixOnlyTheWateringIsKept() {
        var a = RegionMonitor(regions: plant(lastWatered: UTCTime(nanoseconds: start.nanoseconds - 10 * day)))
        _ = a.water(0, at: at(0))
        var b = RegionMonitor(regions: a.regions)
        b.restore(last: nil, regions: ["oak": RegionState(inside: true, enteredAt: at(0), lastWatered: at(0))])
        #expect(b.state(of: 0) == RegionState(lastWatered: at(0)))
        #expect(b.takeChangedRegions() == [0], "differs from what was stored")
        #expect(b.process(fix(1, bearing: 0, metres: 5)).isEmpty, "the first fix sets the state silently")
        #expect(b.inside == [true])
    }
}

/// A reload of the same ids in the same places (an unchanged or edited file) carries the state
/// array by array rather than by id; it must leave the monitor exactly as the carry by id does.
@Suite struct CarryInPlace {
    @Test func equalsTheCarryByIdAtEveryCutOfTheWalk() throws {
        let fixes = try MSData.walk()
        let regions = try MSData.regions()
        let set = RegionSet(regions)
        // The plants watered later in the new file: their watering follows it.
        let edited = RegionSet(regions.map { r -> Region in
            var r = r
            if r.kind == .plant { r.lastWatered = UTCTime(iso8601: "2026-05-01T09:10:00Z") }
            return r
        })
        var a = RegionMonitor(regions: set)
        var cuts = 0
        for (k, f) in fixes.enumerated() {
            a.process(f) { _ in }
            guard k % 97 == 0 || k == fixes.count - 1 else { continue }
            cuts += 1
            // What a daemon had saved (a carry lists what was not yet taken, which a restore cannot).
            var saved = a
            _ = saved.takeChangedRegions()
            for target in [set, edited] {
                var inPlace = saved.carried(to: target, config: a.config)  // the same ids in the same places
                var byID = RegionMonitor(regions: target, config: a.config)
                let (last, states) = msSnapshot(saved)
                byID.restore(last: last, regions: states)
                #expect((0..<target.count).allSatisfy { inPlace.state(of: $0) == byID.state(of: $0) }, "cut \(k)")
                #expect(inPlace.inside == byID.inside && inPlace.lastFix == byID.lastFix)
                #expect(inPlace.takeChangedRegions() == byID.takeChangedRegions(), "cut \(k)")
                // And the rest of the walk gives the same events.
                let rest = fixes[(k + 1)...].prefix(300)
                #expect(msRun(&inPlace, rest) == msRun(&byID, rest), "cut \(k)")
            }
        }
        #expect(cuts > 5)
    }
}
