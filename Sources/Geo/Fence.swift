#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The shape of a region as the user gave it, in WGS84 degrees.
public enum Shape: Sendable, Equatable {
    /// Everything within `radius` metres (geodesic) of `center`.
    case circle(center: Coordinate, radius: Double)
    /// One or more polygons; each is an outer ring followed by its holes. Rings are open
    /// (the closing position is not repeated).
    case polygons([[[Coordinate]]])
}

/// A latitude/longitude box, degrees. `minLon > maxLon` never happens: a box across the
/// antimeridian is stored as two boxes.
public struct GeoBox: Sendable, Equatable {
    /// The edges, degrees: south (`minLat`), west (`minLon`), north (`maxLat`), east (`maxLon`).
    public var minLat: Double
    public var minLon: Double
    public var maxLat: Double
    public var maxLon: Double

    /// A box from its edges in degrees, unchecked.
    @inlinable
    public init(minLat: Double, minLon: Double, maxLat: Double, maxLon: Double) {
        self.minLat = minLat
        self.minLon = minLon
        self.maxLat = maxLat
        self.maxLon = maxLon
    }

    /// Whether `c` lies in the box, edges included.
    @inlinable
    public func contains(_ c: Coordinate) -> Bool {
        c.latitude >= minLat && c.latitude <= maxLat && c.longitude >= minLon && c.longitude <= maxLon
    }

    /// Whether the two boxes share a point, edges included.
    @inlinable
    public func intersects(_ o: GeoBox) -> Bool {
        minLat <= o.maxLat && maxLat >= o.minLat && minLon <= o.maxLon && maxLon >= o.minLon
    }
}

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

    /// Cell states in the raster.
    @usableFromInline static let cellOutside: UInt64 = 0, cellInside: UInt64 = 1, cellEdge: UInt64 = 2

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
                best = min(best, segmentDistanceSquared(q, b, a))
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
                        best = min(best, segmentDistanceSquared(q, b, a))
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
    /// its raster's box, or the sides of a raster cell wholly inside or outside. Nil where only
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
        // The boundary lies outside this cell: at least as far as the cell's nearest side.
        let fx = gx - Double(cx), fy = gy - Double(cy)
        let clearance = min(min(fx, 1 - fx) / scaleX, min(fy, 1 - fy) / scaleY)
        return state == Self.cellInside ? (true, clearance - 1e-3) : (false, min(byChord, -clearance + 1e-3))
    }

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

    /// An upper bound of the signed distance at `p` (positive inside), without any distance to
    /// an edge. The fence lies within `reach` (a circle: its radius) of the origin, so a point
    /// `chord` from the origin is at most `reach − chord` inside. A polygon's raster says more:
    /// a point off the raster is outside by at least its distance to it, and a point in a cell
    /// wholly outside by at least its distance to the cell's sides. A millimetre of slack covers
    /// the local plane's scale.
    @inlinable
    public func signedDistanceUpperBound(_ p: ECEF, grid: UnsafeBufferPointer<UInt64>) -> Double {
        let byChord = chordUpperBound(p)
        if radius > 0 || frame.chord(p) > reach + Self.farMargin { return byChord }
        let q = frame.project(p)
        let side = Double(Self.gridSide)
        let gx = (q.x - gridMinX) * gridScaleX, gy = (q.y - gridMinY) * gridScaleY
        let ox = max(0, -gx, gx - side) / gridScaleX, oy = max(0, -gy, gy - side) / gridScaleY
        if ox > 0 || oy > 0 { return min(byChord, -(ox * ox + oy * oy).squareRoot() + 1e-3) }
        let cx = min(Int(gx), Self.gridSide - 1), cy = min(Int(gy), Self.gridSide - 1)
        let cell = cy * Self.gridSide + cx
        guard (grid[Int(gridStart) + cell >> 5] >> UInt64((cell & 31) * 2)) & 3 == Self.cellOutside else { return byChord }
        let fx = gx - Double(cx), fy = gy - Double(cy)
        let clearance = min(min(fx, 1 - fx) / gridScaleX, min(fy, 1 - fy) / gridScaleY)
        return min(byChord, -clearance + 1e-3)
    }

    /// `signedDistanceUpperBound` for a core in a store, reading only the fields it needs (on
    /// the stored value, the call copied the whole core): the same arithmetic, the same value.
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
        let fx = gx - Double(cx), fy = gy - Double(cy)
        let clearance = min(min(fx, 1 - fx) / scaleX, min(fy, 1 - fy) / scaleY)
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
                best = min(best, Self.segmentDistanceSquared(q, b, a))
                b = a
            }
            start = end
        }
        return best.squareRoot()
    }

    /// Squared distance from `q` to the segment `a`–`b`, in the plane.
    @inlinable
    public static func segmentDistanceSquared(_ q: Planar, _ a: Planar, _ b: Planar) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let len2 = dx * dx + dy * dy
        var t = len2 > 0 ? ((q.x - a.x) * dx + (q.y - a.y) * dy) / len2 : 0
        t = min(1, max(0, t))
        let px = a.x + t * dx - q.x, py = a.y + t * dy - q.y
        return px * px + py * py
    }
}

