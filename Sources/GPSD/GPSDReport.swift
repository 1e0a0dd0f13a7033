import CGPS
import Geo
#if canImport(Glibc)
import Glibc
#endif

/// One report read from gpsd, by its class.
enum GPSDReport: Equatable {
    /// A TPV: the epoch's time, mode and position. Its error estimate comes with the GST after it.
    case position(Fix)
    /// A GST: the epoch's pseudorange error statistics (1-sigma latitude and longitude error, m).
    case errors(time: UTCTime?, latitude: Double, longitude: Double)
    /// A SKY: dilution of precision and satellites used, of the epoch at `time` (when known).
    case sky(time: UTCTime?, hdop: Double?, pdop: Double?, vdop: Double?, satellitesUsed: Int?)
    /// A DEVICE: the receiver gpsd reads (its path) and whether it is active.
    case device(path: String, active: Bool)
    /// Anything else (VERSION, WATCH, DEVICES, ...).
    case other
}
