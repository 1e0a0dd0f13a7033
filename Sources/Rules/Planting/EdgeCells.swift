#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// Square cells over a window, each listing every edge that comes within `proximity` of some
/// point of the cell; a cell listing none is wholly inside or outside, and records which.
struct EdgeCells {
    let x0: Double, y0: Double, scale: Double, side: Double
    let nx: Int, ny: Int
    let buckets: Buckets
    let state: [PlanarArea.CellState]

    init(_ edges: PlanarEdges, bands: EdgeBands, window: PlanarBox, proximity: Double, cellSize: Double, maxCells: Int) {
        let box = window.intersection(edges.bounds.grown(proximity + cellSize))
        guard !box.isEmpty, edges.count > 0 else {
            (x0, y0, scale, side, nx, ny, buckets, state) = (0, 0, 0, cellSize, 0, 0, .empty, [])
            return
        }
        var side = cellSize
        if box.width * box.height / (side * side) > Double(maxCells) { side = (box.width * box.height / Double(maxCells)).squareRoot() }
        let nx = max(1, Int((box.width / side).rounded(.up))), ny = max(1, Int((box.height / side).rounded(.up)))
        let x0 = box.minX, y0 = box.minY, scale = 1 / side
        // Each edge goes to the cells of each row that its `proximity`-capsule can reach: the
        // segment's x-range over the row's y-range grown by `proximity`, grown by `proximity`.
        let pad = proximity * (1 + 1e-9) + 1e-9
        buckets = Buckets(buckets: nx * ny, items: edges.count) { e, add in
            let x1 = edges.ax[e], y1 = edges.ay[e], x2 = edges.bx[e], y2 = edges.by[e]
            let lo = min(y1, y2) - pad, hi = max(y1, y2) + pad
            let r0 = max(0, Int(((lo - y0) * scale).rounded(.down))), r1 = min(ny - 1, Int(((hi - y0) * scale).rounded(.down)))
            guard r0 <= r1 else { return }
            for r in r0...r1 {
                let rowLo = y0 + Double(r) * side - pad, rowHi = y0 + Double(r + 1) * side + pad
                var xlo: Double, xhi: Double
                if y1 == y2 {
                    xlo = min(x1, x2)
                    xhi = max(x1, x2)
                } else {
                    let t1 = min(1, max(0, (rowLo - y1) / (y2 - y1))), t2 = min(1, max(0, (rowHi - y1) / (y2 - y1)))
                    let xa = x1 + (x2 - x1) * t1, xb = x1 + (x2 - x1) * t2
                    xlo = min(xa, xb)
                    xhi = max(xa, xb)
                }
                xlo -= pad + 1e-9 * abs(xlo)
                xhi += pad + 1e-9 * abs(xhi)
                let c0 = max(0, Int(((xlo - x0) * scale).rounded(.down))), c1 = min(nx - 1, Int(((xhi - x0) * scale).rounded(.down)))
                guard c0 <= c1 else { continue }
                for c in c0...c1 { add(r * nx + c) }
            }
        }
        // Cells that no edge comes near: inside or outside as their centre is.
        var state = [PlanarArea.CellState](repeating: .mixed, count: nx * ny)
        for k in 0..<(nx * ny) where buckets.isEmpty(k) {
            let center = Planar(x: x0 + (Double(k % nx) + 0.5) * side, y: y0 + (Double(k / nx) + 0.5) * side)
            state[k] = bands.contains(center, edges) ? .inside : .outside
        }
        (self.x0, self.y0, self.scale, self.side, self.nx, self.ny, self.state) = (x0, y0, scale, side, nx, ny, state)
    }

    /// The cell holding `q`, nil outside the window.
    @inline(__always) func cell(_ q: Planar) -> Int? {
        let fx = (q.x - x0) * scale, fy = (q.y - y0) * scale
        guard fx >= 0, fy >= 0, fx < Double(nx), fy < Double(ny) else { return nil }
        return Int(fy) * nx + Int(fx)
    }
}
