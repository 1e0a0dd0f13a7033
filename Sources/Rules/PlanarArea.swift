#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// Axis-aligned planar box.
struct PlanarBox {
    var minX, minY, maxX, maxY: Double

    static let empty = PlanarBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)

    var isEmpty: Bool { !(minX <= maxX && minY <= maxY) }

    mutating func add(_ p: Planar) {
        minX = min(minX, p.x)
        minY = min(minY, p.y)
        maxX = max(maxX, p.x)
        maxY = max(maxY, p.y)
    }

    func grown(_ d: Double) -> PlanarBox { PlanarBox(minX: minX - d, minY: minY - d, maxX: maxX + d, maxY: maxY + d) }

    func union(_ o: PlanarBox) -> PlanarBox {
        PlanarBox(minX: min(minX, o.minX), minY: min(minY, o.minY), maxX: max(maxX, o.maxX), maxY: max(maxY, o.maxY))
    }

    func intersection(_ o: PlanarBox) -> PlanarBox {
        PlanarBox(minX: max(minX, o.minX), minY: max(minY, o.minY), maxX: min(maxX, o.maxX), maxY: min(maxY, o.maxY))
    }

    func intersects(_ o: PlanarBox) -> Bool { minX <= o.maxX && o.minX <= maxX && minY <= o.maxY && o.minY <= maxY }

    func contains(_ p: Planar) -> Bool { p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY }

    var width: Double { maxX - minX }
    var height: Double { maxY - minY }
}

/// Polygon rings in a local plane, with two indexes:
///
/// - horizontal bands, each listing the edges whose y-range meets it: the even-odd crossing test
///   of a point visits only its band's edges. The test is `FenceCore`'s own, expression for
///   expression, on the same vertices, so the answer is the monitor's.
/// - square cells over a window, each listing every edge that comes within `proximity` of some
///   point of the cell; a cell listing none is wholly inside or wholly outside, by at least
///   `proximity`, and remembers which.
///
/// A class: it is shared, never changed, and copying a struct of a dozen arrays per query cost
/// more than the query.
final class PlanarArea {
    enum CellState: UInt8 { case outside = 0, inside = 1, mixed = 2 }

    // Edges: `a` is a ring's vertex i, `b` the one before it (FenceCore's order).
    private let ax: [Double], ay: [Double], bx: [Double], by: [Double]
    let bounds: PlanarBox

    private let bandY0: Double, bandScale: Double, bandCount: Int
    private let bandStart: [Int32], bandEdges: [Int32]

    private let cellX0: Double, cellY0: Double, cellScale: Double
    let cellSize: Double
    private let cellNX: Int, cellNY: Int
    private let cellStart: [Int32], cellEdges: [Int32]
    private let cellState: [CellState]
    let proximity: Double

