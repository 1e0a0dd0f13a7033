#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A latitude/longitude box, degrees. `minLon > maxLon` never happens: a box across the
/// antimeridian is stored as two boxes.
public struct GeoBox: Sendable, Equatable {
    /// The edges, degrees: south (`minLat`), west (`minLon`), north (`maxLat`), east (`maxLon`).
    public var minLat: Double
    public var minLon: Double
    public var maxLat: Double
    public var maxLon: Double

    /// A box from its edges in degrees, unchecked.
    @inlinable
    public init(minLat: Double, minLon: Double, maxLat: Double, maxLon: Double) {
        self.minLat = minLat
        self.minLon = minLon
        self.maxLat = maxLat
        self.maxLon = maxLon
    }

    /// Whether `c` lies in the box, edges included.
    @inlinable
    public func contains(_ c: Coordinate) -> Bool {
        c.latitude >= minLat && c.latitude <= maxLat && c.longitude >= minLon && c.longitude <= maxLon
    }

    /// Whether the two boxes share a point, edges included.
    @inlinable
    public func intersects(_ o: GeoBox) -> Bool {
        minLat <= o.maxLat && maxLat >= o.minLat && minLon <= o.maxLon && maxLon >= o.minLon
    }
}

extension GeoBox {
    /// Whether `o` lies wholly inside this box.
    @inlinable
    public func contains(_ o: GeoBox) -> Bool {
        o.minLat >= minLat && o.maxLat <= maxLat && o.minLon >= minLon && o.maxLon <= maxLon
    }
}
