#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

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
