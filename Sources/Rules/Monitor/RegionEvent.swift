import Geo

/// Something a user acts on, at the time of the fix that gave the evidence (never the wall
/// clock, so a replay is deterministic).
public struct RegionEvent: Sendable, Equatable {
    /// What happened; the raw values are the names events' JSON uses.
    public enum EventType: String, Sendable {
        /// Into or out of a region by the evidence margin (see `RegionMonitor`); `dwell` once after
        /// `dwellSeconds` inside.
        case enter, exit, dwell
        /// Plants: inside a plant whose watering interval has run out.
        case waterDue = "water_due"
        /// A plant was watered (acknowledged).
        case watered
        /// Albums: capture allowed inside, locked outside.
        case captureAllowed = "capture_allowed"
        case captureLocked = "capture_locked"
        /// Reforestation areas: planting allowed inside (with the area's species), forbidden outside.
        case plantingAllowed = "planting_allowed"
        case plantingForbidden = "planting_forbidden"
    }

    /// Time of the fix that gave the evidence, interpolated along the path for a transit; for
    /// `watered`, the time given.
    public var time: UTCTime
    /// What happened.
    public var type: EventType
    /// Index of the region in the monitor's `RegionSet`.
    public var region: Int
    /// Where: the fix, or the interpolated point for a transit; for `watered`, the last accepted
    /// fix (NaN before any).
    public var coordinate: Coordinate
    /// Signed distance to the region's boundary, metres, positive inside.
    public var distance: Double
    /// The fix's horizontal error used for the evidence, metres.
    public var error: Double
    /// An enter for a fence the first fix was already inside (`initialEnter`).
    public var initial = false
    /// Part of a pass through a fence between two fixes, neither of them inside; the time is
    /// interpolated along the path.
    public var transit = false

    /// An event; `initial` and `transit` default to false.
    public init(time: UTCTime, type: EventType, region: Int, coordinate: Coordinate, distance: Double, error: Double,
                initial: Bool = false, transit: Bool = false) {
        self.time = time
        self.type = type
        self.region = region
        self.coordinate = coordinate
        self.distance = distance
        self.error = error
        self.initial = initial
        self.transit = transit
    }
}
