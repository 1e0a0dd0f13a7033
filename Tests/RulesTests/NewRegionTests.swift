import Foundation
import Geo
import Rules
import Testing
import Regions

// Regions added or removed while the monitor runs (`carried(to:config:)`, `treatAsNew(_:)`), and
// the watering of plants (never watered, `water(_:at:)`, `setLastWatered`). Fixes come from
// MonitorTests.swift's `fix`: metres from `centre` on a bearing, seconds after `start`.
// Names here are private and prefixed `nr`.

private let nrDay = UTCTime.nanosPerDay

/// An album 2 km east of `centre`, far from every walk here: the set a region is added to.
private let nrFarAlbum = Region(id: "far", kind: .album, name: "Far",
                                shape: .circle(center: Geodesic.wgs84.direct(from: centre, bearing: 90, distance: 2_000), radius: 50))

/// A plant circle of `radius` metres around `center`, watered every `days` days.
private func nrPlant(_ id: String = "basil", at center: Coordinate = centre, radius: Double = 30, days: Int = 3,
                     lastWatered: UTCTime? = nil) -> Region {
    Region(id: id, kind: .plant, name: id, shape: .circle(center: center, radius: radius), intervalDays: days, lastWatered: lastWatered)
}

private func nrTime(_ seconds: Double, plusDays days: Int64) -> UTCTime {
    UTCTime(nanoseconds: at(seconds).nanoseconds + days * nrDay)
}

/// A fix at `time` `metres` north of `centre`, error 3 m (margin 5 + 3 = 8 m).
private func nrFix(_ time: UTCTime, metres: Double) -> Fix {
    Fix(time: time, mode: .threeD, coordinate: metres == 0 ? centre : Geodesic.wgs84.direct(from: centre, bearing: 0, distance: metres),
        horizontalError: 3, hdop: 0.9)
}

/// `monitor` over its regions and `region` appended, the new one treated as new.
private func nrAdding(_ region: Region, to monitor: RegionMonitor) -> RegionMonitor {
    var next = monitor.carried(to: RegionSet(monitor.regions.regions + [region]), config: monitor.config)
    next.treatAsNew(monitor.regions.count)
    return next
}

@Suite struct NewRegionWhileRunning {
    @Test func aPlantAddedAroundTheWalkerIsEnteredInitialAndDueOnTheFirstFixInsideByTheMargin() throws {
        var monitor = RegionMonitor(regions: RegionSet([nrFarAlbum]))
        #expect(monitor.process(fix(0, bearing: 0, metres: 24, eph: 3)).isEmpty)
        var added = nrAdding(nrPlant(), to: monitor)
        // 24 m from the centre of a 30 m circle: 6 m inside, short of the 5 + 3 = 8 m margin.
        #expect(added.process(fix(1, bearing: 0, metres: 24, eph: 3)).isEmpty, "inside, but not by evidence yet")
        #expect(added.inside == [false, false])
        // 20 m from the centre: 10 m inside.
        let events = added.process(fix(2, bearing: 0, metres: 20, eph: 3))
        #expect(events.map(\.type) == [.enter, .waterDue], "never watered: due at once")
        #expect(events.map(\.region) == [1, 1])
        #expect(events.map(\.time) == [at(2), at(2)])
        let enter = try #require(events.first)
        #expect(enter.initial && !enter.transit)
        #expect(abs(enter.distance - 10) < 1e-6 && enter.error == 3)
        #expect(added.inside == [false, true])
        #expect(added.state(of: 1).enteredAt == at(2))
        // Staying: neither a second enter nor a second alert.
        var later: [RegionEvent] = []
        for s in 3...30 { later += added.process(fix(Double(s), bearing: 0, metres: 20, eph: 3)) }
        #expect(later.isEmpty)
    }

    @Test func aPlantAddedRightUnderTheWalkerIsEnteredAtTheNextFix() {
        var monitor = RegionMonitor(regions: RegionSet([nrFarAlbum]))
        _ = monitor.process(fix(0, bearing: 0, metres: 0, eph: 2))
        var added = nrAdding(nrPlant(days: 7, lastWatered: UTCTime(nanoseconds: start.nanoseconds - nrDay)), to: monitor)
        let events = added.process(fix(1, bearing: 0, metres: 0, eph: 2))
        // Watered a day ago, every 7 days: entered, not due.
        #expect(events.map(\.type) == [.enter])
        #expect(events.first?.initial == true && events.first?.time == at(1))
        #expect(events.first.map { abs($0.distance - 30) < 1e-6 } == true)
    }

