#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The hot part of a fence, without references: the local frame, the radius (circles) and
/// where its rings lie in a vertex store. Queries through it touch no reference counts, and a
/// `RegionSet` keeps all of them in one array in spatial order.
public struct FenceCore: Sendable {
    /// The fence's local frame: at a circle's centre, or at the mean (in ECEF) of a polygon's vertices.
    public let frame: LocalFrame
    /// Circles: the radius in metres; polygons: 0.
    @usableFromInline let radius: Double
    /// Polygons: a 32×32 raster over the fence's planar bounding box, 2 bits a cell (outside,
    /// inside, or crossed by an edge), in `grid[gridStart..<gridStart + 8]` of the store. Most
    /// points are answered by one look-up; only cells an edge crosses run the crossing count.
    @usableFromInline let gridMinX: Double
    @usableFromInline let gridMinY: Double
    @usableFromInline let gridScaleX: Double
    @usableFromInline let gridScaleY: Double
    @usableFromInline let gridStart: Int32
    /// Fills the four bytes between `gridStart` and `reach`, so that a prepared store written
    /// from the cores as they lie in memory holds no uninitialized bytes.
    let zero: Int32 = 0
    /// Polygons: the largest straight-line distance in space from the frame's origin to a vertex
    /// (a little more). Farther points are outside, and beyond `reach + farMargin` the local frame
    /// is no longer trusted for distances (see `isFar`).
    @usableFromInline let reach: Double
    /// Polygons: the rings' ends, as indices into the vertex store, are `ringEnds[ringStart..<ringEnd]`;
    /// the first ring starts at `vertexStart`.
    @usableFromInline let vertexStart: Int32
    @usableFromInline let ringStart: Int32
    @usableFromInline let ringEnd: Int32
    /// Polygons in a `RegionSet`: the first of its rings' `EdgeBlock`s in the store's blocks
    /// (ring after ring, ⌈n / EdgeBlock.edges⌉ for a ring of n vertices).
    @usableFromInline let blockStart: Int32

    @usableFromInline static let earthRadius = 6_371_008.8

    /// How much longer than a chord of this length (under 1,000 km) the geodesic can be: less
    /// than twice chord³/24R², plus a micrometre for rounding.
    @inlinable
    static func geodesicExcess(_ chord: Double) -> Double {
        2 * chord * chord * chord / (24 * earthRadius * earthRadius) + 1e-6
    }
    /// Cells along each side of a polygon's raster.
    public static let gridSide = 32
    /// UInt64 words per fence raster: 32 × 32 cells × 2 bits.
    public static let gridWords = gridSide * gridSide * 2 / 64

    /// Beyond this far outside a polygon's reach, distances are computed from geodesics on the
    /// polygon's coordinates instead of in its local frame.
    public static let farMargin = 25_000.0

    /// Cell states in the raster. An edge cell is zero: a raster not marked is all edges, and its
    /// words are pages never written (`RasterWords`).
    @usableFromInline static let cellOutside: UInt64 = 2, cellInside: UInt64 = 1, cellEdge: UInt64 = 0

    /// Whether `c` (with ECEF `p`) is inside. Circles decide by the chord when it is clear by more
    /// than the chord/geodesic difference, else by the geodesic.
    @inlinable
    public func contains(_ c: Coordinate, _ p: ECEF, vertices: UnsafeBufferPointer<Planar>, ringEnds: UnsafeBufferPointer<Int32>,
                         grid: UnsafeBufferPointer<UInt64>) -> Bool {
        if radius > 0 {
            let chord = frame.chord(p)
            if chord > radius { return false }  // the geodesic is never shorter than the chord
            // Within 1,000 km the geodesic exceeds the chord by less than twice chord³/24R².
            if chord < 1_000_000 {
                let slack = Self.geodesicExcess(chord)
                if chord + slack < radius { return true }
            }
            return Geodesic.wgs84.distance(frame.origin, c) <= radius
        }
        let dx = p.x - frame.o.x, dy = p.y - frame.o.y, dz = p.z - frame.o.z
        if dx * dx + dy * dy + dz * dz > reach * reach { return false }
        let q = frame.project(p)
        let gx = (q.x - gridMinX) * gridScaleX, gy = (q.y - gridMinY) * gridScaleY
        guard gx >= 0, gy >= 0, gx < Double(Self.gridSide), gy < Double(Self.gridSide) else { return false }
        let cell = Int(gy) * Self.gridSide + Int(gx)
        let state = (grid[Int(gridStart) + cell >> 5] >> UInt64((cell & 31) * 2)) & 3
        if state != Self.cellEdge { return state == Self.cellInside }
        return crossings(q, vertices, ringEnds)
    }

