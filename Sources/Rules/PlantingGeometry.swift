#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

// The planar machinery of the planting planner (`PlantingPlanner`): a seeded random generator, the
// inverse of a local frame, an area's rings in that frame with fast containment and edge-proximity
// queries, a background grid of trees, and a small heap. Internal: nothing here is API.

// MARK: Random numbers

/// xoshiro256** seeded through SplitMix64: small, fast, and the same sequence everywhere for a
/// seed (never the system generator).
struct PlannerRandom {
    private var s0, s1, s2, s3: UInt64

    init(seed: UInt64) {
        var x = seed
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitMix()
        s1 = splitMix()
        s2 = splitMix()
        s3 = splitMix()
    }

    mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }
}

// MARK: The frame and its inverse

/// A `LocalFrame` with its inverse: the point on the ellipsoid (height 0) whose orthographic
/// image is a given planar point. The axes are recomputed here from the origin exactly as
/// `LocalFrame` computes them, so `project(coordinate(q))` is `q` to nanometres.
///
/// Orthographic projection never lengthens a distance (it is a projection of the chord, and the
/// chord is never longer than the geodesic): two points at least `d` apart in the plane are at
/// least `d` apart on the ellipsoid. The planner's spacing rests on this.
struct PlanarFrame {
    let frame: LocalFrame
    private let o: ECEF
    private let ex, ey: Double
    private let nx, ny, nz: Double
    private let ux, uy, uz: Double

    init(_ frame: LocalFrame) {
        self.frame = frame
        o = ECEF(frame.origin)
        let phi = frame.origin.latitude * (.pi / 180), lambda = frame.origin.longitude * (.pi / 180)
        ex = -sin(lambda)
        ey = cos(lambda)
        nx = -sin(phi) * cos(lambda)
        ny = -sin(phi) * sin(lambda)
        nz = cos(phi)
        // Up = east × north.
        ux = ey * nz
        uy = -ex * nz
        uz = ex * ny - ey * nx
    }

    func project(_ c: Coordinate) -> Planar { frame.project(c) }
    func project(_ p: ECEF) -> Planar { frame.project(p) }

    /// The point of the ellipsoid below (or above) `q` on the near side: solves
    /// |o + d + hU|_M = 1 for the height h, with d = x·east + y·north and M the ellipsoid's
    /// metric, in a form without cancellation (o lies on the ellipsoid and d is orthogonal to its
    /// normal there).
    func coordinate(_ q: Planar) -> Coordinate {
        let a2 = ECEF.a * ECEF.a, b2 = a2 * (1 - ECEF.e2)
        let dx = q.x * ex + q.y * nx, dy = q.x * ey + q.y * ny, dz = q.y * nz
        let px = o.x + dx, py = o.y + dy, pz = o.z + dz
        let qa = (ux * ux + uy * uy) / a2 + uz * uz / b2
        let qb = 2 * ((px * ux + py * uy) / a2 + pz * uz / b2)
        let qc = (2 * (o.x * dx + o.y * dy) + dx * dx + dy * dy) / a2 + (2 * o.z * dz + dz * dz) / b2
        let h = -2 * qc / (qb + max(0, qb * qb - 4 * qa * qc).squareRoot())
        let x = px + h * ux, y = py + h * uy, z = pz + h * uz
        let lon = atan2(y, x) * 180 / .pi
        let lat = atan2(z, (x * x + y * y).squareRoot() * (1 - ECEF.e2)) * 180 / .pi
        return Coordinate(latitude: lat, longitude: lon)
    }
}

// MARK: An area in the plane

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
    static func ringArea(_ ring: [Planar]) -> Double {
        var sum = 0.0
        var b = ring[ring.count - 1]
        for a in ring {
            sum += b.x * a.y - a.x * b.y
            b = a
        }
        return abs(sum) / 2
    }

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
    static func ringContains(_ ring: [Planar], _ q: Planar) -> Bool {
        var inside = false
        var b = ring[ring.count - 1]
        for a in ring {
            if (a.y > q.y) != (b.y > q.y), q.x < (b.x - a.x) * (q.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            b = a
        }
        return inside
    }
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
        if (aye > q.y) != (bye > q.y), q.x < (bxe - axe) * (q.y - aye) / (bye - aye) + axe { inside.toggle() }
    }
    return inside
}

// MARK: Trees on a background grid

/// Trees in the plane on a grid of square cells, each cell a linked list (recorded trees may
/// stand closer than the spacing, so a cell can hold several). `isFree` visits the cells within
/// `minDistance` of a point, nearest first, and stops at the first tree too near.
struct TreeGrid {
    let x0: Double, y0: Double, cell: Double, scale: Double
    let nx: Int, ny: Int
    let minDistance: Double
    private let minDistance2: Double
    private var head: [Int32]
    private var next: [Int32] = []
    private(set) var points: [Planar] = []
    /// Cell offsets within reach, nearest first.
    private let offsets: [(Int, Int)]

