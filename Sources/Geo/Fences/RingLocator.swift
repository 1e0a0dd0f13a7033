/// Where points lie relative to one ring, each answered from the edges of one horizontal band
/// rather than all of them: the same answers as testing every edge (an edge that a horizontal
/// ray from the point crosses, or that the point lies on, spans the point's latitude and so is
/// in its band), in time per point near the edges per band.
struct RingLocator {
    let ring: [Planar]
    private let minY: Double
    private let bandHeight: Double
    private let bands: Int
    /// Band k's edges are `edges[bandStart[k]..<bandStart[k + 1]]`.
    private let bandStart: [Int32]
    private let edges: [Int32]

    init(_ ring: [Planar]) {
        self.ring = ring
        let n = ring.count
        var lo = Double.infinity, hi = -Double.infinity, rise = 0.0
        for k in 0..<n {
            lo = min(lo, ring[k].y); hi = max(hi, ring[k].y)
            rise += abs(ring[(k + 1) % n].y - ring[k].y)
        }
        let height = hi - lo
        // About as many bands as edges, fewer when edges are tall (so each edge spans a few).
        var bands = 1
        if n > 8, height > 0, height.isFinite, rise > 0 {
            bands = max(1, min(n, Int(min(Double(n), 2 * Double(n) * height / rise))))
        }
        self.bands = bands
        minY = lo.isFinite ? lo : 0
        bandHeight = bands > 1 ? height / Double(bands) : .infinity
        let (minY, bandHeight) = (self.minY, self.bandHeight)
        let index = Buckets(buckets: bands, items: n) { k, add in
            let y0 = ring[k].y, y1 = ring[(k + 1) % n].y
            for b in Self.band(min(y0, y1), minY, bandHeight, bands)...Self.band(max(y0, y1), minY, bandHeight, bands) { add(b) }
        }
        bandStart = index.start
        edges = index.items
    }

    private static func band(_ y: Double, _ minY: Double, _ height: Double, _ bands: Int) -> Int {
        guard bands > 1 else { return 0 }
        let k = ((y - minY) / height).rounded(.down)
        return k.isFinite ? max(0, min(bands - 1, Int(k))) : 0
    }

    /// Where `p` lies: on an edge, inside (even-odd, the arithmetic of `FenceCore.crossings`),
    /// or outside.
    func side(_ p: Planar) -> PolygonCheck.Side {
        let n = ring.count
        let k = Self.band(p.y, minY, bandHeight, bands)
        var inside = false
        for e in edges[Int(bandStart[k])..<Int(bandStart[k + 1])] {
            let b = ring[Int(e)], a = ring[(Int(e) + 1) % n]
            if PolygonCheck.orient(b, a, p) == 0, PolygonCheck.onSegment(b, a, p) { return .boundary }
            if PlanarRing.crosses(p, a, b) { inside.toggle() }
        }
        return inside ? .inside : .outside
    }
}
