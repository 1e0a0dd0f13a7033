import CPROJ
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A position as Earth-centred, Earth-fixed Cartesian coordinates on WGS84, metres.
public struct ECEF: Sendable, Equatable {
    /// Metres along the axes: x towards 0° N 0° E, y towards 0° N 90° E, z towards the north pole.
    public var x: Double
    public var y: Double
    public var z: Double

    /// A position from its components, metres.
    @inlinable public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// WGS84 equatorial radius, metres.
    public static let a = 6_378_137.0
    /// WGS84 flattening.
    public static let f = 1 / 298.257223563
    /// WGS84 first eccentricity squared, f·(2 − f).
    public static let e2 = f * (2 - f)

    /// The point at height 0 on the WGS84 ellipsoid below `c`.
    @inlinable
    public init(_ c: Coordinate) {
        let phi = c.latitude * (.pi / 180), lambda = c.longitude * (.pi / 180)
        var sp = 0.0, cp = 0.0, sl = 0.0, cl = 0.0
        if abs(phi) <= SinCos.limit, abs(lambda) <= SinCos.limit {
            // The usual case, every coordinate in range (see `SinCos`).
            let (s, c) = SinCos.sinCos(SIMD2(phi, lambda))
            sp = s[0]; cp = c[0]; sl = s[1]; cl = c[1]
        } else {
            tl_sincos(phi, &sp, &cp)
            tl_sincos(lambda, &sl, &cl)
        }
        let n = Self.a / (1 - Self.e2 * sp * sp).squareRoot()
        x = n * cp * cl
        y = n * cp * sl
        z = n * (1 - Self.e2) * sp
    }

    /// The straight-line distance to `o`, metres.
    @inlinable
    public func distance(to o: ECEF) -> Double {
        let dx = o.x - x, dy = o.y - y, dz = o.z - z
        return (dx * dx + dy * dy + dz * dz).squareRoot()
    }
}