    /// - Parameters:
    ///   - rings: open rings (the closing vertex not repeated), outer rings and holes alike.
    ///   - window: where the cells are needed (clipped to the rings' box grown by `proximity`).
    ///   - cellSize: the cells' side, grown if the window would need more than `maxCells`.
    init(rings: [[Planar]], window: PlanarBox, proximity: Double, cellSize: Double, maxCells: Int = 1 << 22) {
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
        self.ax = ax
        self.ay = ay
        self.bx = bx
        self.by = by
        self.bounds = bounds
        self.proximity = proximity
        let edgeCount = ax.count

        // Bands over the rings' y-range, about two per edge.
        if edgeCount == 0 {
            bandY0 = 0
            bandScale = 0
            bandCount = 0
            bandStart = [0]
            bandEdges = []
        } else {
            let count = max(1, min(1 << 16, 2 * edgeCount))
            let height = max(bounds.height, 1e-9) / Double(count)
            let y0 = bounds.minY, scale = 1 / height
            func band(_ y: Double) -> Int { min(count - 1, max(0, Int(((y - y0) * scale).rounded(.down)))) }
            var start = [Int32](repeating: 0, count: count + 1)
            for e in 0..<edgeCount where ay[e] != by[e] {
                for k in band(min(ay[e], by[e]))...band(max(ay[e], by[e])) { start[k + 1] += 1 }
            }
            for k in 0..<count { start[k + 1] += start[k] }
            var fill = Array(start[0..<count])
            var edges = [Int32](repeating: 0, count: Int(start[count]))
            for e in 0..<edgeCount where ay[e] != by[e] {
                for k in band(min(ay[e], by[e]))...band(max(ay[e], by[e])) {
                    edges[Int(fill[k])] = Int32(e)
                    fill[k] += 1
                }
            }
            bandY0 = y0
            bandScale = scale
            bandCount = count
            bandStart = start
            bandEdges = edges
        }

        // Cells over the window.
        let box = window.intersection(bounds.grown(proximity + cellSize))
        if box.isEmpty || edgeCount == 0 {
            cellX0 = 0
            cellY0 = 0
            cellScale = 0
            self.cellSize = cellSize
            cellNX = 0
            cellNY = 0
            cellStart = [0]
            cellEdges = []
            cellState = []
            return
        }
        var side = cellSize
        if box.width * box.height / (side * side) > Double(maxCells) { side = (box.width * box.height / Double(maxCells)).squareRoot() }
        let nxCells = max(1, Int((box.width / side).rounded(.up))), nyCells = max(1, Int((box.height / side).rounded(.up)))
        let x0 = box.minX, y0 = box.minY, scale = 1 / side
        // Each edge goes to the cells of each row that its `proximity`-capsule can reach: the
        // segment's x-range over the row's y-range grown by `proximity`, grown by `proximity`.
        let pad = proximity * (1 + 1e-9) + 1e-9
        func forEachCell(of e: Int, _ body: (Int) -> Void) {
            let x1 = ax[e], y1 = ay[e], x2 = bx[e], y2 = by[e]
            let lo = min(y1, y2) - pad, hi = max(y1, y2) + pad
            let r0 = max(0, Int(((lo - y0) * scale).rounded(.down))), r1 = min(nyCells - 1, Int(((hi - y0) * scale).rounded(.down)))
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
                let c0 = max(0, Int(((xlo - x0) * scale).rounded(.down))), c1 = min(nxCells - 1, Int(((xhi - x0) * scale).rounded(.down)))
                guard c0 <= c1 else { continue }
                for c in c0...c1 { body(r * nxCells + c) }
            }
        }
        let cells = nxCells * nyCells
        var start = [Int32](repeating: 0, count: cells + 1)
        for e in 0..<edgeCount { forEachCell(of: e) { start[$0 + 1] += 1 } }
        for k in 0..<cells { start[k + 1] += start[k] }
        var fill = Array(start[0..<cells])
        var edges = [Int32](repeating: 0, count: Int(start[cells]))
        for e in 0..<edgeCount {
            forEachCell(of: e) { k in
                edges[Int(fill[k])] = Int32(e)
                fill[k] += 1
            }
        }
        cellX0 = x0
        cellY0 = y0
        cellScale = scale
        self.cellSize = side
        cellNX = nxCells
        cellNY = nyCells
        cellStart = start
        cellEdges = edges
        var state = [CellState](repeating: .mixed, count: cells)
        // Cells that no edge comes near: inside or outside as their centre is.
        for k in 0..<cells where start[k] == start[k + 1] {
            let center = Planar(x: x0 + (Double(k % nxCells) + 0.5) * side, y: y0 + (Double(k / nxCells) + 0.5) * side)
            state[k] = crossing(center, bandY0: bandY0, bandScale: bandScale, bandCount: bandCount, bandStart: bandStart,
                                bandEdges: bandEdges, ax: ax, ay: ay, bx: bx, by: by) ? .inside : .outside
        }
        cellState = state
    }

    /// Even-odd containment, `FenceCore.crossings` on this band's edges.
    func contains(_ q: Planar) -> Bool {
        crossing(q, bandY0: bandY0, bandScale: bandScale, bandCount: bandCount, bandStart: bandStart, bandEdges: bandEdges,
                 ax: ax, ay: ay, bx: bx, by: by)
    }

    /// The state of the cell holding `q`; outside the cells' window, `.outside`.
    func state(_ q: Planar) -> CellState {
        guard let k = cell(q) else { return .outside }
        return cellState[k]
    }

    /// The distance from `q` to the nearest edge when it is less than `proximity`; otherwise some
    /// value at least `proximity` (infinity when no edge is listed in its cell).
    func nearEdgeDistance(_ q: Planar) -> Double {
        guard let k = cell(q) else { return .infinity }
        var best = Double.infinity
        for i in Int(cellStart[k])..<Int(cellStart[k + 1]) {
            let e = Int(cellEdges[i])
            best = min(best, Self.segmentDistanceSquared(q, Planar(x: bx[e], y: by[e]), Planar(x: ax[e], y: ay[e])))
        }
        return best.squareRoot()
    }

    private func cell(_ q: Planar) -> Int? {
        let fx = (q.x - cellX0) * cellScale, fy = (q.y - cellY0) * cellScale
        guard fx >= 0, fy >= 0, fx < Double(cellNX), fy < Double(cellNY) else { return nil }
        return Int(fy) * cellNX + Int(fx)
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

/// The crossing test over a band's edges (a free function so that `init` can use it before
/// every stored property is set).
private func crossing(_ q: Planar, bandY0: Double, bandScale: Double, bandCount: Int, bandStart: [Int32], bandEdges: [Int32],
                      ax: [Double], ay: [Double], bx: [Double], by: [Double]) -> Bool {
    guard bandCount > 0 else { return false }
    let f = (q.y - bandY0) * bandScale
    guard f >= 0, f < Double(bandCount) + 1 else { return false }
    let k = min(bandCount - 1, Int(f))
    var inside = false
    for i in Int(bandStart[k])..<Int(bandStart[k + 1]) {
        let e = Int(bandEdges[i])
        let axe = ax[e], aye = ay[e], bxe = bx[e], bye = by[e]
        if PlanarRing.crosses(q, Planar(x: axe, y: aye), Planar(x: bxe, y: bye)) { inside.toggle() }
    }
    return inside
}
