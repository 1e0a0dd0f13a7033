import ArgumentParser
import Geo
import NMEA
import Config
import Loading
import Rules
import Map

/// The `monitor:` settings as command-line options; each overrides the default.
struct MonitorOptions: ParsableArguments {
    @Option(name: .customLong("hysteresis-m"), help: "Extra evidence beyond a boundary, metres (default 5).")
    var hysteresis: Double?
    @Option(name: .customLong("accuracy-factor"), help: "Times the fix's horizontal error added to the margin (default 1; 0 ignores it).")
    var accuracyFactor: Double?
    @Option(name: .customLong("max-error-m"), help: "Drop fixes less accurate than this, metres (default 50).")
    var maxError: Double?
    @Option(name: .customLong("max-speed-mps"), help: "Drop fixes that would need more than this speed, m/s (default 100).")
    var maxSpeed: Double?
    @Option(name: .customLong("dwell-s"), help: "Seconds inside before one dwell event (default 60; 0: none).")
    var dwell: Double?
    @Flag(inversion: .prefixedNo, help: "Report fences crossed between two fixes (default on).")
    var transit: Bool?
    @Flag(name: .customLong("initial-enter"), help: "Announce the fences the first fix is already inside.")
    var initialEnter = false

    func validate() throws {
        for (name, v) in [("--hysteresis-m", hysteresis), ("--accuracy-factor", accuracyFactor), ("--max-error-m", maxError),
                          ("--max-speed-mps", maxSpeed), ("--dwell-s", dwell)] {
            if let v, !(v >= 0) || !v.isFinite { throw ValidationError("\(name) must be a number of 0 or more") }
        }
    }

    func applied(to base: MonitorConfig) -> MonitorConfig {
        var c = base
        if let hysteresis { c.hysteresisMetres = hysteresis }
        if let accuracyFactor { c.accuracyFactor = accuracyFactor }
        if let maxError { c.maxErrorMetres = maxError }
        if let maxSpeed { c.maxSpeed = maxSpeed }
        if let dwell { c.dwellSeconds = dwell }
        if let transit { c.transit = transit }
        if initialEnter { c.initialEnter = true }
        return c
    }
}
