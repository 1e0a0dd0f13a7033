import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Shapes with their fences built and indexed, ready for point queries. Immutable and Sendable:
/// build it once (at start-up or on reload) and share it. `RegionSet` (in Regions) pairs one with
/// the regions whose shapes it holds; every query names a shape by its index.
///
/// The fences' hot data lives in three flat arrays without references, ordered as the index
/// packs them, so that fences near each other on the ground are near each other in memory.
public struct FenceSet: Sendable {
    /// Everything the set holds, behind one reference: a `FenceSet` is a pointer to pass and a
    /// retain to copy. Held inline (fifteen words), every call into the set from a mutating
    /// method (the monitor's, at each fix) copied them to the stack first.
    @usableFromInline final class Storage: Sendable {
        let count: Int
        let shape: @Sendable (Int) -> Shape
        let boxes: FenceBoxes
        @usableFromInline let index: BoxIndex
        @usableFromInline let cores: [FenceCore]
        @usableFromInline let regionOfCore: [Int32]
        @usableFromInline let coreOfRegion: [Int32]
        let generation: UInt64
        @usableFromInline let vertices: [Planar]
        @usableFromInline let ringEnds: [Int32]
        @usableFromInline let grids: RasterWords
        @usableFromInline let blocks: [EdgeBlock]
        @usableFromInline let coreBoxes: [GeoBox]

        init(count: Int, shape: @escaping @Sendable (Int) -> Shape, boxes: FenceBoxes, index: BoxIndex, cores: [FenceCore],
             regionOfCore: [Int32], coreOfRegion: [Int32], vertices: [Planar], ringEnds: [Int32], grids: RasterWords,
             blocks: [EdgeBlock], coreBoxes: [GeoBox]) {
            self.count = count
            self.shape = shape
            self.boxes = boxes
            self.index = index
            self.cores = cores
            self.regionOfCore = regionOfCore
            self.coreOfRegion = coreOfRegion
            generation = FenceSet.generations.wrappingAdd(1, ordering: .relaxed).newValue
            self.vertices = vertices
            self.ringEnds = ringEnds
            self.grids = grids
            self.blocks = blocks
            self.coreBoxes = coreBoxes
        }
    }

    @usableFromInline let storage: Storage

    /// The number of regions; every query names one by its index, 0 up to this.
    public var count: Int { storage.count }
    /// Region `i`'s shape (a far point's distance is measured on it): the caller's own array,
    /// not a copy of a country's shapes.
    var shape: @Sendable (Int) -> Shape { storage.shape }
    /// Per region, the boxes covering its fence (two across the antimeridian).
    public var boxes: FenceBoxes { storage.boxes }
    @inlinable var index: BoxIndex { storage.index }
    /// Fence cores in packed order; `regionOfCore` and `coreOfRegion` translate.
    @inlinable var cores: [FenceCore] { storage.cores }
    @inlinable var regionOfCore: [Int32] { storage.regionOfCore }
    @inlinable var coreOfRegion: [Int32] { storage.coreOfRegion }
    /// Tells one set from another, so that a `NearbyCache` filled from one is not used with
    /// another: each `Storage` takes the next.
    var generation: UInt64 { storage.generation }
    static let generations = Atomic<UInt64>(0)
    @inlinable var vertices: [Planar] { storage.vertices }
    @inlinable var ringEnds: [Int32] { storage.ringEnds }
    /// The polygons' rasters, `FenceCore.gridWords` each (all zero, every cell an edge, when built
    /// without rasters: see `RasterWords`).
    @inlinable var grids: RasterWords { storage.grids }
    /// The polygons' `EdgeBlock`s, ring after ring (see `FenceCore.blockStart`).
    @inlinable var blocks: [EdgeBlock] { storage.blocks }
    /// Per core, a box covering its fence (for a fence across the antimeridian, every longitude).
    @inlinable var coreBoxes: [GeoBox] { storage.coreBoxes }

    /// Builds every region's fence and indexes them. Shapes must be as `RegionFile` leaves them
    /// (see `Fence.init`).
    ///
    /// `rasters`: whether to mark each polygon's 32×32 raster, which answers most queries
    /// without looking at an edge. It is a quarter of building 100,000 fences and pays back only
    /// over many queries: without it every answer is the same (queries look at the edges, and the
    /// grid's box still bounds each fence), so a few queries (`treeline where --at`) go faster
    /// without. The monitor and many queries want it.
    ///
    /// `parallel`: false builds on the calling thread alone (see `RegionFile.parse`).
    public init(_ shapes: [Shape], rasters: Bool = true, parallel: Bool = true) {
        self.init(count: shapes.count, shape: { shapes[$0] }, rasters: rasters, parallel: parallel)
    }

