#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// A `LocalFrame` with its inverse: the point on the ellipsoid (height 0) whose orthographic
/// image is a given planar point. The axes are recomputed here from the origin exactly as
/// `LocalFrame` computes them, so `project(coordinate(q))` is `q` to nanometres.
///
/// Orthographic projection never lengthens a distance (it is a projection of the chord, and the
/// chord is never longer than the geodesic): two points at least `d` apart in the plane are at
/// least `d` apart on the ellipsoid. The planner's spacing rests on this.
struct PlanarFrame {
    let frame: LocalFrame
    private let o: ECEF
    private let ex, ey: Double
    private let nx, ny, nz: Double
    private let ux, uy, uz: Double

    init(_ frame: LocalFrame) {
        self.frame = frame
        o = ECEF(frame.origin)
        let phi = frame.origin.latitude * (.pi / 180), lambda = frame.origin.longitude * (.pi / 180)
        ex = -sin(lambda)
        ey = cos(lambda)
        nx = -sin(phi) * cos(lambda)
        ny = -sin(phi) * sin(lambda)
        nz = cos(phi)
        // Up = east × north.
        ux = ey * nz
        uy = -ex * nz
        uz = ex * ny - ey * nx
    }

    func project(_ c: Coordinate) -> Planar { frame.project(c) }
    func project(_ p: ECEF) -> Planar { frame.project(p) }

    /// The point of the ellipsoid below (or above) `q` on the near side: solves
    /// |o + d + hU|_M = 1 for the height h, with d = x·east + y·north and M the ellipsoid's
    /// metric, in a form without cancellation (o lies on the ellipsoid and d is orthogonal to its
    /// normal there).
    func coordinate(_ q: Planar) -> Coordinate {
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
