import Geo
import NMEA
import Rules
import Testing
import TestSupport
import Regions

/// A monitor handed any error value, margin or config does not trap.
@Suite struct HostileErrors {
    /// A plant near the four-line log's position (its fixes 19 m apart, so the second is a path).
    static let regions = RegionSet([
        Region(id: "p", kind: .plant, name: "p", shape: .circle(center: Coordinate(latitude: 40.1036, longitude: -8.2355), radius: 30)),
        Region(id: "q", kind: .album, name: "q", shape: .circle(center: Coordinate(latitude: 40.1036, longitude: -8.2357), radius: 5)),
    ])

    func fixes(hdop: Double?, eph: Double?) -> [Fix] {
        (0..<20).map { s in
            Fix(time: at(Double(s)), mode: .threeD,
                coordinate: Coordinate(latitude: 40.1036, longitude: -8.2355 - Double(s) * 0.0002),
                horizontalError: eph, hdop: hdop)
        }
    }

    @Test func negativeOrNaNErrorsAreDroppedAsInaccurate() {
        for (hdop, eph) in [(-99.9, nil), (nil, -3.0), (Double.nan, nil), (nil, Double.nan), (-0.0, nil)] as [(Double?, Double?)] {
            var monitor = RegionMonitor(regions: Self.regions, config: MonitorConfig())
            for f in fixes(hdop: hdop, eph: eph) { _ = monitor.process(f) }
            if hdop == -0.0 {
                #expect(monitor.gate.accepted == 20, "-0 is a zero error")
            } else {
                #expect(monitor.gate.dropped[.inaccurate] == 20, "hdop \(String(describing: hdop)) eph \(String(describing: eph))")
            }
        }
    }

    /// Configs the file refuses but the API takes: a negative or NaN margin must not trap, and a
    /// negative margin counts as none.
    @Test func aNegativeOrNaNMarginNeverTraps() {
        for (hysteresis, factor) in [(-50.0, 1.0), (5.0, -10.0), (Double.nan, 1.0), (5.0, Double.nan), (-Double.infinity, 0)] {
            var config = MonitorConfig()
            config.hysteresisMetres = hysteresis
            config.accuracyFactor = factor
            var monitor = RegionMonitor(regions: Self.regions, config: config)
            var events: [RegionEvent] = []
            for f in fixes(hdop: 0.9, eph: 3) { events += monitor.process(f) }
            #expect(monitor.gate.accepted == 20)
            #expect(events.contains { $0.type == .exit && $0.region == 0 }, "a margin of 0: the walk leaves the 30 m plant")
        }
    }

    /// The fuzzer's four lines through the NMEA reader into the monitor, as `replay --regions` runs them.
    @Test func theFourLinesReplayWithoutATrap() {
        let log = HostileInput.negativeHDOP
        var reader = NMEAReader()
        var monitor = RegionMonitor(regions: Self.regions, config: MonitorConfig())
        reader.readAll(Array(log.utf8)) { _ = monitor.process($0) }
        #expect(monitor.gate.accepted == 2)
    }
}