    /// `contains` for a core in a store, reading only the fields it needs: called on the
    /// stored value, the compiler copied the whole core (some 150 bytes) per call to protect it
    /// from writes through the other pointers.
    @inlinable
    static func contains(at core: UnsafePointer<FenceCore>, _ c: Coordinate, _ p: ECEF, vertices: UnsafeBufferPointer<Planar>,
                         ringEnds: UnsafeBufferPointer<Int32>, grid: UnsafeBufferPointer<UInt64>) -> Bool {
        let radius = core.pointee.radius
        let o = core.pointee.frame.o
        let dx = p.x - o.x, dy = p.y - o.y, dz = p.z - o.z
        let chord2 = dx * dx + dy * dy + dz * dz
        if radius > 0 {
            let chord = chord2.squareRoot()
            if chord > radius { return false }  // the geodesic is never shorter than the chord
            // Within 1,000 km the geodesic exceeds the chord by less than twice chord³/24R².
            if chord < 1_000_000 {
                let slack = Self.geodesicExcess(chord)
                if chord + slack < radius { return true }
            }
            return Geodesic.wgs84.distance(core.pointee.frame.origin, c) <= radius
        }
        let reach = core.pointee.reach
        if chord2 > reach * reach { return false }
        let ex = core.pointee.frame.ex, ey = core.pointee.frame.ey
        let nx = core.pointee.frame.nx, ny = core.pointee.frame.ny, nz = core.pointee.frame.nz
        let q = Planar(x: ex * dx + ey * dy, y: nx * dx + ny * dy + nz * dz)
        let gx = (q.x - core.pointee.gridMinX) * core.pointee.gridScaleX, gy = (q.y - core.pointee.gridMinY) * core.pointee.gridScaleY
        guard gx >= 0, gy >= 0, gx < Double(Self.gridSide), gy < Double(Self.gridSide) else { return false }
        let cell = Int(gy) * Self.gridSide + Int(gx)
        let state = (grid[Int(core.pointee.gridStart) + cell >> 5] >> UInt64((cell & 31) * 2)) & 3
        if state != Self.cellEdge { return state == Self.cellInside }
        return crossings(q, vertices, ringEnds, vertexStart: Int(core.pointee.vertexStart),
                         rings: Int(core.pointee.ringStart)..<Int(core.pointee.ringEnd))
    }

    // Pointer forms of the queries, for cores in a store: they read only the fields they need
    // (called on the stored value, the compiler copies the whole core, some 150 bytes, per call).

    @inlinable
    static func chord(at core: UnsafePointer<FenceCore>, _ p: ECEF) -> Double {
        let o = core.pointee.frame.o
        let dx = p.x - o.x, dy = p.y - o.y, dz = p.z - o.z
        return (dx * dx + dy * dy + dz * dz).squareRoot()
    }

    @inlinable
    static func planar(at core: UnsafePointer<FenceCore>, _ p: ECEF) -> Planar {
        let o = core.pointee.frame.o
        let dx = p.x - o.x, dy = p.y - o.y, dz = p.z - o.z
        let ex = core.pointee.frame.ex, ey = core.pointee.frame.ey
        let nx = core.pointee.frame.nx, ny = core.pointee.frame.ny, nz = core.pointee.frame.nz
        return Planar(x: ex * dx + ey * dy, y: nx * dx + ny * dy + nz * dz)
    }

