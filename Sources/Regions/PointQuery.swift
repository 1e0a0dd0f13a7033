import Geo
/// What a point's answer needs from regions seen a block at a time, none kept: the ids of those
/// containing it, and the nearest boundary. Each block's fences are built (without rasters,
/// which pay back only over many queries) and asked across the cores, then let go; no index is
/// built. The nearest is the least distance, the earlier region on a tie, as over the whole set
/// at once (`RegionSet.nearestBoundary`).
public struct PointQuery {
    public let point: Coordinate
    /// Ids of the regions containing the point, in the order seen.
    public private(set) var inside: [String] = []
    /// The region whose boundary is nearest, and the signed distance to it (positive inside).
    public private(set) var nearest: (id: String, signedDistance: Double)?
    private let ecef: ECEF

    public init(_ point: Coordinate) {
        self.point = point
        ecef = ECEF(point)
    }

    /// The next block of regions, in order.
    public mutating func add(_ block: [Region]) {
        let c = point, p = ecef
        var fences = [Fence?](repeating: nil, count: block.count)
        var found = [(inside: Bool, bound: Double)](repeating: (false, 0), count: block.count)
        fences.withUnsafeMutableBufferPointer { f in
            found.withUnsafeMutableBufferPointer { r in
                let (f, r) = (f, r)
                Cores.forEach(block.count, worthIt: 256) { k in
                    let fence = Fence(block[k].shape, raster: false)
                    r[k] = (fence.contains(c), fence.core.distanceLowerBound(p))
                    f[k] = fence
                }
            }
        }
        for k in block.indices where found[k].inside { inside.append(block[k].id) }
        // The fences by their lower bound: once a bound passes the nearest distance found, no
        // fence after it can be nearer, so few distances are computed.
        var best = nearest.map { (index: -1, signedDistance: $0.signedDistance) }
        for k in block.indices.sorted(by: { found[$0].bound < found[$1].bound }) {
            if let b = best, found[k].bound > abs(b.signedDistance) { break }
            let d = fences[k].unsafelyUnwrapped.signedDistance(c)
            // An earlier block's region keeps a tie; within the block the lower index does.
            if let b = best, abs(d) > abs(b.signedDistance) || (abs(d) == abs(b.signedDistance) && (b.index < 0 || b.index < k)) { continue }
            best = (k, d)
        }
        if let b = best, b.index >= 0 { nearest = (block[b.index].id, b.signedDistance) }
    }
}
