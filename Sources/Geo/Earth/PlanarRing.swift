/// The rules on a closed ring of planar points (the last point joins the first) that fences,
/// the polygon checks, the planting planner and the map share, written once.
public enum PlanarRing {
    /// Whether the edge `a`–`b` crosses the ray from `q` towards +x: one step of the even-odd
    /// rule. Half-open in y (an edge counts when exactly one end is above `q`), so a ray through
    /// a vertex counts the two edges there once between them. Every even-odd test in Treeline
    /// is this arithmetic, so they agree bit for bit on every point.
    @inlinable
    public static func crosses(_ q: Planar, _ a: Planar, _ b: Planar) -> Bool {
        (a.y > q.y) != (b.y > q.y) && q.x < (b.x - a.x) * (q.y - a.y) / (b.y - a.y) + a.x
    }

    /// Squared distance from `q` to the segment `a`–`b` (to `a` when the segment is a point):
    /// the distance to an edge, for signed distances to fences and the planner's proximity test.
    @inlinable
    public static func segmentDistanceSquared(_ q: Planar, _ a: Planar, _ b: Planar) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let len2 = dx * dx + dy * dy
        var t = len2 > 0 ? ((q.x - a.x) * dx + (q.y - a.y) * dy) / len2 : 0
        t = min(1, max(0, t))
        let px = a.x + t * dx - q.x, py = a.y + t * dy - q.y
        return px * px + py * py
    }

    /// Even-odd containment of `q` in one ring (a point on the boundary may fall either way).
    public static func contains(_ ring: [Planar], _ q: Planar) -> Bool {
        guard var b = ring.last else { return false }
        var inside = false
        for a in ring {
            if crosses(q, a, b) { inside.toggle() }
            b = a
        }
        return inside
    }

    /// The signed area by the shoelace formula, m²: positive for an anticlockwise ring
    /// (east = x, north = y), negative for a clockwise one, 0 below three points.
    public static func signedArea(_ ring: [Planar]) -> Double {
        guard ring.count >= 3 else { return 0 }
        var sum = 0.0
        for i in 0..<ring.count {
            let a = ring[i], b = ring[(i + 1) % ring.count]
            sum += a.x * b.y - b.x * a.y
        }
        return sum / 2
    }
}