    @Test func aRegionAddedAgainBeforeTheNextFixStaysNew() {
        var monitor = RegionMonitor(regions: RegionSet([nrFarAlbum]))
        _ = monitor.process(fix(0, bearing: 0, metres: 0, eph: 2))
        let once = nrAdding(nrPlant(), to: monitor)
        // A second region added before any fix: the first is still waiting for its evidence.
        var twice = nrAdding(nrPlant("mint", at: Geodesic.wgs84.direct(from: centre, bearing: 180, distance: 500)), to: once)
        let events = twice.process(fix(1, bearing: 0, metres: 0, eph: 2))
        #expect(events.map(\.type) == [.enter, .waterDue])
        #expect(events.map(\.region) == [1, 1])
        #expect(events.first?.initial == true)
    }

    @Test func aRegionTheNextFixIsOutsideOfBecomesOrdinary() throws {
        let east = Geodesic.wgs84.direct(from: centre, bearing: 90, distance: 100)
        let album = Region(id: "view", kind: .album, name: "View", shape: .circle(center: east, radius: 30))
        var monitor = RegionMonitor(regions: RegionSet([nrFarAlbum]))
        _ = monitor.process(fix(0, bearing: 90, metres: 0, eph: 2))
        var added = nrAdding(album, to: monitor)
        // At the centre, 100 m from the album's: outside. Then east, 10 m a second.
        var events: [RegionEvent] = []
        for s in 1...9 { events += added.process(fix(Double(s), bearing: 90, metres: Double(s - 1) * 10, eph: 2)) }
        // Margin 5 + 2 = 7 m: the first fix 7 m inside is 80 m east (20 m from the album's centre).
        #expect(events.map(\.type) == [.enter, .captureAllowed])
        #expect(events.map(\.time) == [at(9), at(9)])
        let enter = try #require(events.first)
        #expect(!enter.initial, "walked into: an ordinary enter")
        #expect(!enter.transit)
        #expect(abs(enter.distance - 10) < 1e-6)
    }

    @Test func withoutAFixYetTheFirstFixSetsANewRegionSilently() {
        let monitor = RegionMonitor(regions: RegionSet([nrFarAlbum]))
        var added = nrAdding(nrPlant(), to: monitor)
        #expect(added.process(fix(0, bearing: 0, metres: 0, eph: 2)).isEmpty)
        #expect(added.inside == [false, true])
        // An ordinary region from then on: the next fix inside alerts (never watered), and walking
        // out (10 m a second) is an exit at the first fix 5 + 2 = 7 m outside (40 m from the centre).
        var events: [RegionEvent] = []
        for s in 1...6 { events += added.process(fix(Double(s), bearing: 0, metres: Double(s) * 10, eph: 2)) }
        #expect(events.map(\.type) == [.waterDue, .exit])
        #expect(events.map(\.time) == [at(1), at(4)])
    }

    @Test func aRegionRemovedWhileInsideGivesNoExit() {
        let far = Region(id: "far", kind: .album, name: "Far",
                         shape: .circle(center: Geodesic.wgs84.direct(from: centre, bearing: 180, distance: 2_000), radius: 50))
        let both = RegionSet([nrPlant(days: 7, lastWatered: start), far])
        var monitor = RegionMonitor(regions: both)
        _ = monitor.process(fix(0, bearing: 0, metres: 60, eph: 2))
        #expect(monitor.process(fix(1, bearing: 0, metres: 0, eph: 2)).map(\.type) == [.enter])
        let walkOut = (2...12).map { fix(Double($0), bearing: 0, metres: Double($0 - 2) * 10, eph: 2) }
        // The control: kept, the plant is left 100 m on.
        var kept = monitor
        #expect(walkOut.flatMap { kept.process($0) }.map(\.type) == [.exit])
        // Removed (the set without it): the same walk gives nothing, and the album the
        // plant's index now names is still outside.
        var removed = monitor.carried(to: RegionSet([far]), config: monitor.config)
        #expect(removed.inside == [false])
        #expect(walkOut.flatMap { removed.process($0) }.isEmpty)
        #expect(removed.inside == [false])
    }
}

@Suite struct NewRegionWatering {
    /// Out at 60 m, then in at 5 m: a walk up to the plant at `centre`.
    func walkIn(_ monitor: inout RegionMonitor, from s0: Double) -> [RegionEvent] {
        monitor.process(fix(s0, bearing: 0, metres: 60)) + monitor.process(fix(s0 + 1, bearing: 0, metres: 5))
    }

