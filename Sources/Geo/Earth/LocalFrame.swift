import CPROJ
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A local east/north plane tangent to the ellipsoid at an origin, in metres.
///
/// Positions go to ECEF exactly and are then rotated into the origin's east-north-up axes; the
/// up component is dropped (orthographic). The plane's scale is exact at the origin and shrinks
/// radially by about c²/2 at c = ρ/R from it: 8·10⁻⁶ at 25 km, 3·10⁻⁵ at 50 km (the tests measure
/// 3.3·10⁻⁵ at worst for fences 50 km across), and a geodesic between two points stays within
/// 0.2 m of the straight line between their images. The frame is continuous across the
/// antimeridian, so fences there need no special case.
public struct LocalFrame: Sendable, Equatable {
    /// Where the plane touches the ellipsoid: (0, 0) in the plane.
    public let origin: Coordinate
    @usableFromInline let o: ECEF
    @usableFromInline let ex: Double, ey: Double
    @usableFromInline let nx: Double, ny: Double, nz: Double

    /// The frame tangent to the ellipsoid at `origin`.
    public init(origin: Coordinate) {
        self.origin = origin
        o = ECEF(origin)
        let phi = origin.latitude * (.pi / 180), lambda = origin.longitude * (.pi / 180)
        ex = -sin(lambda)
        ey = cos(lambda)
        nx = -sin(phi) * cos(lambda)
        ny = -sin(phi) * sin(lambda)
        nz = cos(phi)
    }

    /// East and north of `p` from the origin, metres.
    @inlinable
    public func project(_ p: ECEF) -> Planar {
        let dx = p.x - o.x, dy = p.y - o.y, dz = p.z - o.z
        return Planar(x: ex * dx + ey * dy, y: nx * dx + ny * dy + nz * dz)
    }

    /// East and north of `c` (at height 0) from the origin, metres.
    @inlinable
    public func project(_ c: Coordinate) -> Planar { project(ECEF(c)) }

    /// Straight-line (chord) distance in space from the origin to `p`: within 1e-6 relative of
    /// the geodesic distance up to 50 km (the chord is shorter by about d³/24R²).
    @inlinable
    public func chord(_ p: ECEF) -> Double {
        let dx = p.x - o.x, dy = p.y - o.y, dz = p.z - o.z
        return (dx * dx + dy * dy + dz * dz).squareRoot()
    }

    /// The inverse of `project` on the ellipsoid: the point at height 0 on the near side whose
    /// image is `q`, so `project(coordinate(q))` is `q` to nanometres.
    ///
    /// Orthographic projection never lengthens a distance (it projects the chord, and the chord is
    /// never longer than the geodesic): two points at least `d` apart in the plane are at least
    /// `d` apart on the ellipsoid. The planting planner's spacing rests on this.
    ///
    /// Solves |o + d + hU|_M = 1 for the height h, with d = x·east + y·north, U = east × north
    /// and M the ellipsoid's metric, in a form without cancellation (o lies on the ellipsoid and
    /// d is orthogonal to its normal there).
    public func coordinate(_ q: Planar) -> Coordinate {
        let ux = ey * nz, uy = -ex * nz, uz = ex * ny - ey * nx
        let a2 = ECEF.a * ECEF.a, b2 = a2 * (1 - ECEF.e2)
        let dx = q.x * ex + q.y * nx, dy = q.x * ey + q.y * ny, dz = q.y * nz
        let px = o.x + dx, py = o.y + dy, pz = o.z + dz
        let qa = (ux * ux + uy * uy) / a2 + uz * uz / b2
        let qb = 2 * ((px * ux + py * uy) / a2 + pz * uz / b2)
        let qc = (2 * (o.x * dx + o.y * dy) + dx * dx + dy * dy) / a2 + (2 * o.z * dz + dz * dz) / b2
        let h = -2 * qc / (qb + max(0, qb * qb - 4 * qa * qc).squareRoot())
        let x = px + h * ux, y = py + h * uy, z = pz + h * uz
        let lon = atan2(y, x) * 180 / .pi
        let lat = atan2(z, (x * x + y * y).squareRoot() * (1 - ECEF.e2)) * 180 / .pi
        return Coordinate(latitude: lat, longitude: lon)
    }
}
