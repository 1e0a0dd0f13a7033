import JSON
/// One point of a recorded track: where a fix the monitor used put the receiver, and when.
///
/// Only what the track needs and the monitor already has (`LastFix` without its pending jump), so
/// a daemon can record from the monitor's state and resume from the last stored point.
public struct TrackPoint: Sendable, Equatable {
    /// When the fix was taken, receiver UTC (never the wall clock).
    public var time: UTCTime
    /// Where it was, WGS84.
    public var coordinate: Coordinate
    /// Its horizontal error in metres, as the monitor used it (`QualityGate.horizontalError`).
    public var error: Double

    /// A point from its parts, unchecked.
    public init(time: UTCTime, coordinate: Coordinate, error: Double) {
        self.time = time
        self.coordinate = coordinate
        self.error = error
    }
}

extension TrackPoint {
    /// `{"time":…,"lat":…,"lon":…,"error_m":…}`: a fix as the daemon's answers give it
    /// (`state`'s last fix, `track`'s points).
    public func appendJSON(to out: inout [UInt8]) {
        out.append(contentsOf: #"{"time":""#.utf8)
        time.appendISO8601(to: &out)
        out.append(contentsOf: #"","lat":"#.utf8)
        JSONBytes.appendFixed(coordinate.latitude, decimals: 7, to: &out)
        out.append(contentsOf: #","lon":"#.utf8)
        JSONBytes.appendFixed(coordinate.longitude, decimals: 7, to: &out)
        out.append(contentsOf: #","error_m":"#.utf8)
        JSONBytes.appendFixed(error, decimals: 2, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}
