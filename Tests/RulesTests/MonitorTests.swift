import Foundation
import Geo
import Rules
import Testing
import TestSupport
import Regions

let centre = Coordinate(latitude: 40.1, longitude: -8.24)
let start = UTCTime(year: 2026, month: 5, day: 1, nanosOfDay: 9 * 3_600_000_000_000)!

func at(_ seconds: Double) -> UTCTime { UTCTime(nanoseconds: start.nanoseconds + Int64(seconds * 1e9)) }

/// A 3D fix `metres` from `centre` on `bearing`, with an error estimate.
func fix(_ seconds: Double, bearing: Double, metres: Double, eph: Double? = 0) -> Fix {
    Fix(time: at(seconds), mode: .threeD,
        coordinate: metres == 0 ? centre : Geodesic.wgs84.direct(from: centre, bearing: bearing, distance: metres),
        horizontalError: eph, hdop: 0.9)
}

/// One circle fence whose kind adds no rule events (a plant without watering data), so the
/// tests of the monitor's evidence see only enter, exit and dwell.
func circleSet(radius: Double) -> RegionSet {
    RegionSet([Region(id: "c", kind: .plant, name: "c", shape: .circle(center: centre, radius: radius))])
}

@Suite struct Evidence {
    /// A receiver standing on a 50 m circle's boundary, its fixes scattered up to 3 m (uniform in a
    /// 3 m disc, eph 3 m), once a second for ten minutes.
    func jitterOnTheBoundary(_ config: MonitorConfig) -> [RegionEvent] {
        var rng = SplitMix64(seed: 42)
        var monitor = RegionMonitor(regions: circleSet(radius: 50), config: config)
        let onBoundary = Geodesic.wgs84.direct(from: centre, bearing: 30, distance: 50)
        var events: [RegionEvent] = []
        for s in 0..<600 {
            let r = 3 * rng.uniform(0, 1).squareRoot()
            let p = Geodesic.wgs84.direct(from: onBoundary, bearing: rng.uniform(0, 360), distance: r)
            events += monitor.process(Fix(time: at(Double(s)), mode: .threeD, coordinate: p, horizontalError: 3))
        }
        return events
    }

    @Test func stationaryJitterOnABoundaryGivesNoEventsAtTheDefaults() {
        #expect(jitterOnTheBoundary(MonitorConfig()).isEmpty)
    }

    @Test func withoutHysteresisTheSameJitterFlaps() {
        var bare = MonitorConfig()
        bare.hysteresisMetres = 0
        bare.accuracyFactor = 0
        #expect(jitterOnTheBoundary(bare).count > 100, "the test can tell evidence from none")
    }

    @Test func enterAndExitAtTheFixThatGaveTheEvidence() {
        // Walking north at 1 m/s through the centre of a 50 m circle, from 100 m south of it.
        var monitor = RegionMonitor(regions: circleSet(radius: 50))
        var events: [RegionEvent] = []
        for s in 0...200 {
            let along = -100.0 + Double(s)
            events += monitor.process(fix(Double(s), bearing: along < 0 ? 180 : 0, metres: abs(along), eph: 2.5))
        }
        // Margin 5 + 2.5 = 7.5 m: enter at the first fix 7.5 m inside (42 m from the centre, s = 58),
        // dwell 60 s later, exit at the first fix 7.5 m out (58 m from the centre, s = 158).
        #expect(events.map(\.type) == [.enter, .dwell, .exit])
        #expect(events.map(\.time) == [at(58), at(118), at(158)])
        #expect(abs(events[0].distance - 8) < 1e-6 && abs(events[2].distance + 8) < 1e-6)
        #expect(events[0].error == 2.5)
    }

    @Test func hdopStandsInForAMissingErrorEstimate() {
        var monitor = RegionMonitor(regions: circleSet(radius: 50))
        var events: [RegionEvent] = []
        for s in 0...100 {
            // HDOP 2.1 → 10.5 m: margin 15.5 m, enter at the first fix within 34.5 m of the centre.
            var f = fix(Double(s), bearing: 180, metres: 100 - Double(s), eph: nil)
            f.hdop = 2.1
            events += monitor.process(f)
        }
        #expect(events.map(\.time) == [at(66)])
    }

    @Test func theFirstFixSetsTheStateSilentlyUnlessAsked() {
        var quiet = RegionMonitor(regions: circleSet(radius: 50))
        #expect(quiet.process(fix(0, bearing: 0, metres: 10)).isEmpty)
        #expect(quiet.inside == [true])
        #expect(quiet.process(fix(1, bearing: 0, metres: 70)).map(\.type) == [.exit])
        var config = MonitorConfig()
        config.initialEnter = true
        var loud = RegionMonitor(regions: circleSet(radius: 50), config: config)
        let first = loud.process(fix(0, bearing: 0, metres: 10))
        #expect(first.count == 1 && first[0].type == .enter && first[0].initial)
    }

