import CPROJ

/// Geodesics on the WGS84 ellipsoid through PROJ's implementation of Karney's algorithms
/// (`geodesic.h`). Accurate to nanometres; no haversine anywhere.
///
/// A class, so that its `geod_geodesic` (some 60 doubles of series coefficients) stays at one
/// address: a struct holding it was copied to the stack on every call to get a pointer to it.
public final class Geodesic: @unchecked Sendable {
    // Written once in init, only read afterwards: safe to share.
    @usableFromInline let g: UnsafeMutablePointer<geod_geodesic>

    /// The WGS84 ellipsoid, shared.
    public static let wgs84 = Geodesic(equatorialRadius: 6_378_137, flattening: 1 / 298.257223563)

    /// Geodesics on the ellipsoid of equatorial radius `a` metres and flattening `f`.
    public init(equatorialRadius a: Double, flattening f: Double) {
        g = .allocate(capacity: 1)
        g.initialize(to: geod_geodesic())
        geod_init(g, a, f)
    }

    deinit { g.deallocate() }

    /// Distance in metres and initial/final bearings in degrees (clockwise from north, [0, 360)).
    public func inverse(_ from: Coordinate, _ to: Coordinate) -> (distance: Double, initialBearing: Double, finalBearing: Double) {
        var s12 = 0.0, azi1 = 0.0, azi2 = 0.0
        geod_inverse(g, from.latitude, from.longitude, to.latitude, to.longitude, &s12, &azi1, &azi2)
        return (s12, Self.normalizedBearing(azi1), Self.normalizedBearing(azi2))
    }

    /// Geodesic distance from `from` to `to`, metres.
    public func distance(_ from: Coordinate, _ to: Coordinate) -> Double { inverse(from, to).distance }

    /// Whether the WGS84 geodesic between `a` and `b` is at most `limit` metres long. Decided by
    /// the chord when it can be: the geodesic is never shorter than its chord, and within 100 km
    /// longer by less than 10⁻⁴ of it (about L³/24ρ², 10⁻⁵ at 100 km). Karney only near the limit.
    public static func isWithin(_ limit: Double, _ a: Coordinate, _ b: Coordinate) -> Bool {
        isWithin(limit, a, ECEF(a), b, ECEF(b))
    }

    /// `isWithin(_:_:_:)` for points whose ECEF positions the caller has.
    public static func isWithin(_ limit: Double, _ a: Coordinate, _ pa: ECEF, _ b: Coordinate, _ pb: ECEF) -> Bool {
        let chord = pa.distance(to: pb)
        // The chord in ECEF carries rounding of a few nanometres: near the limit, ask Karney.
        let rounding = 1e-8 + chord * 1e-12
        if chord > limit + rounding { return false }
        if chord <= 100_000, chord * (1 + 1e-4) + rounding <= limit { return true }
        return wgs84.distance(a, b) <= limit
    }

    /// The point `distance` metres from `from` along initial bearing `bearing` (degrees).
    public func direct(from: Coordinate, bearing: Double, distance: Double) -> Coordinate {
        var lat2 = 0.0, lon2 = 0.0, azi2 = 0.0
        geod_direct(g, from.latitude, from.longitude, bearing, distance, &lat2, &lon2, &azi2)
        return Coordinate(latitude: lat2, longitude: lon2)
    }

    @inlinable
    static func normalizedBearing(_ b: Double) -> Double {
        let r = b.truncatingRemainder(dividingBy: 360)
        return r < 0 ? r + 360 : r
    }
}