    /// A grid over `box` for trees at least `minDistance` apart; cells of `minDistance/√2` (one
    /// planned tree a cell) unless that needs more than `maxCells`.
    init(box: PlanarBox, minDistance: Double, maxCells: Int = 1 << 22) {
        var side = minDistance / 2.0.squareRoot()
        let w = max(box.width, side), h = max(box.height, side)
        if w * h / (side * side) > Double(maxCells) { side = (w * h / Double(maxCells)).squareRoot() }
        cell = side
        scale = 1 / side
        x0 = box.minX
        y0 = box.minY
        nx = max(1, Int((w / side).rounded(.up)))
        ny = max(1, Int((h / side).rounded(.up)))
        self.minDistance = minDistance
        minDistance2 = minDistance * minDistance
        head = [Int32](repeating: -1, count: nx * ny)
        let r = Int((minDistance / side).rounded(.up))
        var offsets: [(Int, Int, Double)] = []
        for dy in -r...r {
            for dx in -r...r {
                let gx = Double(max(0, abs(dx) - 1)), gy = Double(max(0, abs(dy) - 1))
                let gap2 = (gx * gx + gy * gy) * side * side
                if gap2 < minDistance2 { offsets.append((dx, dy, gap2)) }
            }
        }
        offsets.sort { ($0.2, $0.1, $0.0) < ($1.2, $1.1, $1.0) }
        self.offsets = offsets.map { ($0.0, $0.1) }
    }

    var count: Int { points.count }

    /// The cell of `q`, clamped to the grid.
    @inline(__always)
    func cellOf(_ q: Planar) -> (Int, Int) {
        let fx = min(Double(nx), max(-1, (q.x - x0) * scale)), fy = min(Double(ny), max(-1, (q.y - y0) * scale))
        return (Int(fx.rounded(.down)), Int(fy.rounded(.down)))
    }

    /// Whether no tree is nearer than `minDistance` to `q`.
    func isFree(_ q: Planar) -> Bool { blocker(q) < 0 }

    /// A tree nearer than `minDistance` to `q` (its index in `points`), or -1 if there is none.
    func blocker(_ q: Planar) -> Int {
        let (cx, cy) = cellOf(q)
        return head.withUnsafeBufferPointer { head in
            next.withUnsafeBufferPointer { next in
                points.withUnsafeBufferPointer { points in
                    for (dx, dy) in offsets {
                        let x = cx + dx, y = cy + dy
                        guard x >= 0, x < nx, y >= 0, y < ny else { continue }
                        var k = Int(head[y * nx + x])
                        while k >= 0 {
                            let p = points[k]
                            let ddx = p.x - q.x, ddy = p.y - q.y
                            if ddx * ddx + ddy * ddy < minDistance2 { return k }
                            k = Int(next[k])
                        }
                    }
                    return -1
                }
            }
        }
    }

    /// Whether tree `k` is nearer than `minDistance` to `q`.
    @inline(__always)
    func blocks(_ k: Int, _ q: Planar) -> Bool {
        let p = points[k]
        let dx = p.x - q.x, dy = p.y - q.y
        return dx * dx + dy * dy < minDistance2
    }

    /// Whether cell (x, y) holds a tree.
    func isOccupied(_ x: Int, _ y: Int) -> Bool { head[y * nx + x] >= 0 }

    /// Adds a tree (without checking); one outside the grid's box is kept in its nearest cell.
    @discardableResult
    mutating func insert(_ q: Planar) -> Int {
        var (cx, cy) = cellOf(q)
        cx = min(nx - 1, max(0, cx))
        cy = min(ny - 1, max(0, cy))
        let k = points.count
        points.append(q)
        next.append(head[cy * nx + cx])
        head[cy * nx + cx] = Int32(k)
        return k
    }
}

// MARK: A binary min-heap

struct MinHeap<Element> {
    private var items: [Element] = []
    private let less: (Element, Element) -> Bool

    init(less: @escaping (Element, Element) -> Bool) { self.less = less }

    var isEmpty: Bool { items.isEmpty }

    mutating func push(_ e: Element) {
        items.append(e)
        var i = items.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            guard less(items[i], items[p]) else { break }
            items.swapAt(i, p)
            i = p
        }
    }

    mutating func pop() -> Element? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < items.count, less(items[l], items[m]) { m = l }
            if r < items.count, less(items[r], items[m]) { m = r }
            if m == i { break }
            items.swapAt(i, m)
            i = m
        }
        return top
    }
}

// MARK: Numbers in messages

enum PlannerText {
    /// Metres with up to `decimals` decimals, trailing zeros dropped ("5", "2.1", "0.25").
    static func metres(_ x: Double, decimals: Int = 2) -> String {
        guard x.isFinite else { return String(x) }
        var p = 1.0
        for _ in 0..<decimals { p *= 10 }
        let scaled = (abs(x) * p).rounded()
        guard scaled < 9e15 else { return String(x) }
        let n = Int64(scaled), unit = Int64(p)
        var s = String(n / unit)
        let frac = n % unit
        if frac != 0 {
            var digits = String(frac)
            while digits.count < decimals { digits = "0" + digits }
            while digits.hasSuffix("0") { digits.removeLast() }
            s += "." + digits
        }
        return (x < 0 && n != 0 ? "-" : "") + s
    }

    /// A measured distance that is below `limit`: one decimal, more if one would round it up to
    /// the limit (4.96 with a 5 m spacing shows as "4.96", not "5").
    static func measured(_ x: Double, below limit: Double) -> String {
        for d in 1...4 {
            var p = 1.0
            for _ in 0..<d { p *= 10 }
            if (x * p).rounded() / p < limit || d == 4 { return metres(x, decimals: d) }
        }
        return metres(x, decimals: 4)
    }

    /// A distance that should not show as 0: one decimal, more for small values.
    static func nonzero(_ x: Double) -> String {
        for d in 1...3 where (abs(x) * pow10(d)).rounded() != 0 { return metres(x, decimals: d) }
        return metres(x, decimals: 3)
    }

    private static func pow10(_ d: Int) -> Double {
        var p = 1.0
        for _ in 0..<d { p *= 10 }
        return p
    }
}
