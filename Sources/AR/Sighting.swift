#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// The geodesic from the observer to one POI.
public struct Sighting: Sendable, Equatable {
    /// Index of the POI in the caller's array.
    public var poi: Int
    /// Metres.
    public var distance: Double
    /// Initial bearing, degrees clockwise from north, [0, 360).
    public var bearing: Double

    public init(poi: Int, distance: Double, bearing: Double) {
        self.poi = poi
        self.distance = distance
        self.bearing = bearing
    }
}
