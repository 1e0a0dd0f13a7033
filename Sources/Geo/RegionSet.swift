#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Regions with their fences built and indexed, ready for point queries. Immutable and Sendable:
/// build it once (at start-up or on reload) and share it.
public struct RegionSet: Sendable {
    public let regions: [Region]
    public let fences: [Fence]
    @usableFromInline let index: BoxIndex

    public init(_ regions: [Region]) {
        self.regions = regions
        fences = regions.map { Fence($0.shape) }
        var entries: [(box: GeoBox, item: Int32)] = []
        entries.reserveCapacity(fences.count)
        for (i, f) in fences.enumerated() {
            for box in f.boxes { entries.append((box, Int32(i))) }
        }
        index = BoxIndex(entries)
    }

    public var count: Int { regions.count }

    /// Calls `body` with the index of every region that contains `c`. Allocates nothing.
    @inlinable
    public func forEachContaining(_ c: Coordinate, _ body: (Int) -> Void) {
        let p = ECEF(c)
        let q = GeoBox(minLat: c.latitude, minLon: c.longitude, maxLat: c.latitude, maxLon: c.longitude)
        forEachCandidate(q) { i in
            if fences[i].contains(c, p) { body(i) }
        }
    }

    @inlinable
    func forEachCandidate(_ q: GeoBox, _ body: (Int) -> Void) {
        index.forEach(intersecting: q) { body(Int($0)) }
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

    /// Boxes covering every point within `metres` of `c` (two when they cross the antimeridian).
    public static func searchBoxes(around c: Coordinate, metres: Double) -> [GeoBox] {
        let dLat = metres / Fence.minMetresPerDegreeLatitude * 1.01 + 1e-9
        let minLat = max(-90, c.latitude - dLat), maxLat = min(90, c.latitude + dLat)
        let extreme = max(abs(minLat), abs(maxLat))
        if extreme >= 89.999 { return [GeoBox(minLat: minLat, minLon: -180, maxLat: maxLat, maxLon: 180)] }
        let dLon = metres / (111_319.49 * cos(extreme * .pi / 180)) * 1.01 + 1e-9
        if dLon >= 180 { return [GeoBox(minLat: minLat, minLon: -180, maxLat: maxLat, maxLon: 180)] }
        return Fence.boxes(minLat: minLat, maxLat: maxLat, originLon: c.longitude, relMin: -dLon, relMax: dLon)
    }

    /// Calls `body` for each region whose boundary may lie within `metres` of `c`, with its
    /// signed distance (positive inside). Each region at most once; a region farther than
    /// `metres` may be included, none nearer is left out.
    public func forEachNear(_ c: Coordinate, within metres: Double, _ body: (Int, Double) -> Void) {
        let p = ECEF(c)
        let boxes = Self.searchBoxes(around: c, metres: metres)
        var seenSplit: [Int] = []  // only fences split at the antimeridian can come twice
        for box in boxes {
            forEachCandidate(box) { i in
                if fences[i].boxes.count > 1 {
                    if seenSplit.contains(i) { return }
                    seenSplit.append(i)
                }
                body(i, fences[i].signedDistance(c, p))
            }
        }
    }

    /// The region whose boundary is nearest to `c`, with the signed distance (positive inside).
    /// Searches outwards from 100 m, doubling, until the nearest boundary found lies within the
    /// searched radius; nil only when there are no regions.
    public func nearestBoundary(_ c: Coordinate) -> (index: Int, signedDistance: Double)? {
        guard !regions.isEmpty else { return nil }
        var radius = 100.0
        while true {
            var best: (index: Int, signedDistance: Double)?
            forEachNear(c, within: radius) { i, d in
                if best == nil || abs(d) < abs(best!.signedDistance) || (abs(d) == abs(best!.signedDistance) && i < best!.index) {
                    best = (i, d)
                }
            }
            if let best, abs(best.signedDistance) <= radius { return best }
            if radius > 25_000_000 {
                // The whole Earth was searched: take the best there is.
                var all: (index: Int, signedDistance: Double)?
                for i in fences.indices {
                    let d = fences[i].signedDistance(c)
                    if all == nil || abs(d) < abs(all!.signedDistance) { all = (i, d) }
                }
                return all
            }
            radius *= 4
        }
    }
}