/// One fence, built from a shape: its core, its own vertex store, and the boxes that cover it.
///
/// Signed distances are metres to the boundary, positive inside. Circles use the geodesic
/// distance to the centre (PROJ's Karney routines); polygon edges are geodesics between their
/// vertices, evaluated in the fence's local frame (see `LocalFrame`): within 0.5 m, or 0.1 %,
/// of the true geodesic distance for fences up to a few hundred kilometres across.
public struct Fence: Sendable {
    /// The shape the fence was built from.
    public let shape: Shape
    /// The fence's hot data; its offsets point into this fence's own `vertices`, `ringEnds` and `grid`.
    public let core: FenceCore
    /// Polygons: every ring's vertices in the local frame, ring after ring (each ring open).
    public let vertices: [Planar]
    /// Polygons: where each ring ends in `vertices`.
    public let ringEnds: [Int32]
    /// Polygons: the raster (see `FenceCore`); empty for circles.
    public let grid: [UInt64]
    /// One box, or two for a fence across the antimeridian.
    public let boxes: [GeoBox]

    /// Metres per degree of latitude, the smallest anywhere on WGS84 (at the equator).
    @usableFromInline static let minMetresPerDegreeLatitude = 110_574.0
    @usableFromInline static let earthRadius = FenceCore.earthRadius