    @Test func dwellFiresOnceAtTheRightSecond() {
        var config = MonitorConfig()
        config.dwellSeconds = 60
        var monitor = RegionMonitor(regions: circleSet(radius: 50), config: config)
        var events: [RegionEvent] = []
        events += monitor.process(fix(0, bearing: 0, metres: 100))
        for s in 1...200 { events += monitor.process(fix(Double(s), bearing: 0, metres: 5)) }
        #expect(events.map(\.type) == [.enter, .dwell])
        #expect(events.map(\.time) == [at(1), at(61)])
        config.dwellSeconds = 0
        var off = RegionMonitor(regions: circleSet(radius: 50), config: config)
        var none: [RegionEvent] = []
        for s in 0...200 { none += off.process(fix(Double(s), bearing: 0, metres: s == 0 ? 100 : 5)) }
        #expect(none.map(\.type) == [.enter])
    }
}

@Suite struct Gate {
    @Test func aFiveKilometreJumpInOneSecondIsDropped() {
        var monitor = RegionMonitor(regions: circleSet(radius: 50))
        var events: [RegionEvent] = []
        for s in 0..<10 { events += monitor.process(fix(Double(s), bearing: 0, metres: 10)) }
        events += monitor.process(fix(10, bearing: 0, metres: 5_000))
        for s in 11..<20 { events += monitor.process(fix(Double(s), bearing: 0, metres: 10)) }
        #expect(events.isEmpty, "no exit for the outlier, no re-enter after it")
        #expect(monitor.gate.dropped[.impossibleJump] == 1)
        #expect(monitor.gate.accepted == 19)
    }

    @Test func aRealMoveIsAcceptedOnTheNextConsistentFix() {
        var gate = QualityGate(config: MonitorConfig())
        #expect(gate.check(fix(0, bearing: 0, metres: 0)) == nil)
        #expect(gate.check(fix(1, bearing: 90, metres: 5_000)) == .impossibleJump)
        #expect(gate.check(fix(2, bearing: 90, metres: 5_001)) == nil, "two fixes agree: the receiver moved")
    }

    @Test func dropsAreCountedByReason() {
        var gate = QualityGate(config: MonitorConfig())
        #expect(gate.check(Fix(time: at(0), mode: .noFix)) == .noFix)
        #expect(gate.check(Fix(timeOfDay: 0, mode: .threeD, coordinate: centre)) == .noTime)
        var blurry = fix(0, bearing: 0, metres: 0, eph: nil)
        blurry.hdop = 20  // 100 m
        #expect(gate.check(blurry) == .inaccurate)
        #expect(gate.check(fix(5, bearing: 0, metres: 0)) == nil)
        #expect(gate.check(fix(5, bearing: 0, metres: 1)) == .notAfterLast)
        #expect(gate.check(fix(4, bearing: 0, metres: 1)) == .notAfterLast)
        #expect(gate.dropped == [.noFix: 1, .noTime: 1, .inaccurate: 1, .notAfterLast: 2])
    }
}

@Suite struct FarFromTheBoundary {
    @Test func landingDeepInsideOrFarOutsideAfterAnOutage() throws {
        // A 2 km square area; fixes 30 s apart (an outage) land 500 m inside, then 500 m outside.
        let d = 1000.0 / 111_000
        let dl = 1000.0 / (111_000 * cos(centre.latitude * .pi / 180))
        let ring = [(centre.longitude - dl, centre.latitude - d), (centre.longitude + dl, centre.latitude - d),
                    (centre.longitude + dl, centre.latitude + d), (centre.longitude - dl, centre.latitude + d)]
            .map { Coordinate(latitude: $0.1, longitude: $0.0) }
        let set = RegionSet([Region(id: "area", kind: .reforestation, name: "area", shape: .polygons([[ring]]))])
        var monitor = RegionMonitor(regions: set)
        var events: [RegionEvent] = []
        events += monitor.process(fix(0, bearing: 0, metres: 1_600))    // 600 m north of the area
        events += monitor.process(fix(30, bearing: 0, metres: 500))     // 500 m inside
        events += monitor.process(fix(60, bearing: 90, metres: 1_500))  // 500 m east of it
        #expect(events.map(\.type) == [.enter, .plantingAllowed, .exit, .plantingForbidden])
        let base = events.filter { $0.type == .enter || $0.type == .exit }
        #expect(base.map(\.time) == [at(30), at(60)])
        #expect(base[0].distance > 400 && base[1].distance < -400)
    }
}

@Suite struct Transit {
    /// A cyclist at 18 m/s along a line through the centre, fixes 9 m before and 9 m after it.
    func pass(radius: Double, transit: Bool = true) -> [RegionEvent] {
        var config = MonitorConfig()
        config.transit = transit
        var monitor = RegionMonitor(regions: circleSet(radius: radius), config: config)
        return monitor.process(fix(0, bearing: 180, metres: 27)) + monitor.process(fix(1, bearing: 180, metres: 9))
            + monitor.process(fix(2, bearing: 0, metres: 9)) + monitor.process(fix(3, bearing: 0, metres: 27))
    }

