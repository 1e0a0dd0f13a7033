/// The monitor's settings: the `monitor:` section of the config file (Config reads it from the YAML).
public struct MonitorConfig: Sendable, Equatable {
    /// Extra evidence beyond the boundary, metres.
    public var hysteresisMetres = 5.0
    /// Times the fix's horizontal error added to the margin (0: ignore it).
    public var accuracyFactor = 1.0
    /// Fixes less accurate than this are dropped, metres.
    public var maxErrorMetres = 50.0
    /// A fix that would need more than this speed to reach is dropped, metres per second.
    public var maxSpeed = 100.0
    /// Seconds inside before one `dwell` event; 0 turns dwell off.
    public var dwellSeconds = 60.0
    /// Report fences crossed between two fixes.
    public var transit = true
    /// Announce fences the first fix is already inside.
    public var initialEnter = false

    /// Every setting at its default.
    public init() {}

    /// Metres per unit of HDOP when a fix has no error estimate of its own (no GST).
    public static let metresPerHDOP = 5.0
}
