/// Builds a fence's raster: a 32×32 grid over the planar bounding box of its rings, each cell
/// marked outside, inside, or crossed by an edge. A cell no edge touches is wholly inside or
/// wholly outside, so its centre decides for all of it.
///
/// Loading 100,000 fences builds 70,000 rasters, so the build works a row at a time in words it
/// owns rather than cell by cell in arrays: each edge visits only the rows its y-extent reaches
/// (not all 32), and each crossing flips the row's cells past it in one operation. Every test is
/// the one a cell-by-cell, row-by-row build makes, with the same arithmetic, so the words are the
/// same bit for bit (`RasterTests`).
struct Raster {
    var minX = 0.0, minY = 0.0, scaleX = 0.0, scaleY = 0.0
    var words = [UInt64](repeating: 0, count: FenceCore.gridWords)

    /// Every cell marked crossed: queries look at the edges everywhere on the grid (the same
    /// answers, found slower), and the grid's box still bounds the fence.
    static let allEdgeWord: UInt64 = 0

    /// `cells`: false leaves every cell marked crossed (`allEdgeWord`) and only places the grid.
    init(vertices v: [Planar], ringEnds: [Int32], cells: Bool = true) {
        let n = FenceCore.gridSide
        var maxX = -Double.infinity, maxY = -Double.infinity
        minX = .infinity
        minY = .infinity
        for p in v {
            minX = min(minX, p.x); maxX = max(maxX, p.x)
            minY = min(minY, p.y); maxY = max(maxY, p.y)
        }
        // A hair larger than the box, so that every vertex falls strictly inside the grid.
        let padX = (maxX - minX) * 1e-9 + 1e-9, padY = (maxY - minY) * 1e-9 + 1e-9
        minX -= padX
        minY -= padY
        let width = maxX + padX - minX, height = maxY + padY - minY
        scaleX = Double(n) / width
        scaleY = Double(n) / height
        guard cells else {
            words = [UInt64](repeating: Self.allEdgeWord, count: FenceCore.gridWords)
            return
        }
        let grid = Grid(n: n, minX: minX, minY: minY, scaleX: scaleX, scaleY: scaleY,
                        cellW: width / Double(n), cellH: height / Double(n))
        words.withUnsafeMutableBufferPointer { out in
            v.withUnsafeBufferPointer { vp in
                ringEnds.withUnsafeBufferPointer { ends in
                    grid.fill(out, vertices: vp, ringEnds: ends)
                }
            }
        }
    }

    /// The grid's geometry, and the build itself.
    struct Grid {
        let n: Int
        let minX, minY, scaleX, scaleY, cellW, cellH: Double

        /// The y of row `cy`'s centres, as every test of that row uses it.
        func centreY(_ cy: Int) -> Double { minY + (Double(cy) + 0.5) * cellH }

        /// The rows whose centre line edge ab may cross: a superset, widened by one row each way
        /// (the exact test follows).
        func rows(_ a: Planar, _ b: Planar) -> ClosedRange<Int>? {
            let lo = Int(((min(a.y, b.y) - minY) / cellH - 0.5).rounded(.down)) - 1
            let hi = Int(((max(a.y, b.y) - minY) / cellH - 0.5).rounded(.up)) + 1
            let first = max(0, lo), last = min(n - 1, hi)
            return first <= last ? first...last : nil
        }

        /// The x of column `cx`'s centres, as every test of that column uses it.
        func centreX(_ cx: Int) -> Double { minX + (Double(cx) + 0.5) * cellW }

        func fill(_ words: UnsafeMutableBufferPointer<UInt64>, vertices v: UnsafeBufferPointer<Planar>, ringEnds: UnsafeBufferPointer<Int32>) {
            let n = self.n
            // A row of cells is one word of the grid (32 cells of 2 bits), and one UInt32 here.
            precondition(n == 32 && FenceCore.gridWords == n, "a raster row is one word")
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 2 * n) { rows in
                rows.initialize(repeating: 0)
                let edge = UnsafeMutableBufferPointer(rebasing: rows[0..<n]), inside = UnsafeMutableBufferPointer(rebasing: rows[n...])
                markEdges(edge, v, ringEnds)
                // Cells no edge touches take the state of their centre, inside when an odd number
                // of the row's crossings with the edges lie at or left of it. Each crossing flips
                // every cell from the first whose centre it reaches: that cell is estimated, then
                // settled by the very test (crossing <= centre) a cell-by-cell walk makes.
                Raster.forEachEdge(v, ringEnds) { b, a in
                    guard let span = self.rows(a, b) else { return }
                    for cy in span {
                        let y = centreY(cy)
                        guard (a.y > y) != (b.y > y) else { continue }
                        let x = (b.x - a.x) * (y - a.y) / (b.y - a.y) + a.x
                        let estimate = ((x - minX) / cellW - 0.5).rounded(.up)
                        var c = estimate.isNaN ? 0 : Int(max(0, min(Double(n), estimate)))
                        while c > 0, x <= centreX(c - 1) { c -= 1 }
                        while c < n, !(x <= centreX(c)) { c += 1 }
                        if c < n { inside[cy] ^= UInt32.max << UInt32(c) }
                    }
                }
                for cy in 0..<n {
                    let crossed = edge[cy]
                    // An edge cell is zero (`FenceCore.cellEdge`).
                    words[cy] = Bits.spread(inside[cy] & ~crossed) * FenceCore.cellInside | Bits.spread(~inside[cy] & ~crossed) * FenceCore.cellOutside
                }
            }
        }