    /// The same from `count` shapes that `shape` gives by index (a `RegionSet`'s regions'): the
    /// set keeps `shape` to read them again.
    public init(count: Int, shape: @escaping @Sendable (Int) -> Shape, rasters: Bool = true, parallel: Bool = true) {
        let shapes = (0..<count).lazy.map(shape)
        // The boxes first, then each fence built in the index's order, copied to the store and
        // dropped: the store's arrays are the only whole copy of the vertices and rasters, and a
        // fence's own arrays are reused by the next (100,000 fences built all first held 60 MB more).
        let boxes = Self.boxes(of: shapes, parallel: parallel)
        var entries: [(box: GeoBox, item: Int32)] = []
        entries.reserveCapacity(shapes.count)
        for (i, b) in boxes.enumerated() {
            for box in b { entries.append((box, Int32(i))) }
        }
        var index = BoxIndex(entries)
        // Lay the fences out in the order the index visits its entries.
        var coreOf = [Int32](repeating: -1, count: shapes.count)
        var regionOf: [Int32] = []
        regionOf.reserveCapacity(shapes.count)
        var cores: [FenceCore] = []
        cores.reserveCapacity(shapes.count)
        var vertexCount = 0, ringCount = 0, polygonCount = 0
        for shape in shapes {
            guard case let .polygons(parts) = shape else { continue }
            polygonCount += 1
            for rings in parts {
                ringCount += rings.count
                for ring in rings { vertexCount += ring.count }
            }
        }
        var vertices = [Planar](), ringEnds = [Int32](), gridCount = 0
        vertices.reserveCapacity(vertexCount)
        ringEnds.reserveCapacity(ringCount)
        let grids = RasterWords(count: polygonCount * FenceCore.gridWords)
        var blocks: [EdgeBlock] = []
        // The fences in the index's order, a block at a time: built across the cores, then
        // copied into the store in order.
        var order: [Int32] = []
        order.reserveCapacity(shapes.count)
        for item in index.items where coreOf[Int(item)] < 0 {
            coreOf[Int(item)] = 0  // taken (a fence across the antimeridian has two entries); set below
            order.append(item)
        }
        Cores.inOrder(order.count, parallel: parallel) { k in
            let f = Fence(shapes[Int(order[k])], raster: rasters)
            return (fence: f, blocks: EdgeBlock.blocks(f.vertices, f.ringEnds))
        } take: { k, built in
            let item = order[k], f = built.fence
            assert(boxes[Int(item)].elementsEqual(f.boxes), "Fence.boxes(of:) must give the fence's own boxes")
            coreOf[Int(item)] = Int32(cores.count)
            regionOf.append(item)
            let offset = vertices.count
            cores.append(f.relocated(vertexOffset: offset, ringOffset: ringEnds.count, gridOffset: gridCount, blockOffset: blocks.count))
            blocks.append(contentsOf: built.blocks)
            vertices.append(contentsOf: f.vertices)
            ringEnds.append(contentsOf: f.ringEnds.map { $0 + Int32(offset) })
            if rasters { grids.write(f.grid, at: gridCount) }  // else left zero: every cell an edge
            gridCount += f.grid.count
        }
        index.remapItems { coreOf[Int($0)] }
        storage = Storage(count: count, shape: shape, boxes: boxes, index: index, cores: cores, regionOfCore: regionOf,
                          coreOfRegion: coreOf, vertices: vertices, ringEnds: ringEnds, grids: grids, blocks: blocks,
                          coreBoxes: Self.coreBoxes(boxes, regionOf))
    }

    /// Per core, the box around its region's boxes.
    static func coreBoxes(_ boxes: FenceBoxes, _ regionOf: [Int32]) -> [GeoBox] {
        regionOf.map { i in
            let b = boxes[Int(i)]
            return b.dropFirst().reduce(b[0]) { u, x in
                GeoBox(minLat: min(u.minLat, x.minLat), minLon: min(u.minLon, x.minLon),
                       maxLat: max(u.maxLat, x.maxLat), maxLon: max(u.maxLon, x.maxLon))
            }
        }
    }

