#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    /// `raster`: false leaves a polygon's raster cells unmarked (see `RegionSet.init`).
    public init(_ shape: Shape, raster rasterCells: Bool = true) {
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
            let all = parts.flatMap { $0.flatMap { $0.map(ECEF.init) } }
            let frame = LocalFrame(origin: Self.centroid(all))
            var v: [Planar] = []
            v.reserveCapacity(all.count)
            var ends: [Int32] = []
            var longestEdge = 0.0, reach = 0.0
            for rings in parts {
                for ring in rings {
                    for e in all[v.count..<(v.count + ring.count)] {
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
            let raster = Raster(vertices: v, ringEnds: ends, cells: rasterCells)
            grid = raster.words
            // Geodesic edges bulge beyond their end points by at most L²/8R (in space, less): pad.
            let pad = longestEdge * longestEdge / (8 * Self.earthRadius) * 1.01 + 1e-3
            core = FenceCore(frame: frame, radius: 0, gridMinX: raster.minX, gridMinY: raster.minY, gridScaleX: raster.scaleX,
                             gridScaleY: raster.scaleY, gridStart: 0, reach: reach + pad, vertexStart: 0, ringStart: 0,
                             ringEnd: Int32(ends.count), blockStart: 0)
            boxes = Self.polygonBoxes(parts, origin: frame.origin, longestEdge: longestEdge)
        }
    }

    /// The boxes `Fence(shape).boxes` has, by the same arithmetic, without building the fence
    /// (its vertex store and raster): `RegionSet` indexes the boxes first and then builds each
    /// fence in the index's order straight into its store.
    public static func boxes(of shape: Shape) -> [GeoBox] {
        switch shape {
        case let .circle(center, r):
            return circleBoxes(center: center, radius: r)
        case let .polygons(parts):
            let all = parts.flatMap { $0.flatMap { $0.map(ECEF.init) } }
            let frame = LocalFrame(origin: centroid(all))
            var longestEdge = 0.0
            var v: [Planar] = []
            var first = 0
            for rings in parts {
                for ring in rings {
                    v.removeAll(keepingCapacity: true)
                    for e in all[first..<(first + ring.count)] { v.append(frame.project(e)) }
                    first += ring.count
                    for i in v.indices {
                        let a = v[i], b = v[i + 1 < v.count ? i + 1 : 0]
                        longestEdge = max(longestEdge, ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot())
                    }
                }
            }
            return polygonBoxes(parts, origin: frame.origin, longestEdge: longestEdge)
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
    static func centroid(_ points: [Coordinate]) -> Coordinate { centroid(points.map(ECEF.init)) }

    /// The same from the points' ECEF positions, for a caller that needs those too (each costs
    /// two sines and cosines: a fence's load is mostly those).
    static func centroid(_ points: [ECEF]) -> Coordinate {
        var x = 0.0, y = 0.0, z = 0.0
        for p in points {
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

    static func polygonBoxes(_ parts: Polygons, origin: Coordinate, longestEdge: Double) -> [GeoBox] {
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
