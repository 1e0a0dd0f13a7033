#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Config
import Geo
import Rules
import Regions

/// Why a file could not be loaded: the file, and the cause. The message (`description`) names
/// the file (and the line, feature or key where there is one) and says what to do; both
/// executables print it as it is.
public struct LoadError: Error, CustomStringConvertible {
    public enum Cause: Sendable {
        /// It could not be opened or read.
        case unreadable(LogFileError)
        /// A regions file with problems (every one, each naming file and feature).
        case regions(RegionFileError)
        case config(ConfigError)
        case catalog(SpeciesCatalogError)
        /// None of the places a species catalog is looked for has one.
        case noCatalog(looked: [String])
    }

    /// The file (for several regions files, the first with a problem).
    public var file: String
    public var cause: Cause

    public var description: String {
        switch cause {
        case let .unreadable(e): return e.description
        case let .regions(e): return e.description
        case let .config(e): return e.description
        case let .catalog(e): return e.description
        case let .noCatalog(looked):
            return "no species catalog at \(looked.joined(separator: ", ")): pass --catalog PATH, or set species: in the config"
        }
    }
}