    /// Builds the fence of `shape`. Traps on a circle whose radius is not positive and finite, or on
    /// polygons with no ring or a ring of fewer than 3 positions (`RegionFile` refuses both).
    public init(_ shape: Shape) {
        self.shape = shape
        switch shape {
        case let .circle(center, r):
            precondition(r > 0 && r.isFinite, "a circle fence needs a radius above 0 (RegionFile refuses others)")
            core = FenceCore(frame: LocalFrame(origin: center), radius: r, gridMinX: 0, gridMinY: 0, gridScaleX: 0, gridScaleY: 0,
                             gridStart: 0, reach: r, vertexStart: 0, ringStart: 0, ringEnd: 0, blockStart: 0)
            vertices = []
            ringEnds = []
            grid = []
            boxes = Self.circleBoxes(center: center, radius: r)
        case let .polygons(parts):
            precondition(!parts.isEmpty && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.count >= 3 } },
                         "a polygon fence needs rings of at least 3 positions (RegionFile refuses others)")
            let all = parts.flatMap { $0.flatMap { $0 } }
            let frame = LocalFrame(origin: Self.centroid(all))
            var v: [Planar] = []
            v.reserveCapacity(all.count)
            var ends: [Int32] = []
            var longestEdge = 0.0, reach = 0.0
            for rings in parts {
                for ring in rings {
                    for c in ring {
                        let e = ECEF(c)
                        reach = max(reach, frame.chord(e))
                        v.append(frame.project(e))
                    }
                    ends.append(Int32(v.count))
                    let start = v.count - ring.count
                    for i in start..<v.count {
                        let a = v[i], b = v[i + 1 < v.count ? i + 1 : start]
                        longestEdge = max(longestEdge, ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot())
                    }
                }
            }
            vertices = v
            ringEnds = ends
            let raster = Raster(vertices: v, ringEnds: ends)
            grid = raster.words
            // Geodesic edges bulge beyond their end points by at most L²/8R (in space, less): pad.
            let pad = longestEdge * longestEdge / (8 * Self.earthRadius) * 1.01 + 1e-3
            core = FenceCore(frame: frame, radius: 0, gridMinX: raster.minX, gridMinY: raster.minY, gridScaleX: raster.scaleX,
                             gridScaleY: raster.scaleY, gridStart: 0, reach: reach + pad, vertexStart: 0, ringStart: 0,
                             ringEnd: Int32(ends.count), blockStart: 0)
            boxes = Self.polygonBoxes(parts, origin: frame.origin, longestEdge: longestEdge)
        }
    }

    /// The local frame distances are measured in (see `FenceCore.frame`).
    public var frame: LocalFrame { core.frame }
    /// Whether the fence is a circle; false for polygons.
    public var isCircle: Bool { core.radius > 0 }

    /// Whether `c` is inside the fence; a point in a hole is outside.
    public func contains(_ c: Coordinate) -> Bool {
        vertices.withUnsafeBufferPointer { v in
            ringEnds.withUnsafeBufferPointer { r in
                grid.withUnsafeBufferPointer { g in core.contains(c, ECEF(c), vertices: v, ringEnds: r, grid: g) }
            }
        }
    }

    /// Metres from `c` to the boundary, positive inside, negative outside or in a hole.
    public func signedDistance(_ c: Coordinate) -> Double {
        let p = ECEF(c)
        if core.isFar(p) { return -Self.farDistance(c, shape) }
        return vertices.withUnsafeBufferPointer { v in
            ringEnds.withUnsafeBufferPointer { r in core.signedDistance(c, p, vertices: v, ringEnds: r) }
        }
    }

    /// Distance from `c` to a polygon it is far outside of, from geodesics alone: for each edge,
    /// the nearer end point and the point a local frame at `c` finds nearest, measured by Karney.
    public static func farDistance(_ c: Coordinate, _ shape: Shape) -> Double {
        guard case let .polygons(parts) = shape else {
            if case let .circle(center, r) = shape { return Geodesic.wgs84.distance(center, c) - r }
            return .infinity
        }
        let g = Geodesic.wgs84
        let frame = LocalFrame(origin: c)
        var best = Double.infinity
        for rings in parts {
            for ring in rings {
                for i in ring.indices {
                    let a = ring[i], b = ring[(i + 1) % ring.count]
                    best = min(best, g.distance(c, a))
                    let pa = frame.project(a), pb = frame.project(b)
                    let dx = pb.x - pa.x, dy = pb.y - pa.y
                    let len2 = dx * dx + dy * dy
                    guard len2 > 0 else { continue }
                    let t = -(pa.x * dx + pa.y * dy) / len2
                    guard t > 0, t < 1 else { continue }
                    let ab = g.inverse(a, b)
                    best = min(best, g.distance(c, g.direct(from: a, bearing: ab.initialBearing, distance: t * ab.distance)))
                }
            }
        }
        return best
    }

    /// This fence's core moved to a shared store whose copies of its vertices, ring ends and raster
    /// start at the given offsets.
    func relocated(vertexOffset: Int, ringOffset: Int, gridOffset: Int, blockOffset: Int) -> FenceCore {
        FenceCore(frame: core.frame, radius: core.radius, gridMinX: core.gridMinX, gridMinY: core.gridMinY,
                  gridScaleX: core.gridScaleX, gridScaleY: core.gridScaleY, gridStart: Int32(gridOffset), reach: core.reach,
                  vertexStart: Int32(vertexOffset), ringStart: Int32(ringOffset), ringEnd: Int32(ringOffset + ringEnds.count),
                  blockStart: Int32(blockOffset))
    }

    /// The normalised mean of the vertices' ECEF vectors, back on the ellipsoid's surface.
    static func centroid(_ points: [Coordinate]) -> Coordinate {
        var x = 0.0, y = 0.0, z = 0.0
        for c in points {
            let p = ECEF(c)
            x += p.x
            y += p.y
            z += p.z
        }
        let lon: Double = atan2(y, x) * 180 / .pi
        let horizontal: Double = (x * x + y * y).squareRoot() * (1 - ECEF.e2)
        let lat: Double = atan2(z, horizontal) * 180 / .pi
        return Coordinate(latitude: lat, longitude: lon)
    }

    /// Longitude of `c` relative to `origin`, in (-180, 180].
    static func relativeLongitude(_ lon: Double, to origin: Double) -> Double {
        var d = (lon - origin).truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 } else if d <= -180 { d += 360 }
        return d
    }

    /// A box from longitudes relative to `originLon`, split in two where it crosses ±180°.
    static func boxes(minLat: Double, maxLat: Double, originLon: Double, relMin: Double, relMax: Double) -> [GeoBox] {
        let lo = originLon + relMin, hi = originLon + relMax
        if relMax - relMin >= 360 { return [GeoBox(minLat: minLat, minLon: -180, maxLat: maxLat, maxLon: 180)] }
        if lo < -180 {
            return [GeoBox(minLat: minLat, minLon: -180, maxLat: maxLat, maxLon: hi),
                    GeoBox(minLat: minLat, minLon: lo + 360, maxLat: maxLat, maxLon: 180)]
        }
        if hi > 180 {
            return [GeoBox(minLat: minLat, minLon: lo, maxLat: maxLat, maxLon: 180),
                    GeoBox(minLat: minLat, minLon: -180, maxLat: maxLat, maxLon: hi - 360)]
        }
        return [GeoBox(minLat: minLat, minLon: lo, maxLat: maxLat, maxLon: hi)]
    }

    static func polygonBoxes(_ parts: [[[Coordinate]]], origin: Coordinate, longestEdge: Double) -> [GeoBox] {
        var minLat = 90.0, maxLat = -90.0, relMin = 180.0, relMax = -180.0
        for rings in parts {
            for ring in rings {
                for (i, c) in ring.enumerated() {
                    minLat = min(minLat, c.latitude)
                    maxLat = max(maxLat, c.latitude)
                    let r = relativeLongitude(c.longitude, to: origin.longitude)
                    relMin = min(relMin, r)
                    relMax = max(relMax, r)
                    // A geodesic edge reaches beyond its end points' latitudes, towards the pole, by
                    // up to L²·tan(φ)/8R; where that could exceed half a metre, take the edge's own
                    // extreme latitude (Clairaut's relation on its azimuths).
                    let d = c, e = ring[(i + 1) % ring.count]
                    let phi = max(abs(d.latitude), abs(e.latitude))
                    if phi > 80 || longestEdge * longestEdge * tan(phi * .pi / 180) / (8 * earthRadius) > 0.5 {
                        let x = geodesicLatitudeExtremes(d, e)
                        minLat = min(minLat, x.min)
                        maxLat = max(maxLat, x.max)
                    }
                }
            }
        }
        let pad = 1.0 / minMetresPerDegreeLatitude  // a metre
        return boxes(minLat: max(-90, minLat - pad), maxLat: min(90, maxLat + pad), originLon: origin.longitude,
                     relMin: relMin - 1e-9, relMax: relMax + 1e-9)
    }

    /// The lowest and highest latitudes on the geodesic from `a` to `b`.
    static func geodesicLatitudeExtremes(_ a: Coordinate, _ b: Coordinate) -> (min: Double, max: Double) {
        var lo = min(a.latitude, b.latitude), hi = max(a.latitude, b.latitude)
        let r = Geodesic.wgs84.inverse(a, b)
        let northStart = cos(r.initialBearing * .pi / 180), northEnd = cos(r.finalBearing * .pi / 180)
        guard (northStart > 0) != (northEnd > 0) else { return (lo, hi) }
        // Clairaut: cos β_vertex = |sin α₁| cos β₁ with β the reduced latitude.
        let f = ECEF.f
        let beta1 = atan((1 - f) * tan(a.latitude * .pi / 180))
        let betaV = acos(min(1, abs(sin(r.initialBearing * .pi / 180)) * cos(beta1)))
        let phiV = atan(tan(betaV) / (1 - f)) * 180 / .pi
        if northStart > 0 { hi = max(hi, phiV) } else { lo = min(lo, -phiV) }
        return (lo, hi)
    }

    static func circleBoxes(center: Coordinate, radius: Double) -> [GeoBox] {
        let (a, b) = circleBoxPair(center: center, radius: radius)
        return b.map { [a, $0] } ?? [a]
    }

    /// The box (or two, across the antimeridian) covering every point within `radius` of
    /// `center`, without allocating: for queries.
    @inlinable
    static func circleBoxPair(center: Coordinate, radius: Double) -> (GeoBox, GeoBox?) {
        boxPair(latitudes: center.latitude...center.latitude, longitudes: center.longitude...center.longitude, metres: radius)
    }

    /// Boxes covering every point within `metres` of the geodesic from `a` to `b`, whose length
    /// is at most `length`: the endpoints' box, grown by `metres` and by the geodesic's bow off
    /// the straight line in latitude and longitude (about L²·tan φ / 8R). Nil for paths over
    /// 10 km or near a pole, where a circle around the middle serves better.
    static func segmentBoxPair(_ a: Coordinate, _ b: Coordinate, length: Double, metres: Double) -> (GeoBox, GeoBox?)? {
        let extreme = max(abs(a.latitude), abs(b.latitude))
        guard length <= 10_000, extreme <= 85 else { return nil }
        var dLon = b.longitude - a.longitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        let bLon = a.longitude + dLon
        // Below 45° the tangent is under 1: no need to ask libm (the same value, bit for bit).
        let bow = 2 * length * length * (extreme < 45 ? 1 : max(1, tan(extreme * .pi / 180))) / (8 * 6_300_000) + 0.01
        return boxPair(latitudes: min(a.latitude, b.latitude)...max(a.latitude, b.latitude),
                       longitudes: min(a.longitude, bLon)...max(a.longitude, bLon), metres: metres + bow)
    }

    /// The box of `latitudes` × `longitudes` (longitudes may run past ±180) grown by `metres`,
    /// split in two across the antimeridian.
    @usableFromInline
    static func boxPair(latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>, metres: Double) -> (GeoBox, GeoBox?) {
        // A margin that is negative or NaN (a caller's bad arithmetic) grows nothing: an
        // inverted box would trap in the ranges built from it.
        let metres = metres >= 0 ? metres : 0
        let dLat = metres / minMetresPerDegreeLatitude * 1.01 + 1e-9
        let minLat = max(-90, latitudes.lowerBound - dLat), maxLat = min(90, latitudes.upperBound + dLat)
        let extreme = max(abs(minLat), abs(maxLat))
        if extreme >= 89.999 {
            // Within reach of a pole: every longitude.
            return (GeoBox(minLat: minLat, minLon: -180, maxLat: maxLat, maxLon: 180), nil)
        }
        let metresPerDegreeLon = 111_319.49 * cos(extreme * .pi / 180)
        let dLon = metres / metresPerDegreeLon * 1.01 + 1e-9
        var lo = longitudes.lowerBound - dLon, hi = longitudes.upperBound + dLon
        if hi - lo >= 360 { return (GeoBox(minLat: minLat, minLon: -180, maxLat: maxLat, maxLon: 180), nil) }
        if lo < -180 && hi < -180 || lo >= 180 { lo += lo < -180 ? 360 : -360; hi += hi < -180 ? 360 : -360 }
        if lo < -180 {
            return (GeoBox(minLat: minLat, minLon: -180, maxLat: maxLat, maxLon: hi),
                    GeoBox(minLat: minLat, minLon: lo + 360, maxLat: maxLat, maxLon: 180))
        }
        if hi > 180 {
            return (GeoBox(minLat: minLat, minLon: lo, maxLat: maxLat, maxLon: 180),
                    GeoBox(minLat: minLat, minLon: -180, maxLat: maxLat, maxLon: hi - 360))
        }
        return (GeoBox(minLat: minLat, minLon: lo, maxLat: maxLat, maxLon: hi), nil)
    }
}
