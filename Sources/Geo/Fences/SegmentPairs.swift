/// The pairs of ring edges that may meet, found through a quadtree of the edges instead of by
/// comparing every edge with every other: a ring traced by GPS, of 160,000 vertices, has 10¹⁰
/// pairs but only a few per edge whose extents overlap.
///
/// The plane around the edges is split in four until a cell holds at most `leafSize` edges (or
/// splitting stops helping); an edge goes to every cell it touches, so two edges that meet share
/// a cell, and the pairs in each leaf whose boxes overlap are the candidates. A pair may come
/// more than once (it shares several leaves): callers take the least, or any.
struct SegmentPairs {
    /// Edges with the group they belong to: pairs are within one group (`ring`), or only across
    /// two (`crossing`).
    private let a: [Planar], b: [Planar]
    private let group: [UInt8]
    private let acrossOnly: Bool

    static let leafSize = 24
    static let maxDepth = 24

    /// The edges of one closed ring: edge k runs from vertex k to vertex k + 1 (the last back to 0).
    init(ring: [Planar]) {
        let n = ring.count
        a = ring
        b = (0..<n).map { ring[($0 + 1) % n] }
        group = Array(repeating: 0, count: n)
        acrossOnly = false
    }

    /// The edges of two closed rings; edge k < p.count is p's edge k, the rest q's, from 0.
    init(crossing p: [Planar], _ q: [Planar]) {
        a = p + q
        b = (0..<p.count).map { p[($0 + 1) % p.count] } + (0..<q.count).map { q[($0 + 1) % q.count] }
        group = Array(repeating: 0, count: p.count) + Array(repeating: 1, count: q.count)
        acrossOnly = true
    }

    struct Box {
        var minX, minY, maxX, maxY: Double
    }

    /// Calls `body(i, j)` (i < j) for candidate pairs until it returns false; returns how many
    /// it offered (the work done, which tests hold to about n log n).
    @discardableResult
    func forEachCandidate(_ body: (Int, Int) -> Bool) -> Int {
        var offered = 0
        forEachCandidateCounting { i, j in
            offered += 1
            return body(i, j)
        }
        return offered
    }

    private func forEachCandidateCounting(_ body: (Int, Int) -> Bool) {
        guard a.count > 1 else { return }
        var box = Box(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        for p in a {
            box.minX = min(box.minX, p.x); box.maxX = max(box.maxX, p.x)
            box.minY = min(box.minY, p.y); box.maxY = max(box.maxY, p.y)
        }
        guard box.minX.isFinite, box.maxX.isFinite, box.minY.isFinite, box.maxY.isFinite else {
            return Self.allPairs(Array(0..<Int32(a.count)), self, body) ? () : ()
        }
        // Room for rounding: a cell's test must never lose an edge that touches it.
        let slack = 1e-9 * max(1, box.maxX - box.minX, box.maxY - box.minY)
        _ = visit(Array(0..<Int32(a.count)), box, depth: 0, slack: slack, body)
    }

    /// False once `body` asked to stop.
    private func visit(_ items: [Int32], _ box: Box, depth: Int, slack: Double, _ body: (Int, Int) -> Bool) -> Bool {
        if items.count <= Self.leafSize || depth >= Self.maxDepth { return Self.allPairs(items, self, body) }
        let midX = (box.minX + box.maxX) / 2, midY = (box.minY + box.maxY) / 2
        let cells = [Box(minX: box.minX, minY: box.minY, maxX: midX, maxY: midY),
                     Box(minX: midX, minY: box.minY, maxX: box.maxX, maxY: midY),
                     Box(minX: box.minX, minY: midY, maxX: midX, maxY: box.maxY),
                     Box(minX: midX, minY: midY, maxX: box.maxX, maxY: box.maxY)]
        var parts: [[Int32]] = [[], [], [], []]
        for e in items {
            for c in 0..<4 where touches(Int(e), cells[c], slack) { parts[c].append(e) }
        }
        // Edges that all pass through every cell (a star through the middle): splitting gains
        // nothing, so this is a leaf.
        if parts.allSatisfy({ $0.count == items.count }) { return Self.allPairs(items, self, body) }
        for c in 0..<4 where parts[c].count > 1 {
            if !visit(parts[c], cells[c], depth: depth + 1, slack: slack, body) { return false }
        }
        return true
    }

    /// Whether edge `e` may touch the closed cell (with `slack` around it): its box meets the
    /// cell, and the cell's corners are not all on one side of its line.
    private func touches(_ e: Int, _ cell: Box, _ slack: Double) -> Bool {
        let p = a[e], q = b[e]
        let lo = Box(minX: cell.minX - slack, minY: cell.minY - slack, maxX: cell.maxX + slack, maxY: cell.maxY + slack)
        guard max(p.x, q.x) >= lo.minX, min(p.x, q.x) <= lo.maxX, max(p.y, q.y) >= lo.minY, min(p.y, q.y) <= lo.maxY else { return false }
        let dx = q.x - p.x, dy = q.y - p.y
        let tolerance = slack * (abs(dx) + abs(dy)) * 4
        var above = false, below = false
        for (x, y) in [(lo.minX, lo.minY), (lo.maxX, lo.minY), (lo.minX, lo.maxY), (lo.maxX, lo.maxY)] {
            let s = dx * (y - p.y) - dy * (x - p.x)
            if s >= -tolerance { above = true }
            if s <= tolerance { below = true }
        }
        return above && below
    }

    private static func allPairs(_ items: [Int32], _ s: SegmentPairs, _ body: (Int, Int) -> Bool) -> Bool {
        let n = items.count
        for x in 0..<n {
            let i = Int(items[x])
            let (p1, p2) = (s.a[i], s.b[i])
            for y in (x + 1)..<max(x + 1, n) {
                let j = Int(items[y])
                if s.acrossOnly && s.group[i] == s.group[j] { continue }
                let (q1, q2) = (s.a[j], s.b[j])
                if max(p1.x, p2.x) < min(q1.x, q2.x) || max(q1.x, q2.x) < min(p1.x, p2.x) ||
                    max(p1.y, p2.y) < min(q1.y, q2.y) || max(q1.y, q2.y) < min(p1.y, p2.y) { continue }
                if !(i < j ? body(i, j) : body(j, i)) { return false }
            }
        }
        return true
    }
}