        /// Marks the cells an edge (slightly enlarged) meets, a bit per cell in its row's word.
        /// Row by row, only the cells the edge's stretch in that row can reach are tested:
        /// testing every cell of the edge's box cost as much as the rest of the load for fences of
        /// few vertices, whose edges cross half the grid. Any cell the test marks lies within that
        /// span (see below), so the cells are the same.
        func markEdges(_ edge: UnsafeMutableBufferPointer<UInt32>, _ v: UnsafeBufferPointer<Planar>, _ ringEnds: UnsafeBufferPointer<Int32>) {
            Raster.forEachEdge(v, ringEnds) { b, a in
                let loX = min(a.x, b.x), hiX = max(a.x, b.x), loY = min(a.y, b.y), hiY = max(a.y, b.y)
                let x0 = max(0, Int((loX - minX) * scaleX) - 1), x1 = min(n - 1, Int((hiX - minX) * scaleX) + 1)
                let y0 = max(0, Int((loY - minY) * scaleY) - 1), y1 = min(n - 1, Int((hiY - minY) * scaleY) + 1)
                let dx = b.x - a.x, dy = b.y - a.y
                for cy in y0...y1 {
                    let ly = minY + Double(cy) * cellH
                    // The edge's x-extent within the row's (enlarged) band.
                    // A row whose band the edge's y-extent misses has no cell the test marks (its
                    // first, box, test compares the same values).
                    let yl = max(loY, ly - cellH * 1e-6), yh = min(hiY, ly + cellH * (1 + 1e-6))
                    guard yl <= yh else { continue }
                    var from = x0, to = x1
                    if dy != 0 {
                        let xa = a.x + (yl - a.y) * (dx / dy), xb = a.x + (yh - a.y) * (dx / dy)
                        let l = max(loX, min(xa, xb)), h = min(hiX, max(xa, xb))
                        // A cell the test marks reaches the span [l, h] (its box is a
                        // millionth of a cell larger than the cell): columns from l − 1 cell to
                        // h, give or take a ten-thousandth of a cell for the rounding of l and
                        // h, which is some 1e-14 of one.
                        from = max(x0, Int(((l - minX) * scaleX - 1 - 1e-4).rounded(.up)))
                        to = min(x1, Int(((h - minX) * scaleX + 1e-4).rounded(.down)))
                    }
                    guard from <= to else { continue }
                    for cx in from...to where edge[cy] & 1 << UInt32(cx) == 0 {
                        let lx = minX + Double(cx) * cellW
                        if Raster.segment(b, a, meetsBoxX: lx - cellW * 1e-6, lx + cellW * (1 + 1e-6), y: ly - cellH * 1e-6, ly + cellH * (1 + 1e-6)) {
                            edge[cy] |= 1 << UInt32(cx)
                        }
                    }
                }
            }
        }
    }

    /// Calls `body(previous, vertex)` for every edge of every ring (rings open, ending at `ringEnds`).
    @inline(__always)
    static func forEachEdge(_ v: UnsafeBufferPointer<Planar>, _ ringEnds: UnsafeBufferPointer<Int32>, _ body: (Planar, Planar) -> Void) {
        var start = 0
        for e in ringEnds {
            let end = Int(e)
            var b = v[end - 1]
            for i in start..<end {
                body(b, v[i])
                b = v[i]
            }
            start = end
        }
    }

    /// Whether segment ab meets the box [x0, x1] × [y0, y1] (separating axes).
    @inline(__always)
    static func segment(_ a: Planar, _ b: Planar, meetsBoxX x0: Double, _ x1: Double, y y0: Double, _ y1: Double) -> Bool {
        if max(a.x, b.x) < x0 || min(a.x, b.x) > x1 || max(a.y, b.y) < y0 || min(a.y, b.y) > y1 { return false }
        let dx = b.x - a.x, dy = b.y - a.y
        func side(_ x: Double, _ y: Double) -> Double { dx * (y - a.y) - dy * (x - a.x) }
        let s1 = side(x0, y0), s2 = side(x1, y0), s3 = side(x0, y1), s4 = side(x1, y1)
        return !((s1 > 0 && s2 > 0 && s3 > 0 && s4 > 0) || (s1 < 0 && s2 < 0 && s3 < 0 && s4 < 0))
    }
}