    /// Each shape's boxes (`Fence.boxes(of:)`), made across the cores.
    private static func boxes(of shapes: LazyMapCollection<Range<Int>, Shape>, parallel: Bool) -> FenceBoxes {
        var each = [[GeoBox]](repeating: [], count: shapes.count)
        each.withUnsafeMutableBufferPointer { buffer in
            let out = buffer
            Cores.forEach(shapes.count, parallel: parallel) { out[$0] = Fence.boxes(of: shapes[$0]) }
        }
        return FenceBoxes(each)
    }

    /// This set with every polygon's raster marked, for a set built with `rasters: false`: the
    /// same answers, found faster. Only the rasters' words are new (a quarter of a megabyte per
    /// thousand polygons); every other array is this set's own, shared. A daemon starts on a set
    /// without rasters and marks them after it is up (`RegionMonitor.takeRasters`).
    public func withRasters(parallel: Bool = true) -> FenceSet { FenceSet(rasterizing: self, parallel: parallel) }

    private init(rasterizing o: FenceSet, parallel: Bool) {
        let grids = RasterWords(count: o.grids.count)
        let cores = o.cores, vertices = o.vertices, ringEnds = o.ringEnds
        // Each core writes its own words: the threads never share one.
        Cores.forEach(cores.count, parallel: parallel) { c in
            let core = cores[c]
            guard core.radius == 0, core.ringEnd > core.ringStart else { return }  // a circle has no raster
            let first = Int(core.vertexStart)
            let ends = ringEnds[Int(core.ringStart)..<Int(core.ringEnd)].map { $0 - Int32(first) }
            let raster = Raster(vertices: Array(vertices[first..<(first + Int(ends.last!))]), ringEnds: ends)
            // The grid is placed by the vertices alone: the same box whether marked or not.
            assert(raster.minX == core.gridMinX && raster.scaleY == core.gridScaleY)
            grids.write(raster.words, at: Int(core.gridStart))
        }
        storage = Storage(count: o.count, shape: o.shape, boxes: o.boxes, index: o.index, cores: cores, regionOfCore: o.regionOfCore,
                          coreOfRegion: o.coreOfRegion, vertices: vertices, ringEnds: ringEnds, grids: grids, blocks: o.blocks,
                          coreBoxes: o.coreBoxes)
    }


    /// Calls `body` with the index of every region that contains `c`. Allocates nothing.
    @inlinable
    public func forEachContaining(_ c: Coordinate, _ body: (Int) -> Void) {
        withStore { cs, v, r, g in
            index.withBuffers { index in
                Self.forEachCore(containing: c, index, cs, v, r, g) { body(Int(regionOfCore[$0])) }
            }
        }
    }

    /// The cores of the fences containing `c`, from the store's and the index's arrays.
    @inlinable
    static func forEachCore(containing c: Coordinate, _ index: BoxIndex.Buffers, _ cs: UnsafeBufferPointer<FenceCore>,
                            _ v: UnsafeBufferPointer<Planar>, _ r: UnsafeBufferPointer<Int32>, _ g: UnsafeBufferPointer<UInt64>,
                            _ body: (Int) -> Void) {
        let p = ECEF(c)
        index.forEach(intersecting: GeoBox(minLat: c.latitude, minLon: c.longitude, maxLat: c.latitude, maxLon: c.longitude)) { k in
            if FenceCore.contains(at: cs.baseAddress.unsafelyUnwrapped + Int(k), c, p, vertices: v, ringEnds: r, grid: g) { body(Int(k)) }
        }
    }

    @inlinable
    func withStore<T>(_ body: (UnsafeBufferPointer<FenceCore>, UnsafeBufferPointer<Planar>, UnsafeBufferPointer<Int32>,
                               UnsafeBufferPointer<UInt64>) -> T) -> T {
        cores.withUnsafeBufferPointer { cs in
            vertices.withUnsafeBufferPointer { v in
                ringEnds.withUnsafeBufferPointer { r in
                    body(cs, v, r, grids.buffer)
                }
            }
        }
    }

    /// Whether region `i` contains `c`.
    public func contains(_ i: Int, _ c: Coordinate) -> Bool { contains(i, c, ECEF(c)) }