    @Test func aPlantNeverWateredIsDueOncePerPeriodThenIntervalAfterItsWatering() throws {
        var config = MonitorConfig()
        config.dwellSeconds = 0
        var monitor = RegionMonitor(regions: RegionSet([nrPlant(days: 2)]), config: config)
        var events = walkIn(&monitor, from: 0)
        #expect(events.map(\.type) == [.enter, .waterDue])
        #expect(events.last?.time == at(1))
        // A minute by it, out and back in: not alerted again for the same period.
        for s in 2...60 { events += monitor.process(fix(Double(s), bearing: 0, metres: 5)) }
        events += walkIn(&monitor, from: 61)
        #expect(events.filter { $0.type == .waterDue }.count == 1)
        #expect(events.map(\.type) == [.enter, .waterDue, .exit, .enter])

        let acknowledged = monitor.water(0, at: at(100))
        let watered = try #require(acknowledged)
        #expect(watered.type == .watered && watered.time == at(100))
        #expect(monitor.lastWatered == [at(100)])
        // Two days after the watering, to the second; the fix a second before is not due.
        var after: [RegionEvent] = []
        after += monitor.process(fix(101, bearing: 0, metres: 5))
        after += monitor.process(nrFix(nrTime(99, plusDays: 2), metres: 5))
        #expect(after.isEmpty)
        after += monitor.process(nrFix(nrTime(100, plusDays: 2), metres: 5))
        after += monitor.process(nrFix(nrTime(101, plusDays: 2), metres: 5))
        #expect(after.map(\.type) == [.waterDue])
        #expect(after.map(\.time) == [nrTime(100, plusDays: 2)])
    }

    @Test func waterReturnsNothingForARegionThatIsNotAPlant() {
        var monitor = RegionMonitor(regions: RegionSet([nrFarAlbum]))
        let event = monitor.water(0, at: at(0))
        #expect(event == nil)
        #expect(monitor.lastWatered == [nil])
    }

    @Test func movingLastWateredBackMakesThePlantDueAtTheNextFixInside() {
        var config = MonitorConfig()
        config.dwellSeconds = 0
        // Every 7 days, watered a day before the walk: not due.
        var monitor = RegionMonitor(regions: RegionSet([nrPlant(days: 7, lastWatered: UTCTime(nanoseconds: start.nanoseconds - nrDay))]),
                                    config: config)
        var events = walkIn(&monitor, from: 0)
        for s in 2...10 { events += monitor.process(fix(Double(s), bearing: 0, metres: 5)) }
        #expect(events.map(\.type) == [.enter])
        _ = monitor.takeChangedRegions()

        // A keeper: it was really watered 10 days ago. No event now; the next fix inside alerts.
        let tenDaysAgo = UTCTime(nanoseconds: start.nanoseconds - 10 * nrDay)
        monitor.setLastWatered(0, tenDaysAgo)
        #expect(monitor.lastWatered == [tenDaysAgo])
        #expect(monitor.takeChangedRegions() == [0], "the correction is state to store")
        let next = monitor.process(fix(11, bearing: 0, metres: 5))
        #expect(next.map(\.type) == [.waterDue])
        #expect(next.map(\.time) == [at(11)])
        #expect(monitor.process(fix(12, bearing: 0, metres: 5)).isEmpty, "once")

        // Never watered after all: due now, once more.
        monitor.setLastWatered(0, nil)
        #expect(monitor.lastWatered == [nil])
        let never = monitor.process(fix(13, bearing: 0, metres: 5))
        #expect(never.map(\.type) == [.waterDue])
        #expect(never.map(\.time) == [at(13)])
        #expect(monitor.process(fix(14, bearing: 0, metres: 5)).isEmpty)
    }

    @Test func settingLastWateredToTheSameDateChangesNothing() {
        let t = UTCTime(nanoseconds: start.nanoseconds - nrDay)
        var monitor = RegionMonitor(regions: RegionSet([nrPlant(days: 7, lastWatered: t), nrFarAlbum]))
        _ = monitor.process(fix(0, bearing: 0, metres: 5))
        _ = monitor.takeChangedRegions()
        monitor.setLastWatered(0, t)
        monitor.setLastWatered(1, at(0))  // an album has no watering
        #expect(monitor.takeChangedRegions().isEmpty)
        #expect(monitor.lastWatered == [t, nil])
    }
}
