/// The box, in a polygon's plane, of a run of up to `edges` consecutive edges of one ring (the
/// end points of each, so the vertex before the run too), rounded outwards to `Float`.
///
/// A polygon's exact distance needs its nearest edge, and its crossing count only the edges
/// that span the point's `y`; a scan of every edge (64 on a large fence) cost some 2,000
/// instructions per distance. The boxes rule most runs out with a comparison or two: a run
/// whose box is farther than the nearest edge found cannot hold a nearer one, and a run whose
/// box lies wholly above, below or left of the point crosses no ray from it towards +x. Both
/// skip only edges whose result cannot count, so the answers are those of the full scans, bit
/// for bit. Sixteen bytes per 8 edges, in a `RegionSet`'s store.
public struct EdgeBlock: Sendable {
    @usableFromInline let minX: Float, minY: Float, maxX: Float, maxY: Float

    /// Edges per run. A ring of n vertices has ⌈n / edges⌉ runs, from its first vertex on.
    public static let edges = 8

    /// The boxes of every ring's runs, ring after ring (rings open, ending at `ringEnds`).
    static func blocks(_ v: [Planar], _ ringEnds: [Int32]) -> [EdgeBlock] {
        var out: [EdgeBlock] = []
        var first = 0
        for e in ringEnds {
            let end = Int(e)
            for s in stride(from: first, to: end, by: edges) {
                let previous = v[s == first ? end - 1 : s - 1]
                var minX = previous.x, minY = previous.y, maxX = previous.x, maxY = previous.y
                for p in v[s..<min(s + edges, end)] {
                    minX = min(minX, p.x); maxX = max(maxX, p.x)
                    minY = min(minY, p.y); maxY = max(maxY, p.y)
                }
                out.append(EdgeBlock(minX: down(minX), minY: down(minY), maxX: up(maxX), maxY: up(maxY)))
            }
            first = end
        }
        return out
    }

    init(minX: Float, minY: Float, maxX: Float, maxY: Float) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    @inlinable
    static func down(_ x: Double) -> Float {
        let f = Float(x)
        return Double(f) > x ? f.nextDown : f
    }

    @inlinable
    static func up(_ x: Double) -> Float {
        let f = Float(x)
        return Double(f) < x ? f.nextUp : f
    }

    /// The squared distance from `q` to the box: at most that to any edge of the run.
    @inlinable
    func distanceSquared(_ q: Planar) -> Double {
        let dx = max(Double(minX) - q.x, 0, q.x - Double(maxX)), dy = max(Double(minY) - q.y, 0, q.y - Double(maxY))
        return dx * dx + dy * dy
    }

    /// Whether the run cannot hold an edge nearer than `best` (a squared distance), even as
    /// `PlanarRing.segmentDistanceSquared` rounds: its box is farther by more than a millionth
    /// (and 10⁻¹² m²), far beyond that rounding (some 10⁻¹³ m on coordinates of kilometres).
    @inlinable
    func isFarther(_ q: Planar, than best: Double) -> Bool {
        let d = distanceSquared(q)
        return d * (1 - 1e-6) - 1e-12 > best
    }

    /// Whether an edge of the run may cross the ray from `q` towards +x as `FenceCore.crossings`
    /// tests it: not when the box lies wholly above `q.y`, or wholly at or below it (no edge has
    /// one end above and one not), nor when it lies left of `q.x` by more than the rounding of
    /// the test's intersection (a few ulps of the coordinates).
    @inlinable
    func mayCross(_ q: Planar) -> Bool {
        let x0 = Double(minX), x1 = Double(maxX)
        return Double(minY) <= q.y && q.y < Double(maxY) && !(x1 + 1e-12 * (abs(x0) + abs(x1)) + 1e-9 < q.x)
    }
}