    @Test func aPassBetweenTwoFixesIsReportedWithInterpolatedTimes() {
        let events = pass(radius: 6)
        #expect(events.map(\.type) == [.enter, .exit])
        #expect(events.allSatisfy { $0.transit })
        // The boundary is crossed 3 m and 15 m along the 18 m between the fixes at 1 s and 2 s.
        #expect(abs(events[0].time.seconds - at(1 + 3.0 / 18).seconds) < 0.002)
        #expect(abs(events[1].time.seconds - at(1 + 15.0 / 18).seconds) < 0.002)
        #expect(abs(Geodesic.wgs84.distance(centre, events[0].coordinate) - 6) < 0.01)
    }

    @Test func aShallowPassIsNotEvidence() {
        #expect(pass(radius: 4).isEmpty, "the path reaches 4 m inside, less than the 5 m margin")
    }

    @Test func transitCanBeTurnedOff() {
        #expect(pass(radius: 6, transit: false).isEmpty)
    }
}

@Suite struct ThreeRules {
    func plantSet(lastWatered: UTCTime, days: Int = 7) -> RegionSet {
        RegionSet([Region(id: "oak", kind: .plant, name: "Oak", shape: .circle(center: centre, radius: 30),
                          intervalDays: days, lastWatered: lastWatered)])
    }

    let day: Int64 = 86_400_000_000_000

    /// Out (60 m), in (5 m), out, in again: the fixes of a walk past a plant and back.
    func walkPastTwice(_ monitor: inout RegionMonitor, from s0: Double = 0) -> [RegionEvent] {
        var events: [RegionEvent] = []
        for (k, metres) in [60.0, 5, 5, 60, 60, 5, 5].enumerated() {
            events += monitor.process(fix(s0 + Double(k), bearing: 0, metres: metres))
        }
        return events
    }

    @Test func aDuePlantAlertsOnceAWateredOneDoesNot() throws {
        var monitor = RegionMonitor(regions: plantSet(lastWatered: UTCTime(nanoseconds: start.nanoseconds - 10 * day)))
        let events = walkPastTwice(&monitor)
        #expect(events.filter { $0.type == .waterDue }.map(\.time) == [at(1)], "once per due period, not on re-entering")
        #expect(events.map(\.type) == [.enter, .waterDue, .exit, .enter])
        let acknowledged = monitor.water(0, at: at(10))
        let watered = try #require(acknowledged)
        #expect(watered.type == .watered && monitor.lastWatered[0] == at(10))
        #expect(walkPastTwice(&monitor, from: 20).filter { $0.type == .waterDue }.isEmpty, "watered: not due for 7 days")
    }

    @Test func aPlantThatIsNotDueStaysQuiet() {
        var monitor = RegionMonitor(regions: plantSet(lastWatered: UTCTime(nanoseconds: start.nanoseconds - 3 * day)))
        #expect(walkPastTwice(&monitor).allSatisfy { $0.type != .waterDue })
    }

    @Test func theIntervalRunningOutWhileInsideAlertsAtThatSecond() {
        // Watered 7 days minus 30 s before the walk starts; the walker stands by it for a minute.
        var config = MonitorConfig()
        config.dwellSeconds = 0
        var monitor = RegionMonitor(regions: plantSet(lastWatered: UTCTime(nanoseconds: start.nanoseconds - 7 * day + 30_000_000_000)), config: config)
        var events: [RegionEvent] = []
        events += monitor.process(fix(0, bearing: 0, metres: 60))
        for s in 1...60 { events += monitor.process(fix(Double(s), bearing: 0, metres: 5)) }
        #expect(events.map(\.type) == [.enter, .waterDue])
        #expect(events[1].time == at(30))
    }

    @Test func albumsAndReforestationAreas() {
        let set = RegionSet([
            Region(id: "view", kind: .album, name: "View", shape: .circle(center: centre, radius: 30)),
            Region(id: "area", kind: .reforestation, name: "Area",
                   shape: .circle(center: Geodesic.wgs84.direct(from: centre, bearing: 90, distance: 500), radius: 100),
                   species: ["Quercus robur"]),
        ])
        var monitor = RegionMonitor(regions: set)
        var events: [RegionEvent] = []
        events += monitor.process(fix(0, bearing: 270, metres: 100))
        events += monitor.process(fix(60, bearing: 0, metres: 0))      // into the album zone
        events += monitor.process(fix(70, bearing: 90, metres: 200))   // out of it
        events += monitor.process(fix(80, bearing: 90, metres: 500))   // into the area
        events += monitor.process(fix(90, bearing: 90, metres: 800))   // out of it
        #expect(events.map(\.type) == [.enter, .captureAllowed, .exit, .captureLocked, .enter, .plantingAllowed, .exit, .plantingForbidden])
        #expect(events.map(\.region) == [0, 0, 0, 0, 1, 1, 1, 1])
    }
}
