#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

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
