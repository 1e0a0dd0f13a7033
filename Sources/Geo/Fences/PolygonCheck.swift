/// Validity checks for polygon fences, in a local metric frame: what a user must fix before the
/// fence can be trusted (RFC 7946 and OGC simple-feature rules, plus Treeline's own limits).
package enum PolygonCheck {
    /// A polygon must fit a local frame: beyond this distance from its centre, refuse it.
    package static let maxRadius = 1_000_000.0

    /// Problems told at most for one polygon: a message that lists them all can be larger than the
    /// request (a thousand identical holes are half a million overlapping pairs), and each costs
    /// its check. The first ones are what to mend first.
    package static let maxProblems = 10

    package static func problems(_ parts: Polygons) -> [String] {
        var out: [String] = []
        let multi = parts.count > 1
        func label(_ part: Int, _ ring: Int) -> String {
            let r = ring == 0 ? "outer ring" : "hole \(ring)"
            return multi ? "part \(part + 1) \(r)" : r
        }
        // A ring around a pole: its longitudes wind once around the globe.
        for (pi, rings) in parts.enumerated() {
            var winding = 0.0
            let r = rings[0]
            for i in 0..<r.count {
                winding += Fence.relativeLongitude(r[(i + 1) % r.count].longitude, to: r[i].longitude)
            }
            if abs(winding) > 180 {
                let pole = r.map(\.latitude).reduce(0, +) > 0 ? "North" : "South"
                out.append("\(label(pi, 0)) goes around the \(pole) Pole; a polygon cannot fence a pole here: use a circle (Point with radius_m) or split it")
            }
        }
        if !out.isEmpty { return out }

        // Each vertex's ECEF position once, for the centre, the size and the plane.
        let all = parts.flatMap { $0.flatMap { $0.map(ECEF.init) } }
        let frame = LocalFrame(origin: Fence.centroid(all))
        for e in all where frame.chord(e) > maxRadius {
            out.append("is too large: a vertex lies \(Int(frame.chord(e) / 1000)) km from its centre (at most \(Int(maxRadius / 1000)) km); split it into smaller fences")
            return out
        }
        var next = 0
        let planar = parts.map { $0.map { ring in
            defer { next += ring.count }
            return all[next..<(next + ring.count)].map { frame.project($0) }
        } }
        // Locators answer only for holes and for the parts of a MultiPolygon: most fences are one
        // ring, and building them anyway cost 3 % of loading 100,000 fences.
        let locators = multi || parts.contains(where: { $0.count > 1 }) ? planar.map { $0.map(RingLocator.init) } : []

        for (pi, rings) in planar.enumerated() {
            for (ri, ring) in rings.enumerated() {
                if let k = selfIntersection(ring) {
                    out.append("\(label(pi, ri)) crosses itself (edge from position \(k.0 + 1) meets edge from position \(k.1 + 1))")
                } else if abs(area(ring)) < 1e-6 {
                    out.append("\(label(pi, ri)) encloses no area")
                }
            }
            guard out.isEmpty else { continue }
            let shell = rings[0]
            let boxes = rings.map(RingBox.init)
            for hi in 1..<max(1, rings.count) {
                let hole = rings[hi]
                let of = multi ? " of part \(pi + 1)" : ""
                if ringsCross(hole, shell) {
                    out.append("hole \(hi)\(of) crosses its outer ring")
                } else if samples(hole).contains(where: { locators[pi][0].side($0) == .outside }) {
                    out.append("hole \(hi)\(of) lies outside its outer ring")
                }
                // Holes whose boxes are apart cannot meet: only the others are compared.
                for hj in 1..<hi where boxes[hj].meets(boxes[hi])
                    && (ringsCross(rings[hj], hole) || ringsOverlap(locators[pi][hj], locators[pi][hi])) {
                    out.append("holes \(hj) and \(hi)\(of) overlap")
                    if out.count >= maxProblems { return out + ["(more problems are not listed: mend these first)"] }
                }
                if out.count >= maxProblems { return out + ["(more problems are not listed: mend these first)"] }
            }
        }
        if out.isEmpty, multi {
            for a in 0..<planar.count {
                for b in (a + 1)..<planar.count where partsOverlap(locators[a], locators[b]) {
                    out.append("parts \(a + 1) and \(b + 1) overlap; a MultiPolygon's parts must be disjoint")
                    if out.count >= maxProblems { return out + ["(more problems are not listed: mend these first)"] }
                }
            }
        }
        return out
    }

    package enum Side { case inside, boundary, outside }

    /// Whether the areas of two rings that do not properly cross share interior: a vertex or an
    /// edge's midpoint of one strictly inside the other, or, for rings that lie on each other's
    /// boundary (two identical holes), a point strictly inside one that is inside the other.
    static func ringsOverlap(_ p: RingLocator, _ q: RingLocator) -> Bool {
        samples(p.ring).contains { q.side($0) == .inside } || samples(q.ring).contains { p.side($0) == .inside }
            || interiorPoint(p).map { q.side($0) == .inside } == true || interiorPoint(q).map { p.side($0) == .inside } == true
    }

    /// A point strictly inside a ring: an edge's midpoint moved a little to each side of the edge,
    /// the first that the ring has inside (nil for a ring too thin to find one).
    static func interiorPoint(_ l: RingLocator) -> Planar? {
        let r = l.ring
        for i in 0..<min(r.count, 8) {
            let a = r[i], b = r[(i + 1) % r.count]
            let dx = b.x - a.x, dy = b.y - a.y
            let length = (dx * dx + dy * dy).squareRoot()
            guard length > 0 else { continue }
            let step = min(length, 1) * 1e-3
            let m = Planar(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
            for sign in [1.0, -1.0] {
                let c = Planar(x: m.x - sign * dy / length * step, y: m.y + sign * dx / length * step)
                if l.side(c) == .inside { return c }
            }
        }
        return nil
    }

    /// A ring's vertices and the midpoints of its edges: where a ring that does not properly
    /// cross another can still pass into it (through shared vertices) shows.
    package static func samples(_ r: [Planar]) -> [Planar] {
        var out = r
        for i in 0..<r.count {
            let a = r[i], b = r[(i + 1) % r.count]
            out.append(Planar(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2))
        }
        return out
    }

    /// Whether a point is strictly inside a polygon's area: inside its shell, not in or on a hole.
    static func inArea(_ x: Planar, _ rings: [RingLocator]) -> Bool {
        rings[0].side(x) == .inside && rings.dropFirst().allSatisfy { $0.side(x) == .outside }
    }

    /// Whether two polygons (shell and holes each) share interior: an edge crossing, or a sample
    /// point of one strictly inside the other's area. One lying wholly in the other's hole is fine.
    static func partsOverlap(_ a: [RingLocator], _ b: [RingLocator]) -> Bool {
        for ra in a { for rb in b where ringsCross(ra.ring, rb.ring) { return true } }
        return b.contains { samples($0.ring).contains { inArea($0, a) } } || a.contains { samples($0.ring).contains { inArea($0, b) } }
    }

    package static func orient(_ a: Planar, _ b: Planar, _ c: Planar) -> Double {
        (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
    }

    package static func onSegment(_ a: Planar, _ b: Planar, _ p: Planar) -> Bool {
        min(a.x, b.x) <= p.x && p.x <= max(a.x, b.x) && min(a.y, b.y) <= p.y && p.y <= max(a.y, b.y)
    }

    /// Whether segments ab and cd share a point; `proper` only counts a crossing of interiors.
    package static func segmentsMeet(_ a: Planar, _ b: Planar, _ c: Planar, _ d: Planar, proper: Bool) -> Bool {
        if max(a.x, b.x) < min(c.x, d.x) || max(c.x, d.x) < min(a.x, b.x) ||
            max(a.y, b.y) < min(c.y, d.y) || max(c.y, d.y) < min(a.y, b.y) { return false }
        let d1 = orient(c, d, a), d2 = orient(c, d, b), d3 = orient(a, b, c), d4 = orient(a, b, d)
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
        if proper { return false }
        return (d1 == 0 && onSegment(c, d, a)) || (d2 == 0 && onSegment(c, d, b)) ||
            (d3 == 0 && onSegment(a, b, c)) || (d4 == 0 && onSegment(a, b, d))
    }

    /// The first pair of edges (by start index) that meet other than at a shared end point.
    /// Candidates come from a quadtree of the edges (`SegmentPairs`), so a valid ring of n
    /// vertices costs about n log n; the least pair that meets is the one reported.
    package static func selfIntersection(_ r: [Planar]) -> (Int, Int)? {
        r.count <= directEdges ? selfIntersectionPairwise(r) : selfIntersectionByQuadtree(r)
    }

    /// Every pair in order (rings of up to `directEdges`).
    package static func selfIntersectionPairwise(_ r: [Planar]) -> (Int, Int)? {
        let n = r.count
        // A valid ring has no pair that meets, which a sweep along x shows with few box tests;
        // only a ring where some pair meets has its pairs walked in order, for the least.
        if n >= sweepEdges, !anyEdgesMeet(r) { return nil }
        // Every pair in order, so the first that meets is the least. Pairs whose boxes are apart
        // cannot meet (as in `SegmentPairs`), and are passed over first.
        return r.withUnsafeBufferPointer { v -> (Int, Int)? in
            for i in 0..<n {
                let a = v[i], b = v[i + 1 < n ? i + 1 : 0]
                let loX = min(a.x, b.x), hiX = max(a.x, b.x), loY = min(a.y, b.y), hiY = max(a.y, b.y)
                for j in (i + 1)..<max(i + 1, n) {
                    let c = v[j], d = v[j + 1 < n ? j + 1 : 0]
                    if hiX < min(c.x, d.x) || max(c.x, d.x) < loX || hiY < min(c.y, d.y) || max(c.y, d.y) < loY { continue }
                    if edgesMeet(r, i, j) { return (i, j) }
                }
            }
            return nil
        }
    }

    /// Rings of at least this many edges are swept before their pairs are walked.
    package static let sweepEdges = 12

    /// Whether any two edges of ring `r` meet (other than neighbours at their shared end):
    /// the edges in order of their least x, each against those that start before it ends, so
    /// that exactly the pairs whose boxes overlap are tested, as the walk in order tests them.
    package static func anyEdgesMeet(_ r: [Planar]) -> Bool {
        let n = r.count
        return r.withUnsafeBufferPointer { v in
            withUnsafeTemporaryAllocation(of: (loX: Double, hiX: Double, loY: Double, hiY: Double, edge: Int).self, capacity: n) { buffer in
                var e = buffer
                for i in 0..<n {
                    let a = v[i], b = v[i + 1 < n ? i + 1 : 0]
                    e.initializeElement(at: i, to: (min(a.x, b.x), max(a.x, b.x), min(a.y, b.y), max(a.y, b.y), i))
                }
                defer { e.deinitialize() }
                e.sort { $0.loX < $1.loX }
                for s in 0..<n {
                    let p = e[s]
                    var t = s + 1
                    while t < n, e[t].loX <= p.hiX {
                        let q = e[t]
                        t += 1
                        if q.hiY < p.loY || p.hiY < q.loY { continue }
                        if edgesMeet(r, min(p.edge, q.edge), max(p.edge, q.edge)) { return true }
                    }
                }
                return false
            }
        }
    }

    /// The candidates of a quadtree of the edges (`SegmentPairs`), the least that meets.
    package static func selfIntersectionByQuadtree(_ r: [Planar]) -> (Int, Int)? {
        var first: (Int, Int)?
        SegmentPairs(ring: r).forEachCandidate { i, j in
            if let f = first, (f.0, f.1) <= (i, j) { return true }
            if edgesMeet(r, i, j) { first = (i, j) }
            return true
        }
        return first
    }

    /// Whether edges i < j of ring `r` meet other than at the end point neighbours share.
    package static func edgesMeet(_ r: [Planar], _ i: Int, _ j: Int) -> Bool {
        let n = r.count
        let a = r[i], b = r[(i + 1) % n], c = r[j], d = r[(j + 1) % n]
        if a == b || c == d { return false }
        let adjacent = j == i + 1 || (i == 0 && j == n - 1)
        if adjacent {
            // Neighbours share an end point; they are wrong only if they fold back on each other.
            let shared = j == i + 1 ? b : a
            let other1 = j == i + 1 ? a : b, other2 = j == i + 1 ? d : c
            return orient(shared, other1, other2) == 0 &&
                (other2.x - shared.x) * (other1.x - shared.x) + (other2.y - shared.y) * (other1.y - shared.y) > 0
        }
        return segmentsMeet(a, b, c, d, proper: false)
    }

    /// Rings of at most this many edges are checked pair by pair: a quadtree's cells and arrays
    /// cost more than the few hundred pairs (100,000 fences of 6 to 64 vertices loaded 6 % faster).
    /// Both ways find the same pair (`PairwiseEqualsTheQuadtree`).
    package static let directEdges = 64

    /// Whether an edge of `p` and an edge of `q` cross in their interiors.
    package static func ringsCross(_ p: [Planar], _ q: [Planar]) -> Bool {
        p.count * q.count <= directEdges * directEdges ? ringsCrossPairwise(p, q) : ringsCrossByQuadtree(p, q)
    }

    package static func ringsCrossPairwise(_ p: [Planar], _ q: [Planar]) -> Bool {
        for i in p.indices {
            let a = p[i], b = p[(i + 1) % p.count]
            for k in q.indices where segmentsMeet(a, b, q[k], q[(k + 1) % q.count], proper: true) { return true }
        }
        return false
    }

    package static func ringsCrossByQuadtree(_ p: [Planar], _ q: [Planar]) -> Bool {
        var found = false
        SegmentPairs(crossing: p, q).forEachCandidate { i, j in
            let k = j - p.count  // i < j: i is p's edge, j q's
            guard i < p.count, k >= 0 else { return true }
            if segmentsMeet(p[i], p[(i + 1) % p.count], q[k], q[(k + 1) % q.count], proper: true) { found = true }
            return !found
        }
        return found
    }

    package static func area(_ r: [Planar]) -> Double { PlanarRing.signedArea(r) }

    /// A ring's bounding box, closed: rings that touch at a point have boxes that meet.
    package struct RingBox {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity

        init(_ ring: [Planar]) {
            for p in ring {
                minX = min(minX, p.x)
                minY = min(minY, p.y)
                maxX = max(maxX, p.x)
                maxY = max(maxY, p.y)
            }
        }

        func meets(_ o: RingBox) -> Bool { minX <= o.maxX && o.minX <= maxX && minY <= o.maxY && o.minY <= maxY }
    }
}
