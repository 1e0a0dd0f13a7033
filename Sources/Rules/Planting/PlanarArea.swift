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
    enum CellState: UInt8 {
        case outside = 0
        case inside = 1
        case mixed = 2
    }

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
            best = min(best, PlanarRing.segmentDistanceSquared(q, edges.b(e), edges.a(e)))
        }
        return best.squareRoot()
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
