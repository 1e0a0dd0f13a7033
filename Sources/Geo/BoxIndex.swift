/// A static R-tree over latitude/longitude boxes, packed once by Sort-Tile-Recursive.
///
/// Nodes hold 16 children; every level is four flat arrays of box edges, so a query walks
/// contiguous memory and allocates nothing: a point query costs about O(log K + hits).
public struct BoxIndex: Sendable {
    public static let fanout = 16
    /// Per level, bottom (the entries) to top: box edges.
    @usableFromInline var minLat: [[Double]] = []
    @usableFromInline var minLon: [[Double]] = []
    @usableFromInline var maxLat: [[Double]] = []
    @usableFromInline var maxLon: [[Double]] = []
    /// The item each entry stands for, in packed order.
    @usableFromInline var items: [Int32] = []

    public var count: Int { items.count }

    public init(_ entries: [(box: GeoBox, item: Int32)]) {
        guard !entries.isEmpty else { return }
        // Sort-Tile-Recursive: slices by longitude, then by latitude within a slice.
        let n = entries.count
        let leaves = (n + Self.fanout - 1) / Self.fanout
        let slices = Int(Double(leaves).squareRoot().rounded(.up))
        let perSlice = slices * Self.fanout
        func centerLon(_ i: Int) -> Double { (entries[i].box.minLon + entries[i].box.maxLon) / 2 }
        func centerLat(_ i: Int) -> Double { (entries[i].box.minLat + entries[i].box.maxLat) / 2 }
        var order = Array(0..<n).sorted { centerLon($0) < centerLon($1) }
        var start = 0
        while start < n {
            let end = min(n, start + perSlice)
            order[start..<end].sort { centerLat($0) < centerLat($1) }
            start = end
        }
        var a = [Double](), b = [Double](), c = [Double](), d = [Double]()
        a.reserveCapacity(n); b.reserveCapacity(n); c.reserveCapacity(n); d.reserveCapacity(n)
        items.reserveCapacity(n)
        for i in order {
            let box = entries[i].box
            a.append(box.minLat); b.append(box.minLon); c.append(box.maxLat); d.append(box.maxLon)
            items.append(entries[i].item)
        }
        minLat.append(a); minLon.append(b); maxLat.append(c); maxLon.append(d)
        // Upper levels: each node covers 16 consecutive nodes of the level below.
        while minLat[minLat.count - 1].count > Self.fanout {
            let l = minLat.count - 1
            let below = minLat[l].count
            var na = [Double](), nb = [Double](), nc = [Double](), nd = [Double]()
            var k = 0
            while k < below {
                let e = min(below, k + Self.fanout)
                na.append(minLat[l][k..<e].min()!)
                nb.append(minLon[l][k..<e].min()!)
                nc.append(maxLat[l][k..<e].max()!)
                nd.append(maxLon[l][k..<e].max()!)
                k = e
            }
            minLat.append(na); minLon.append(nb); maxLat.append(nc); maxLon.append(nd)
        }
    }

    /// Calls `body` with the item of every entry whose box intersects `q` (an item whose fence
    /// was split at the antimeridian can come twice for a query box that spans both halves).
    @inlinable
    public func forEach(intersecting q: GeoBox, _ body: (Int32) -> Void) {
        guard !items.isEmpty else { return }
        let top = minLat.count - 1
        for node in 0..<minLat[top].count where intersects(top, node, q) {
            if top == 0 { body(items[node]) } else { descend(top, node, q, body) }
        }
    }

    @inlinable
    func intersects(_ level: Int, _ i: Int, _ q: GeoBox) -> Bool {
        minLat[level][i] <= q.maxLat && maxLat[level][i] >= q.minLat && minLon[level][i] <= q.maxLon && maxLon[level][i] >= q.minLon
    }

    @usableFromInline
    func descend(_ level: Int, _ node: Int, _ q: GeoBox, _ body: (Int32) -> Void) {
        let below = level - 1
        let lo = node * Self.fanout, hi = min(lo + Self.fanout, minLat[below].count)
        minLat[below].withUnsafeBufferPointer { a in
            maxLat[below].withUnsafeBufferPointer { c in
                minLon[below].withUnsafeBufferPointer { b in
                    maxLon[below].withUnsafeBufferPointer { d in
                        for i in lo..<hi where a[i] <= q.maxLat && c[i] >= q.minLat && b[i] <= q.maxLon && d[i] >= q.minLon {
                            if below == 0 { body(items[i]) } else { descend(below, i, q, body) }
                        }
                    }
                }
            }
        }
    }
}
