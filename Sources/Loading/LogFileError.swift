#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo
import NMEA

/// Why a log could not be read. The message names the file and says what to do.
public enum LogFileError: Error, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String, what: String = "NMEA log")
    case isDirectory(path: String, what: String = "NMEA log")
    case readFailed(path: String, reason: String, what: String = "NMEA log")

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason, what):
            return "cannot open \(what) '\(path)': \(reason); check the path and its permissions"
        case let .isDirectory(path, what):
            return "'\(path)' is a directory, not \(what.first.map { "aeiou".contains($0) } == true ? "an" : "a") \(what); give a file, or '-' for standard input"
        case let .readFailed(path, reason, what):
            return "reading \(what) '\(path)' failed: \(reason)"
        }
    }

    /// The same error for another kind of file ("regions file", "points file", …).
    func renamed(_ what: String) -> LogFileError {
        switch self {
        case let .cannotOpen(path, reason, _): return .cannotOpen(path: path, reason: reason, what: what)
        case let .isDirectory(path, _): return .isDirectory(path: path, what: what)
        case let .readFailed(path, reason, _): return .readFailed(path: path, reason: reason, what: what)
        }
    }
}