    /// Whether region `i` contains `c`, whose ECEF `p` the caller has.
    @inlinable
    public func contains(_ i: Int, _ c: Coordinate, _ p: ECEF) -> Bool {
        withStore { cs, v, r, g in
            FenceCore.contains(at: cs.baseAddress.unsafelyUnwrapped + Int(coreOfRegion[i]), c, p, vertices: v, ringEnds: r, grid: g)
        }
    }

    /// Whether region `i` contains `c` (with ECEF `p`), and a bound of its signed distance there:
    /// at least `bound` when inside, at most when outside; `exact` when it is the distance
    /// itself. The distance is computed only where the fence's raster or chord cannot bound it
    /// (see `FenceCore.classify`), so this costs about what `contains` does.
    ///
    /// A polygon's exact bound is its distance in its plane, `approximateSignedDistance(i, p)`
    /// bit for bit (a path search may take it rather than compute it again): it is computed only
    /// in a raster cell an edge crosses, so within the polygon's reach, never from geodesics.
    @inlinable
    public func classify(_ i: Int, _ c: Coordinate, _ p: ECEF) -> (inside: Bool, bound: Double, exact: Bool) {
        withStore { cs, v, r, g in
            let k = Int(coreOfRegion[i])
            let core = cs.baseAddress.unsafelyUnwrapped + k
            if let (inside, bound) = FenceCore.classify(at: core, p, grid: g) { return (inside, bound, false) }
            let d = distance(i, core, c, p, v, r)
            return (d > 0, d, true)
        }
    }

    /// Signed distance from `c` to region `i`'s boundary, metres, positive inside.
    public func signedDistance(_ i: Int, _ c: Coordinate) -> Double { signedDistance(i, c, ECEF(c)) }

    /// `signedDistance(_:_:)` where the caller has `c`'s ECEF `p`.
    public func signedDistance(_ i: Int, _ c: Coordinate, _ p: ECEF) -> Double {
        withStore { cs, v, r, _ in distance(i, cs.baseAddress.unsafelyUnwrapped + Int(coreOfRegion[i]), c, p, v, r) }
    }

    /// Region `i`'s signed distance through its core, or from geodesics when `c` is far away.
    @usableFromInline
    func distance(_ i: Int, _ core: UnsafePointer<FenceCore>, _ c: Coordinate, _ p: ECEF, _ v: UnsafeBufferPointer<Planar>,
                  _ r: UnsafeBufferPointer<Int32>) -> Double {
        let radius = core.pointee.radius
        if radius > 0 { return radius - Geodesic.wgs84.distance(core.pointee.frame.origin, c) }
        if FenceCore.chord(at: core, p) > core.pointee.reach + FenceCore.farMargin { return -Fence.farDistance(c, shape(i)) }
        return blocks.withUnsafeBufferPointer { FenceCore.planarSignedDistance(at: core, FenceCore.planar(at: core, p), v, r, $0) }
    }

    /// Containment for many points at once: calls `body(point, region)` for every point of
    /// `points` inside a region. Points are visited in Morton (Z-curve) order of their position,
    /// so consecutive queries reuse the fences and index nodes already in cache; all pairs of one
    /// point come together, points in no particular order. The points are asked across the cores
    /// a stretch of the order at a time; `body` is called on the calling thread, in order.
    public func forEachContaining(_ points: [Coordinate], parallel: Bool = true, _ body: (Int, Int) -> Void) {
        let order = Self.mortonOrder(points)
        let stretch = 8_192, parts = Cores.count
        // The arrays are taken once for all the points, not once per point.
        withStore { cs, v, r, g in
            index.withBuffers { index in
                regionOfCore.withUnsafeBufferPointer { regionOf in
                    // Per part of a stretch, the pairs it found, in order.
                    var found = [[(point: Int32, region: Int32)]](repeating: [], count: parts)
                    for start in stride(from: 0, to: order.count, by: stretch) {
                        let end = min(order.count, start + stretch), share = (end - start + parts - 1) / parts
                        found.withUnsafeMutableBufferPointer { out in
                            let out = out
                            Cores.forEach(parts, parallel: parallel && end - start >= 1_024, worthIt: 2) { w in
                                out[w].removeAll(keepingCapacity: true)
                                for i in order[min(end, start + w * share)..<min(end, start + (w + 1) * share)] {
                                    Self.forEachCore(containing: points[Int(i)], index, cs, v, r, g) { out[w].append((i, regionOf[$0])) }
                                }
                            }
                        }
                        for part in found { for pair in part { body(Int(pair.point), Int(pair.region)) } }
                    }
                }
            }
        }
    }