    /// A polygon's signed distance at `q` in its plane, through the core's `EdgeBlock`s: the
    /// value of the full scans (`boundaryDistance`, `crossings`), bit for bit, from the edges of
    /// the runs whose boxes do not rule them out. The nearest box's run is scanned
    /// first, so that its nearest edge rules out the others.
    @inlinable
    static func planarSignedDistance(at core: UnsafePointer<FenceCore>, _ q: Planar, _ v: UnsafeBufferPointer<Planar>,
                                     _ ringEnds: UnsafeBufferPointer<Int32>, _ blocks: UnsafeBufferPointer<EdgeBlock>) -> Double {
        let rings = Int(core.pointee.ringStart)..<Int(core.pointee.ringEnd)
        let vertexStart = Int(core.pointee.vertexStart), blockStart = Int(core.pointee.blockStart)
        let n = EdgeBlock.edges
        // The run whose box is nearest: its edges give a first `best`.
        var nearestBox = Double.infinity, nearest = (block: -1, edges: 0..<0, previous: 0)
        var k = blockStart, start = vertexStart
        for r in rings {
            let end = Int(ringEnds[r])
            for s in stride(from: start, to: end, by: n) {
                let d = blocks[k].distanceSquared(q)
                if d < nearestBox {
                    nearestBox = d
                    nearest = (k, s..<min(s + n, end), s == start ? end - 1 : s - 1)
                }
                k += 1
            }
            start = end
        }
        var best = Double.infinity
        if nearest.block >= 0 {
            var b = v[nearest.previous]
            for i in nearest.edges {
                let a = v[i]
                best = min(best, PlanarRing.segmentDistanceSquared(q, b, a))
                b = a
            }
        }
        // Every run: its crossings where its box spans the ray, its edges where its box is near.
        var inside = false
        k = blockStart
        start = vertexStart
        for r in rings {
            let end = Int(ringEnds[r])
            for s in stride(from: start, to: end, by: n) {
                let block = blocks[k]
                let edges = s..<min(s + n, end)
                if block.mayCross(q) {
                    var b = v[s == start ? end - 1 : s - 1]
                    for i in edges {
                        let a = v[i]
                        if PlanarRing.crosses(q, a, b) {
                            inside.toggle()
                        }
                        b = a
                    }
                }
                if k != nearest.block, !block.isFarther(q, than: best) {
                    var b = v[s == start ? end - 1 : s - 1]
                    for i in edges {
                        let a = v[i]
                        best = min(best, PlanarRing.segmentDistanceSquared(q, b, a))
                        b = a
                    }
                }
                k += 1
            }
            start = end
        }
        let d = best.squareRoot()
        return inside ? d : -d
    }

    /// `approximateSignedDistance` for a core in a store.
    @inlinable
    static func approximateSignedDistance(at core: UnsafePointer<FenceCore>, _ p: ECEF, _ v: UnsafeBufferPointer<Planar>,
                                          _ ringEnds: UnsafeBufferPointer<Int32>, _ blocks: UnsafeBufferPointer<EdgeBlock>) -> Double {
        let radius = core.pointee.radius
        if radius > 0 { return radius - chord(at: core, p) }
        return planarSignedDistance(at: core, planar(at: core, p), v, ringEnds, blocks)
    }

