/// What a point's answer needs from regions seen a block at a time, none kept: the ids of those
/// containing it, and the nearest boundary. Each block is built into a `RegionSet` (without
/// rasters, which pay back only over many queries), asked, and let go; the nearest is the least
/// distance, the earlier region on a tie, as over the whole set at once.
public struct PointQuery {
    public let point: Coordinate
    /// Ids of the regions containing the point, in the order seen.
    public private(set) var inside: [String] = []
    /// The region whose boundary is nearest, and the signed distance to it (positive inside).
    public private(set) var nearest: (id: String, signedDistance: Double)?

    public init(_ point: Coordinate) { self.point = point }

    /// The next block of regions, in order.
    public mutating func add(_ block: [Region]) {
        let set = RegionSet(block, rasters: false)
        inside += set.containing(point).map { set.regions[$0].id }
        if let n = set.nearestBoundary(point), nearest.map({ abs(n.signedDistance) < abs($0.signedDistance) }) ?? true {
            nearest = (set.regions[n.index].id, n.signedDistance)
        }
    }
}
