#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The shape of a region as the user gave it, in WGS84 degrees.
public enum Shape: Sendable, Equatable {
    /// Everything within `radius` metres (geodesic) of `center`.
    case circle(center: Coordinate, radius: Double)
    /// One or more polygons; each is an outer ring followed by its holes. Rings are open
    /// (the closing position is not repeated).
    case polygons(Polygons)
}
