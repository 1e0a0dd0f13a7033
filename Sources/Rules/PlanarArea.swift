#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// Polygon rings in a local plane, with two indexes:
///
/// - horizontal bands, each listing the edges whose y-range meets it: the even-odd crossing test
///   of a point visits only its band's edges. The test is `FenceCore`'s own (`PlanarRing.crosses`)
///   on the same vertices, so the answer is the monitor's.
/// - square cells over a window, each listing every edge that comes within `proximity` of some
///   point of the cell; a cell listing none is wholly inside or wholly outside, by at least
///   `proximity`, and remembers which.
///
/// A class: it is shared, never changed, and copying a struct of a dozen arrays per query cost
/// more than the query.
final class PlanarArea {
    enum CellState: UInt8 { case outside = 0, inside = 1, mixed = 2 }

    private let edges: PlanarEdges
    private let bands: EdgeBands
    private let cells: EdgeCells
    var bounds: PlanarBox { edges.bounds }
    /// The cells' side (grown from the one asked for when the window needed too many cells).
    var cellSize: Double { cells.side }
    let proximity: Double

    /// - Parameters:
    ///   - rings: open rings (the closing vertex not repeated), outer rings and holes alike.
    ///   - window: where the cells are needed (clipped to the rings' box grown by `proximity`).
    ///   - cellSize: the cells' side, grown if the window would need more than `maxCells`.
    init(rings: [[Planar]], window: PlanarBox, proximity: Double, cellSize: Double, maxCells: Int = 1 << 22) {
        edges = PlanarEdges(rings: rings)
        bands = EdgeBands(edges)
        cells = EdgeCells(edges, bands: bands, window: window, proximity: proximity, cellSize: cellSize, maxCells: maxCells)
        self.proximity = proximity
    }

    /// Even-odd containment, `FenceCore.crossings` on this band's edges.
    func contains(_ q: Planar) -> Bool { bands.contains(q, edges) }

    /// The state of the cell holding `q`; outside the cells' window, `.outside`.
    func state(_ q: Planar) -> CellState {
        guard let k = cells.cell(q) else { return .outside }
        return cells.state[k]
    }

    /// The distance from `q` to the nearest edge when it is less than `proximity`; otherwise some
    /// value at least `proximity` (infinity when no edge is listed in its cell).
    func nearEdgeDistance(_ q: Planar) -> Double {
        guard let k = cells.cell(q) else { return .infinity }
        var best = Double.infinity
        for i in cells.buckets.range(k) {
            let e = Int(cells.buckets.items[i])
            best = min(best, Self.segmentDistanceSquared(q, edges.b(e), edges.a(e)))
        }
        return best.squareRoot()
    }

    static func segmentDistanceSquared(_ q: Planar, _ a: Planar, _ b: Planar) -> Double {
        FenceCore.segmentDistanceSquared(q, a, b)
    }

    /// Area of the rings by the even-odd rule for valid polygons: outer rings minus holes, each
    /// ring by the shoelace formula (shells and holes are told apart by the caller).
    static func ringArea(_ ring: [Planar]) -> Double { abs(PlanarRing.signedArea(ring)) }

    static func ringLength(_ ring: [Planar]) -> Double {
        var sum = 0.0
        var b = ring[ring.count - 1]
        for a in ring {
            sum += ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
            b = a
        }
        return sum
    }

    /// Even-odd test against one ring (for telling a hole from the outside).
    static func ringContains(_ ring: [Planar], _ q: Planar) -> Bool { PlanarRing.contains(ring, q) }
}

/// The edges of a set of rings, as four coordinate arrays: edge `e` runs from `b(e)` to `a(e)`,
/// `a` being a ring's vertex i and `b` the one before it (`FenceCore`'s order).
struct PlanarEdges {
    let ax: [Double], ay: [Double], bx: [Double], by: [Double]
    let bounds: PlanarBox
    var count: Int { ax.count }

    init(rings: [[Planar]]) {
        var ax: [Double] = [], ay: [Double] = [], bx: [Double] = [], by: [Double] = []
        var bounds = PlanarBox.empty
        for ring in rings where ring.count >= 3 {
            var b = ring[ring.count - 1]
            for a in ring {
                ax.append(a.x)
                ay.append(a.y)
                bx.append(b.x)
                by.append(b.y)
                bounds.add(a)
                b = a
            }
        }
        (self.ax, self.ay, self.bx, self.by, self.bounds) = (ax, ay, bx, by, bounds)
    }

    @inline(__always) func a(_ e: Int) -> Planar { Planar(x: ax[e], y: ay[e]) }
    @inline(__always) func b(_ e: Int) -> Planar { Planar(x: bx[e], y: by[e]) }
}

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
