import CPROJ
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A point in a local plane, metres east (x) and north (y).
public struct Planar: Sendable, Equatable {
    /// Metres east (x) and north (y) of the plane's origin.
    public var x: Double
    public var y: Double
    /// The point `x` metres east and `y` metres north of the origin.
    @inlinable public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}
