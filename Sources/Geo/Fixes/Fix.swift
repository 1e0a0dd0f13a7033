/// One epoch's report from a receiver, whatever the source (an NMEA log or gpsd).
///
/// A no-fix report has `mode == .noFix` and no `coordinate`: nothing downstream can mistake it
/// for a position. Every optional is nil when the receiver did not say; nothing is defaulted.
public struct Fix: Sendable, Equatable {
    /// Receiver UTC time of the epoch; nil until the receiver has supplied a date (RMC or ZDA).
    public var time: UTCTime?
    /// Receiver UTC time of day in nanoseconds since midnight, known even before the date is.
    public var timeOfDay: Int64?
    /// Whether the receiver had no fix, a 2D or a 3D fix.
    public var mode: FixMode
    /// Position (WGS84 degrees); nil when `mode == .noFix`.
    public var coordinate: Coordinate?
    /// Altitude above mean sea level, metres.
    public var altitudeMSL: Double?
    /// Speed over ground, metres per second.
    public var speed: Double?
    /// Course over ground, degrees true, [0, 360).
    public var course: Double?
    /// Horizontal error estimate in metres where the receiver reports one (GST):
    /// √(σlat² + σlon²), the 1-sigma radial (DRMS) error.
    public var horizontalError: Double?
    /// Horizontal dilution of precision, unitless.
    public var hdop: Double?
    /// Position (3D) dilution of precision, unitless.
    public var pdop: Double?
    /// Vertical dilution of precision, unitless.
    public var vdop: Double?
    /// Satellites used in the solution.
    public var satellitesUsed: Int?

    /// A report with the given fields; nothing is checked or derived.
    public init(
        time: UTCTime? = nil, timeOfDay: Int64? = nil, mode: FixMode, coordinate: Coordinate? = nil,
        altitudeMSL: Double? = nil, speed: Double? = nil, course: Double? = nil,
        horizontalError: Double? = nil, hdop: Double? = nil, pdop: Double? = nil, vdop: Double? = nil,
        satellitesUsed: Int? = nil
    ) {
        self.time = time
        self.timeOfDay = timeOfDay
        self.mode = mode
        self.coordinate = coordinate
        self.altitudeMSL = altitudeMSL
        self.speed = speed
        self.course = course
        self.horizontalError = horizontalError
        self.hdop = hdop
        self.pdop = pdop
        self.vdop = vdop
        self.satellitesUsed = satellitesUsed
    }

    /// True for a 2D or 3D fix with a valid position.
    public var hasPosition: Bool { mode >= .twoD && coordinate != nil }
}
