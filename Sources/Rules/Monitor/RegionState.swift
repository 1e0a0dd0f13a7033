import Geo

/// What must survive a restart for one region: with `LastFix`, enough for a monitor to go on
/// as if it had never stopped.
public struct RegionState: Sendable, Equatable {
    /// The state the evidence gave (not the geometry of the last fix: see `RegionMonitor`).
    public var inside: Bool
    /// When the state became inside (nil outside): dwell counts from it.
    public var enteredAt: UTCTime?
    /// The dwell event of this stay has fired.
    public var dwellDone: Bool
    /// Plants: when last watered.
    public var lastWatered: UTCTime?
    /// Plants: the watering the last `water_due` was for (one alert per due period).
    public var alertedFor: UTCTime?

    /// The defaults are a fresh region: outside, never watered, never alerted.
    public init(inside: Bool = false, enteredAt: UTCTime? = nil, dwellDone: Bool = false,
                lastWatered: UTCTime? = nil, alertedFor: UTCTime? = nil) {
        self.inside = inside
        self.enteredAt = enteredAt
        self.dwellDone = dwellDone
        self.lastWatered = lastWatered
        self.alertedFor = alertedFor
    }
}