    /// Indices of `points` sorted along a Z-order curve of latitude and longitude; points of
    /// the same key keep their order.
    static func mortonOrder(_ points: [Coordinate]) -> [Int32] {
        let keys = points.map { c in
            let y = UInt32(max(0, min(4_294_967_295, (c.latitude + 90) / 180 * 4_294_967_295)))
            let x = UInt32(max(0, min(4_294_967_295, (c.longitude + 180) / 360 * 4_294_967_295)))
            return Bits.spread(x) | Bits.spread(y) << 1
        }
        return Bits.stableOrder(keys)
    }

    /// Indices of the regions containing `c`, in ascending order of index.
    public func containing(_ c: Coordinate) -> [Int] {
        var out: [Int] = []
        forEachContaining(c) { out.append($0) }
        out.sort()
        var unique: [Int] = []
        for i in out where unique.last != i { unique.append(i) }
        return unique
    }

    /// Calls `body` for each region whose boundary may lie within `metres` of `c`, with its
    /// signed distance (positive inside). Each region at most once; a region farther than
    /// `metres` may be included, none nearer is left out.
    public func forEachNear(_ c: Coordinate, within metres: Double, _ body: (Int, Double) -> Void) {
        let p = ECEF(c)
        withStore { cs, v, r, _ in
            forEachCandidate(near: c, within: metres) { k in
                let i = Int(regionOfCore[k])
                body(i, distance(i, cs.baseAddress.unsafelyUnwrapped + k, c, p, v, r))
            }
        }
    }

    /// Calls `body` with the core index of each fence whose boundary may lie within `metres` of
    /// `c`, each once.
    @inlinable
    func forEachCandidate(near c: Coordinate, within metres: Double, _ body: (Int) -> Void) {
        forEachCandidate(in: Fence.circleBoxPair(center: c, radius: metres), body)
    }

    /// Calls `body` with the core index of each fence whose box meets one of `boxes`, each once.
    @inlinable
    func forEachCandidate(in boxes: (GeoBox, GeoBox?), _ body: (Int) -> Void) {
        let (first, second) = boxes
        guard let second else {
            index.forEach(intersecting: first) { body(Int($0)) }
            return
        }
        // Across the antimeridian: a fence split there can meet both query boxes; visit it once.
        index.forEach(intersecting: first) { body(Int($0)) }
        index.forEach(intersecting: second) { k in
            let i = Int(regionOfCore[Int(k)])
            let own = self.boxes[i]
            if own.count > 1, own.contains(where: { $0.intersects(first) }) { return }
            body(Int(k))
        }
    }

    /// Calls `body` with the index of each region whose box meets `boxes` (one box, or two for a
    /// view across the antimeridian), each once, from the index: no region outside is looked at.
    public func forEachRegion(in boxes: (GeoBox, GeoBox?), _ body: (Int) -> Void) {
        // A fence split at the antimeridian has two entries; one query box can meet both.
        var twice: Set<Int> = []
        forEachCandidate(in: boxes) { k in
            let i = Int(regionOfCore[k])
            if self.boxes[i].count > 1, !twice.insert(i).inserted { return }
            body(i)
        }
    }

    /// Calls `body` with the index of each region whose boundary may lie within `metres` of `c`
    /// (each once), without computing distances.
    public func forEachRegion(near c: Coordinate, within metres: Double, _ body: (Int) -> Void) {
        forEachCandidate(near: c, within: metres) { body(Int(regionOfCore[$0])) }
    }