    /// Whether the point is inside, with a bound of its signed distance (at least `bound` when
    /// inside, at most when outside), from what is cheap: a circle's chord, a polygon's reach,
    /// its raster's box, or the sides of the block of raster cells around the point's that no
    /// edge crosses (`clearRings`), all wholly inside or all outside. Nil where only
    /// the distance itself decides (a cell an edge crosses, a circle's thin boundary band).
    @inlinable
    static func classify(at core: UnsafePointer<FenceCore>, _ p: ECEF, grid: UnsafeBufferPointer<UInt64>) -> (inside: Bool, bound: Double)? {
        let radius = core.pointee.radius
        let o = core.pointee.frame.o
        let dx = p.x - o.x, dy = p.y - o.y, dz = p.z - o.z
        let chord = (dx * dx + dy * dy + dz * dz).squareRoot()
        if radius > 0 {
            // The geodesic is at least the chord, and within 1,000 km at most this much longer.
            if chord > radius { return (false, radius - chord) }
            guard chord < 1_000_000 else { return nil }
            let slack = Self.geodesicExcess(chord)
            return chord + slack < radius ? (true, radius - chord - slack) : nil
        }
        let reach = core.pointee.reach
        let byChord = reachBound(reach, chord)
        if chord > reach { return (false, byChord) }
        let ex = core.pointee.frame.ex, ey = core.pointee.frame.ey
        let nx = core.pointee.frame.nx, ny = core.pointee.frame.ny, nz = core.pointee.frame.nz
        let qx = ex * dx + ey * dy, qy = nx * dx + ny * dy + nz * dz
        let scaleX = core.pointee.gridScaleX, scaleY = core.pointee.gridScaleY
        let gx = (qx - core.pointee.gridMinX) * scaleX, gy = (qy - core.pointee.gridMinY) * scaleY
        let side = Double(Self.gridSide)
        let ox = max(0, -gx, gx - side) / scaleX, oy = max(0, -gy, gy - side) / scaleY
        if ox > 0 || oy > 0 { return (false, min(byChord, -(ox * ox + oy * oy).squareRoot() + 1e-3)) }
        let cx = min(Int(gx), Self.gridSide - 1), cy = min(Int(gy), Self.gridSide - 1)
        let cell = cy * Self.gridSide + cx
        let state = (grid[Int(core.pointee.gridStart) + cell >> 5] >> UInt64((cell & 31) * 2)) & 3
        guard state != Self.cellEdge else { return nil }
        let clearance = clearance(grid, start: Int(core.pointee.gridStart), gx, gy, cx, cy, scaleX: scaleX, scaleY: scaleY)
        return state == Self.cellInside ? (true, clearance - 1e-3) : (false, min(byChord, -clearance + 1e-3))
    }

    /// How far a point at grid position (`gx`, `gy`), in cell (`cx`, `cy`) that no edge crosses,
    /// is from the boundary at least, in metres: the distance to the nearest side of the block
    /// of that cell and the rings of cells around it that no edge crosses either (`clearRings`).
    @inlinable
    static func clearance(_ grid: UnsafeBufferPointer<UInt64>, start: Int, _ gx: Double, _ gy: Double, _ cx: Int, _ cy: Int,
                          scaleX: Double, scaleY: Double) -> Double {
        let r = Double(clearRings(grid, start: start, cx, cy))
        let fx = gx - Double(cx), fy = gy - Double(cy)
        return min((min(fx, 1 - fx) + r) / scaleX, (min(fy, 1 - fy) + r) / scaleY)
    }

    /// How many rings of cells around cell (`cx`, `cy`), itself no edge cell, hold no edge cell
    /// either, up to `maxClearRings`. Cells beyond the grid hold none: it covers every vertex.
    /// A raster's row is one word (32 cells of 2 bits), so a ring costs two words and a mask.
    @inlinable
    static func clearRings(_ grid: UnsafeBufferPointer<UInt64>, start: Int, _ cx: Int, _ cy: Int) -> Int {
        let lanes: UInt64 = 0x5555_5555_5555_5555
        @inline(__always) func edges(_ row: Int) -> UInt64 {
            let w = grid[start + row]
            return ~(w | w >> 1) & lanes  // a cell's low bit where both its bits are 0 (`cellEdge`)
        }
        var found = edges(cy)  // the edge cells of the rows taken so far
        var r = 0
        while r < maxClearRings {
            let next = r + 1
            if cy - next >= 0 { found |= edges(cy - next) }
            if cy + next < gridSide { found |= edges(cy + next) }
            let x0 = max(cx - next, 0), x1 = min(cx + next, gridSide - 1)
            let below: UInt64 = x1 == gridSide - 1 ? ~0 : (1 << UInt64(2 * x1 + 2)) - 1
            if found & below & ~((1 << UInt64(2 * x0)) - 1) != 0 { break }
            r = next
        }
        return r
    }

