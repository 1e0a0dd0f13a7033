#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// Horizontal bands over the edges' y-range, about two per edge, each listing the edges whose
/// y-range meets it (horizontal edges, which never cross a ray, in none).
struct EdgeBands {
    let y0: Double, scale: Double, count: Int
    let buckets: Buckets

    init(_ edges: PlanarEdges) {
        guard edges.count > 0 else {
            (y0, scale, count, buckets) = (0, 0, 0, .empty)
            return
        }
        let count = max(1, min(1 << 16, 2 * edges.count))
        let y0 = edges.bounds.minY, scale = 1 / (max(edges.bounds.height, 1e-9) / Double(count))
        func band(_ y: Double) -> Int { min(count - 1, max(0, Int(((y - y0) * scale).rounded(.down)))) }
        buckets = Buckets(buckets: count, items: edges.count) { e, add in
            let ya = edges.ay[e], yb = edges.by[e]
            guard ya != yb else { return }
            for k in band(min(ya, yb))...band(max(ya, yb)) { add(k) }
        }
        (self.y0, self.scale, self.count) = (y0, scale, count)
    }

    /// Even-odd containment of `q` by the edges of its band.
    func contains(_ q: Planar, _ edges: PlanarEdges) -> Bool {
        guard count > 0 else { return false }
        let f = (q.y - y0) * scale
        guard f >= 0, f < Double(count) + 1 else { return false }
        var inside = false
        for i in buckets.range(min(count - 1, Int(f))) {
            let e = Int(buckets.items[i])
            if PlanarRing.crosses(q, edges.a(e), edges.b(e)) { inside.toggle() }
        }
        return inside
    }
}
