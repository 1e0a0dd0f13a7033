import Geo

/// Regions with their fences built and indexed (`FenceSet`), ready for point queries: every
/// query names a region by its index in `regions`. Immutable and Sendable: build it once (at
/// start-up or on reload) and share it.
///
/// The queries are `FenceSet`'s, forwarded inline, so a caller pays no call more than before.
public struct RegionSet: Sendable {
    /// The regions in the order given.
    public let regions: [Region]
    /// Their fences, in the same order.
    public let fences: FenceSet
    /// Each region's index by its id (`index(ofID:)`).
    let ids: IDIndex
    /// The regions by the size of their boxes, largest first (the earlier on a tie): what a map
    /// that cannot show them all shows (`RegionsSelection`).
    public let bySize: [Int32]
    /// The box around every region, nil when there is none.
    public let bounds: GeoBox?

    /// Builds every region's fence and indexes them (see `FenceSet.init` for `rasters` and
    /// `parallel`). Shapes must be as `RegionFile` leaves them.
    public init(_ regions: [Region], rasters: Bool = true, parallel: Bool = true) {
        self.init(regions, fences: FenceSet(count: regions.count, shape: { regions[$0].shape }, rasters: rasters, parallel: parallel))
    }

    /// Regions with their fences built already (by `init`, or read from a prepared store).
    init(_ regions: [Region], fences: FenceSet) {
        self.regions = regions
        self.fences = fences
        ids = IDIndex(regions)
        (bySize, bounds) = RegionsSelection.sizes(fences.boxes)
    }

    /// This set with its polygons' rasters marked (`FenceSet.withRasters`): for a set built
    /// with `rasters: false`; everything else is shared.
    public func withRasters(parallel: Bool = true) -> RegionSet { RegionSet(self, fences: fences.withRasters(parallel: parallel)) }

    private init(_ o: RegionSet, fences: FenceSet) {
        regions = o.regions
        self.fences = fences
        ids = o.ids
        bySize = o.bySize
        bounds = o.bounds
    }

    @inlinable public var count: Int { regions.count }
    /// The index of the region whose id is `id` (ids are unique in force; the first wins otherwise).
    public func index(ofID id: String) -> Int? { ids.index(of: id, in: regions) }
    /// Per region, the boxes covering its fence (two across the antimeridian).
    @inlinable public var boxes: FenceBoxes { fences.boxes }

    @inlinable public func forEachContaining(_ c: Coordinate, _ body: (Int) -> Void) { fences.forEachContaining(c, body) }
    @inlinable public func forEachContaining(_ points: [Coordinate], parallel: Bool = true, _ body: (Int, Int) -> Void) {
        fences.forEachContaining(points, parallel: parallel, body)
    }
    @inlinable public func contains(_ i: Int, _ c: Coordinate) -> Bool { fences.contains(i, c) }
    @inlinable public func contains(_ i: Int, _ c: Coordinate, _ p: ECEF) -> Bool { fences.contains(i, c, p) }
    @inlinable public func classify(_ i: Int, _ c: Coordinate, _ p: ECEF) -> (inside: Bool, bound: Double, exact: Bool) {
        fences.classify(i, c, p)
    }
    @inlinable public func signedDistance(_ i: Int, _ c: Coordinate) -> Double { fences.signedDistance(i, c) }
    @inlinable public func signedDistance(_ i: Int, _ c: Coordinate, _ p: ECEF) -> Double { fences.signedDistance(i, c, p) }
    @inlinable public func containing(_ c: Coordinate) -> [Int] { fences.containing(c) }
    @inlinable public func forEachNear(_ c: Coordinate, within metres: Double, _ body: (Int, Double) -> Void) {
        fences.forEachNear(c, within: metres, body)
    }
    @inlinable public func forEachRegion(in boxes: (GeoBox, GeoBox?), _ body: (Int) -> Void) { fences.forEachRegion(in: boxes, body) }
    @inlinable public func forEachRegion(near c: Coordinate, within metres: Double, _ body: (Int) -> Void) {
        fences.forEachRegion(near: c, within: metres, body)
    }
    @inlinable public func forEachRegion(along a: Coordinate, _ b: Coordinate, length: Double, within metres: Double, _ body: (Int) -> Void) {
        fences.forEachRegion(along: a, b, length: length, within: metres, body)
    }
    @inlinable public func forEachRegion(along a: Coordinate, _ b: Coordinate, length: Double, within metres: Double,
                                         cache: inout NearbyCache, _ body: (Int) -> Void) {
        fences.forEachRegion(along: a, b, length: length, within: metres, cache: &cache, body)
    }
    @inlinable public func appendRegions(along a: Coordinate, _ b: Coordinate, length: Double, within metres: Double,
                                         cache: inout NearbyCache, to out: inout [Int32]) {
        fences.appendRegions(along: a, b, length: length, within: metres, cache: &cache, to: &out)
    }
    @inlinable public func approximateSignedDistance(_ i: Int, _ p: ECEF) -> Double { fences.approximateSignedDistance(i, p) }
    @inlinable public func isCircle(_ i: Int) -> Bool { fences.isCircle(i) }
    @inlinable public func circleBounds(_ i: Int, _ p: ECEF) -> (lower: Double, upper: Double)? { fences.circleBounds(i, p) }
    @inlinable public func chordUpperBound(_ i: Int, _ p: ECEF) -> Double { fences.chordUpperBound(i, p) }
    @inlinable public func signedDistanceUpperBound(_ i: Int, _ p: ECEF) -> Double { fences.signedDistanceUpperBound(i, p) }
    @inlinable public func nearestBoundary(_ c: Coordinate) -> (index: Int, signedDistance: Double)? { fences.nearestBoundary(c) }
}
