import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The index's answer for an area around recent fixes (see `RegionSet.forEachRegion(along:_:length:within:cache:_:)`).
public struct NearbyCache: Sendable {
    var area = GeoBox(minLat: 0, minLon: 0, maxLat: -1, maxLon: -1)
    var generation: UInt64 = 0
    /// The regions the index gave for `area`, ascending, each once; their fences' boxes as
    /// (minLat, minLon, −maxLat, −maxLon) rounded down to `Float`, which meet a query box q where
    /// every lane is at most (q.maxLat, q.maxLon, −q.minLat, −q.minLon); room for the regions a
    /// query finds.
    var regions: [Int32] = []
    var boxes: [SIMD4<Float>] = []
    var hits: [Int32] = []
    /// An empty cache; the first query fills it.
    public init() {}
}
