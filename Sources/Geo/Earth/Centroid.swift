#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Shape {
    /// One point that stands for the shape, e.g. where an AR label points: a circle's centre, or
    /// the area centroid of the polygons (holes subtracted), computed in a local east/north frame.
    ///
    /// The frame's origin is the mean of the vertices; the centroid found in the plane goes back to
    /// the ellipsoid along the geodesic from that origin, which is exact to ρ³/6R² (under 1 mm for
    /// a fence 5 km across). The centroid of a concave shape can lie outside it, as any centroid.
    /// A shape without area (all vertices on a line) gives the vertex mean.
    public var centroid: Coordinate {
        switch self {
        case let .circle(center, _):
            return center
        case let .polygons(parts):
            let origin = Fence.centroid(parts.flatMap { $0.flatMap { $0 } })
            let frame = LocalFrame(origin: origin)
            var area = 0.0, sx = 0.0, sy = 0.0
            for rings in parts {
                for (k, ring) in rings.enumerated() {
                    let pts = ring.map { frame.project($0) }
                    // Shoelace: signed area and first moments of one ring.
                    var a = 0.0, mx = 0.0, my = 0.0
                    for i in pts.indices {
                        let p = pts[i], q = pts[(i + 1) % pts.count]
                        let cross = p.x * q.y - q.x * p.y
                        a += cross
                        mx += (p.x + q.x) * cross
                        my += (p.y + q.y) * cross
                    }
                    // Whatever the winding, the outer ring adds its area and a hole takes its own away.
                    let sign: Double = (k == 0) == (a >= 0) ? 1 : -1
                    area += sign * a / 2
                    sx += sign * mx / 6
                    sy += sign * my / 6
                }
            }
            guard abs(area) > 1e-9 else { return origin }
            let x = sx / area, y = sy / area
            let d = (x * x + y * y).squareRoot()
            if d < 1e-9 { return origin }
            return Geodesic.wgs84.direct(from: origin, bearing: atan2(x, y) * 180 / .pi, distance: d)
        }
    }
}