    /// Calls `body` with the index of each region whose boundary may lie within `metres` of the
    /// geodesic from `a` to `b` (each once), whose length is at most `length`. Short paths query
    /// the box around them; long ones (over 10 km) a circle around the middle.
    public func forEachRegion(along a: Coordinate, _ b: Coordinate, length: Double, within metres: Double, _ body: (Int) -> Void) {
        if let boxes = Fence.segmentBoxPair(a, b, length: length, metres: metres) {
            forEachCandidate(in: boxes) { body(Int(regionOfCore[$0])) }
            return
        }
        // The middle in latitude and longitude; the circle reaches both ends of the chord, plus
        // the geodesic's bow off it (L²/8ρ), plus the margin.
        var dLon = b.longitude - a.longitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        var midLon = a.longitude + dLon / 2
        if midLon > 180 { midLon -= 360 } else if midLon < -180 { midLon += 360 }
        let middle = Coordinate(latitude: (a.latitude + b.latitude) / 2, longitude: midLon)
        let pm = ECEF(middle)
        let reach = max(pm.distance(to: ECEF(a)), pm.distance(to: ECEF(b))) * (1 + 1e-4) + length * length / (8 * 6_300_000) + metres
        forEachRegion(near: middle, within: reach, body)
    }

    /// Like `forEachRegion(along:_:length:within:_:)`, but through `cache`: a fix follows the
    /// last one closely, so the index is asked once for an area around the path, and the next
    /// paths inside that area filter its list by their fences' boxes. May include a few regions
    /// farther away; each region once, in ascending order.
    public func forEachRegion(along a: Coordinate, _ b: Coordinate, length: Double, within metres: Double,
                              cache: inout NearbyCache, _ body: (Int) -> Void) {
        var found: [Int32] = []
        appendRegions(along: a, b, length: length, within: metres, cache: &cache, to: &found)
        for i in found { body(Int(i)) }
    }