    /// How far `clearRings` looks.
    @usableFromInline static let maxClearRings = 6

    /// Signed distance at a point given only in space (e.g. on a straight path between two fixes):
    /// circles by the chord to the centre, polygons in the local plane. Within a few kilometres of
    /// the fence it agrees with `signedDistance` to millimetres; for path searches, not for reports.
    @inlinable
    public func approximateSignedDistance(_ p: ECEF, vertices: UnsafeBufferPointer<Planar>, ringEnds: UnsafeBufferPointer<Int32>) -> Double {
        if radius > 0 { return radius - frame.chord(p) }
        let q = frame.project(p)
        let d = boundaryDistance(q, vertices, ringEnds)
        return crossings(q, vertices, ringEnds) ? d : -d
    }

    /// Whether `p` is so far from this polygon that its local frame no longer measures distances
    /// well (the frame is orthographic: far points fold over); `Fence.farDistance` then answers.
    @inlinable
    public func isFar(_ p: ECEF) -> Bool { radius == 0 && frame.chord(p) > reach + Self.farMargin }

    /// A lower bound of the distance from `p` to this fence's boundary, from the chord alone.
    @inlinable
    public func distanceLowerBound(_ p: ECEF) -> Double {
        let chord = frame.chord(p)
        return radius > 0 ? max(0, chord - radius) : max(0, chord - reach)
    }

    /// The first and cheapest part of `signedDistanceUpperBound`: from the chord alone.
    @inlinable
    public func chordUpperBound(_ p: ECEF) -> Double {
        let chord = frame.chord(p)
        return radius > 0 ? radius - chord + 1e-6 : Self.reachBound(reach, chord)
    }

    /// An upper bound of a polygon's planar signed distance at a point `chord` from the origin:
    /// `reach − chord`, plus what the orthographic plane takes off distances from its origin
    /// (about chord³/8R²: 2.5 cm at 20 km), plus a millimetre.
    @inlinable
    static func reachBound(_ reach: Double, _ chord: Double) -> Double {
        reach * (1 + 1e-6) - chord + chord * chord * chord / (8 * 6_300_000 * 6_300_000) + 1e-3
    }

    /// An upper bound of the signed distance at `p` (positive inside) of the core at `core` in a
    /// store, without any distance to an edge. The fence lies within `reach` (a circle: its
    /// radius) of the origin, so a point `chord` from the origin is at most `reach − chord`
    /// inside. A polygon's raster says more: a point off the raster is outside by at least its
    /// distance to it, and a point in a cell wholly outside by at least its distance to the sides
    /// of the block of cells around it that no edge crosses (`clearRings`). A millimetre of slack
    /// covers the local plane's scale. It reads only the fields it needs: a call on the stored
    /// value copied the whole core.
    @inlinable
    static func signedDistanceUpperBound(at core: UnsafePointer<FenceCore>, _ p: ECEF, grid: UnsafeBufferPointer<UInt64>) -> Double {
        let radius = core.pointee.radius, reach = core.pointee.reach
        let chord = chord(at: core, p)
        let byChord = radius > 0 ? radius - chord + 1e-6 : reachBound(reach, chord)
        if radius > 0 || chord > reach + farMargin { return byChord }
        let q = planar(at: core, p)
        let side = Double(gridSide)
        let scaleX = core.pointee.gridScaleX, scaleY = core.pointee.gridScaleY
        let gx = (q.x - core.pointee.gridMinX) * scaleX, gy = (q.y - core.pointee.gridMinY) * scaleY
        let ox = max(0, -gx, gx - side) / scaleX, oy = max(0, -gy, gy - side) / scaleY
        if ox > 0 || oy > 0 { return min(byChord, -(ox * ox + oy * oy).squareRoot() + 1e-3) }
        let cx = min(Int(gx), gridSide - 1), cy = min(Int(gy), gridSide - 1)
        let cell = cy * gridSide + cx
        guard (grid[Int(core.pointee.gridStart) + cell >> 5] >> UInt64((cell & 31) * 2)) & 3 == cellOutside else { return byChord }
        let clearance = clearance(grid, start: Int(core.pointee.gridStart), gx, gy, cx, cy, scaleX: scaleX, scaleY: scaleY)
        return min(byChord, -clearance + 1e-3)
    }

