import CGPS
import Geo
#if canImport(Glibc)
import Glibc
#endif

/// Why a session could not be opened or read.
public struct GPSDError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