    /// `forEachRegion(along:_:length:within:cache:_:)` into an array: appends the regions to
    /// `out`, each once, in ascending order. Through the cache (the usual case), without a
    /// closure call per region nor a sort: the cache keeps its regions in order, and a region's
    /// box in one vector compare.
    public func appendRegions(along a: Coordinate, _ b: Coordinate, length: Double, within metres: Double,
                              cache: inout NearbyCache, to out: inout [Int32]) {
        func plain() {
            let start = out.count
            forEachRegion(along: a, b, length: length, within: metres) { out.append(Int32($0)) }
            out[start...].sort()
        }
        guard let (q, second) = Fence.segmentBoxPair(a, b, length: length, metres: metres), second == nil else { return plain() }
        if !(cache.generation == generation && cache.area.contains(q)) {
            // A new area: the query grown by a quarter kilometre each way (100 m cost 2 % more instructions on the pipeline benchmark: more rebuilds).
            let (grown, split) = Fence.boxPair(latitudes: q.minLat...q.maxLat, longitudes: q.minLon...q.maxLon, metres: 250)
            guard split == nil else { return plain() }
            cache.area = grown
            cache.generation = generation
            var list = cache.regions
            cache.regions = []
            list.removeAll(keepingCapacity: true)
            // Through the buffer: a closure reading `regionOfCore` off `self` copied the whole set.
            regionOfCore.withUnsafeBufferPointer { regionOf in
                index.forEach(intersecting: grown) { list.append(regionOf[Int($0)]) }
            }
            list.sort()
            var unique = 0
            for k in list.indices where unique == 0 || list[k] != list[unique - 1] {
                list[unique] = list[k]
                unique += 1
            }
            list.removeSubrange(unique...)
            cache.boxes.removeAll(keepingCapacity: true)
            for i in list {
                let box = coreBoxes[Int(coreOfRegion[Int(i)])]
                cache.boxes.append(SIMD4(EdgeBlock.down(box.minLat), EdgeBlock.down(box.minLon), EdgeBlock.down(-box.maxLat), EdgeBlock.down(-box.maxLon)))
            }
            cache.regions = list
            if cache.hits.count < list.count { cache.hits = Array(repeating: 0, count: list.count) }
        }
        // `GeoBox.intersects`, lane by lane: minLat ≤ q.maxLat, minLon ≤ q.maxLon, maxLat ≥ q.minLat,
        // maxLon ≥ q.minLon; in `Float` rounded outwards (boxes down, the query up), so that every
        // box meeting the query passes, and a few within a metre or so more.
        let limit = SIMD4(EdgeBlock.up(q.maxLat), EdgeBlock.up(q.maxLon), EdgeBlock.up(-q.minLat), EdgeBlock.up(-q.minLon))
        let n = cache.regions.count
        cache.regions.withUnsafeBufferPointer { regions in
            cache.boxes.withUnsafeBufferPointer { boxes in
                cache.hits.withUnsafeMutableBufferPointer { hits in
                    var w = 0
                    for k in 0..<n {
                        hits[w] = regions[k]
                        w += all(boxes[k] .<= limit) ? 1 : 0
                    }
                    // From the buffer: a slice of `hits` retained and released its storage.
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: hits[..<w]))
                }
            }
        }
    }

    /// Region `i`'s signed distance at a point given only in space (see
    /// `FenceCore.approximateSignedDistance`): for searching along paths.
    public func approximateSignedDistance(_ i: Int, _ p: ECEF) -> Double {
        withStore { cs, v, r, _ in
            blocks.withUnsafeBufferPointer { FenceCore.approximateSignedDistance(at: cs.baseAddress.unsafelyUnwrapped + Int(coreOfRegion[i]), p, v, r, $0) }
        }
    }

    /// Whether region `i`'s fence is a circle, whose chord bound is close to its distance (a
    /// polygon's only says how far its farthest vertex reaches).
    @inlinable
    public func isCircle(_ i: Int) -> Bool {
        cores.withUnsafeBufferPointer { $0.baseAddress.unsafelyUnwrapped[Int(coreOfRegion[i])].radius > 0 }
    }

    /// For a circle, bounds of its signed distance at `p` from the chord to its centre: the
    /// geodesic is at least the chord and longer by less than twice chord³/24R². Nil for a
    /// polygon, and beyond 4 km from the centre: there the bounds are more than a quarter of a
    /// millimetre apart, and kept as a region's bound they would no longer prune the transit
    /// search (which takes the chord) exactly as the distance itself does.
    @inlinable
    public func circleBounds(_ i: Int, _ p: ECEF) -> (lower: Double, upper: Double)? {
        cores.withUnsafeBufferPointer { cs in
            let core = cs.baseAddress.unsafelyUnwrapped + Int(coreOfRegion[i])
            let radius = core.pointee.radius
            guard radius > 0 else { return nil }
            let chord = FenceCore.chord(at: core, p)
            guard chord < 4_000 else { return nil }
            let slack = FenceCore.geodesicExcess(chord)
            return (radius - chord - slack, radius - chord + 1e-6)
        }
    }

    /// Region `i`'s `FenceCore.chordUpperBound`: the cheapest bound of its signed distance.
    @inlinable
    public func chordUpperBound(_ i: Int, _ p: ECEF) -> Double {
        cores.withUnsafeBufferPointer { $0.baseAddress.unsafelyUnwrapped[Int(coreOfRegion[i])].chordUpperBound(p) }
    }

    /// An upper bound of region `i`'s signed distance at `p` (positive inside), from one chord:
    /// cheaper than any distance (see `FenceCore.signedDistanceUpperBound`).
    @inlinable
    public func signedDistanceUpperBound(_ i: Int, _ p: ECEF) -> Double {
        withStore { cs, _, _, g in FenceCore.signedDistanceUpperBound(at: cs.baseAddress.unsafelyUnwrapped + Int(coreOfRegion[i]), p, grid: g) }
    }

    /// The region whose boundary is nearest to `c`, with the signed distance (positive inside).
    /// Searches outwards from 100 m, growing the radius, until the nearest boundary found lies
    /// within it; candidates whose chord lower bound is already beaten are skipped. Nil only when
    /// there are no regions.
    public func nearestBoundary(_ c: Coordinate) -> (index: Int, signedDistance: Double)? {
        guard count > 0 else { return nil }
        let p = ECEF(c)
        var radius = 100.0
        return withStore { cs, v, r, _ in
            while true {
                var best: (index: Int, signedDistance: Double)?
                func consider(_ k: Int) {
                    let i = Int(regionOfCore[k])
                    if let b = best, cs.baseAddress.unsafelyUnwrapped[k].distanceLowerBound(p) > abs(b.signedDistance) { return }
                    let d = distance(i, cs.baseAddress.unsafelyUnwrapped + k, c, p, v, r)
                    if best == nil || abs(d) < abs(best!.signedDistance) || (abs(d) == abs(best!.signedDistance) && i < best!.index) {
                        best = (i, d)
                    }
                }
                if radius > 20_000_000 {
                    for k in cs.indices { consider(k) }  // the whole Earth
                    return best
                }
                forEachCandidate(near: c, within: radius) { consider($0) }
                if let best, abs(best.signedDistance) <= radius { return best }
                radius *= 4
            }
        }
    }
}