    /// Signed distance from `c` (with ECEF `p`) to the boundary, metres, positive inside, for a
    /// point that is not `isFar`.
    @inlinable
    public func signedDistance(_ c: Coordinate, _ p: ECEF, vertices: UnsafeBufferPointer<Planar>, ringEnds: UnsafeBufferPointer<Int32>) -> Double {
        if radius > 0 { return radius - Geodesic.wgs84.distance(frame.origin, c) }
        let q = frame.project(p)
        let d = boundaryDistance(q, vertices, ringEnds)
        return crossings(q, vertices, ringEnds) ? d : -d
    }

    /// Even-odd crossing test over every ring of every part (valid parts do not overlap, holes
    /// lie inside their shells, so odd means inside).
    @inlinable
    func crossings(_ q: Planar, _ v: UnsafeBufferPointer<Planar>, _ ringEnds: UnsafeBufferPointer<Int32>) -> Bool {
        Self.crossings(q, v, ringEnds, vertexStart: Int(vertexStart), rings: Int(ringStart)..<Int(ringEnd))
    }

    /// The crossing test over rings `rings` of `ringEnds`, the first starting at `vertexStart`.
    @inlinable
    static func crossings(_ q: Planar, _ v: UnsafeBufferPointer<Planar>, _ ringEnds: UnsafeBufferPointer<Int32>,
                          vertexStart: Int, rings: Range<Int>) -> Bool {
        var inside = false
        var start = vertexStart
        for r in rings {
            let end = Int(ringEnds[r])
            var b = v[end - 1]
            for i in start..<end {
                let a = v[i]
                if PlanarRing.crosses(q, a, b) {
                    inside.toggle()
                }
                b = a
            }
            start = end
        }
        return inside
    }

    /// Distance from `q` to the nearest edge of any ring.
    @inlinable
    func boundaryDistance(_ q: Planar, _ v: UnsafeBufferPointer<Planar>, _ ringEnds: UnsafeBufferPointer<Int32>) -> Double {
        Self.boundaryDistance(q, v, ringEnds, vertexStart: Int(vertexStart), rings: Int(ringStart)..<Int(ringEnd))
    }

    /// The boundary distance over rings `rings` of `ringEnds`, the first starting at `vertexStart`.
    @inlinable
    static func boundaryDistance(_ q: Planar, _ v: UnsafeBufferPointer<Planar>, _ ringEnds: UnsafeBufferPointer<Int32>,
                                 vertexStart: Int, rings: Range<Int>) -> Double {
        var best = Double.infinity
        var start = vertexStart
        for r in rings {
            let end = Int(ringEnds[r])
            var b = v[end - 1]
            for i in start..<end {
                let a = v[i]
                best = min(best, PlanarRing.segmentDistanceSquared(q, b, a))
                b = a
            }
            start = end
        }
        return best.squareRoot()
    }
}
