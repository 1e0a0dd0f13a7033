/// A static R-tree over latitude/longitude boxes, packed once by Sort-Tile-Recursive.
///
/// Nodes hold 16 children. All levels live in one flat array of boxes (entries first, root
/// level last), and a query walks it with a small fixed stack: no allocation, no reference
/// counting, about O(log K + hits) per point.
public struct BoxIndex: Sendable {
    /// Children per node.
    public static let fanout = 16

    @usableFromInline
    struct Box: Sendable {
        @usableFromInline var minLat: Double, minLon: Double, maxLat: Double, maxLon: Double
        @inlinable init(_ b: GeoBox) {
            minLat = b.minLat
            minLon = b.minLon
            maxLat = b.maxLat
            maxLon = b.maxLon
        }
        @inlinable func intersects(_ q: GeoBox) -> Bool {
            minLat <= q.maxLat && maxLat >= q.minLat && minLon <= q.maxLon && maxLon >= q.minLon
        }
    }

    /// Every level's boxes, bottom (entries) to top.
    @usableFromInline var boxes: [Box] = []
    /// Where each level starts in `boxes`, plus the end.
    @usableFromInline var levelStart: [Int] = []
    /// The item each entry stands for, in packed order.
    @usableFromInline var items: [Int32] = []

    /// The number of entries (boxes) indexed.
    public var count: Int { items.count }

    /// Packs `entries`, each a box and the item it stands for; an item may have several boxes.
    public init(_ entries: [(box: GeoBox, item: Int32)]) {
        guard !entries.isEmpty else { return }
        // Sort-Tile-Recursive: slices by longitude, then by latitude within a slice.
        let n = entries.count
        let leaves = (n + Self.fanout - 1) / Self.fanout
        let slices = Int(Double(leaves).squareRoot().rounded(.up))
        let perSlice = slices * Self.fanout
        let centerLon = entries.map { ($0.box.minLon + $0.box.maxLon) / 2 }
        let centerLat = entries.map { ($0.box.minLat + $0.box.maxLat) / 2 }
        var order = Array(0..<n).sorted { centerLon[$0] < centerLon[$1] }
        var start = 0
        while start < n {
            let end = min(n, start + perSlice)
            order[start..<end].sort { centerLat[$0] < centerLat[$1] }
            start = end
        }
        boxes.reserveCapacity(n + n / (Self.fanout - 1) + 2)
        for i in order {
            boxes.append(Box(entries[i].box))
            items.append(entries[i].item)
        }
        addUpperLevels()
    }

    /// An index from a prepared store: its entries' boxes and items in packed order, as
    /// `entryBoxes` and `items` give them; the upper levels are made again. nil when the counts
    /// differ.
    init?(entryBoxes: [GeoBox], items: [Int32]) {
        guard entryBoxes.count == items.count else { return nil }
        guard !items.isEmpty else { return }
        boxes.reserveCapacity(items.count + items.count / (Self.fanout - 1) + 2)
        for b in entryBoxes { boxes.append(Box(b)) }
        self.items = items
        addUpperLevels()
    }

    /// The entries' boxes in packed order, for a prepared store.
    var entryBoxes: [GeoBox] {
        boxes.prefix(items.count).map { GeoBox(minLat: $0.minLat, minLon: $0.minLon, maxLat: $0.maxLat, maxLon: $0.maxLon) }
    }

    /// Every level above the entries: each node covers 16 consecutive nodes of the level below.
    private mutating func addUpperLevels() {
        levelStart = [0, items.count]
        while levelStart[levelStart.count - 1] - levelStart[levelStart.count - 2] > Self.fanout {
            let lo = levelStart[levelStart.count - 2], hi = levelStart[levelStart.count - 1]
            var k = lo
            while k < hi {
                let e = min(hi, k + Self.fanout)
                var b = boxes[k]
                for j in (k + 1)..<e {
                    b.minLat = min(b.minLat, boxes[j].minLat)
                    b.minLon = min(b.minLon, boxes[j].minLon)
                    b.maxLat = max(b.maxLat, boxes[j].maxLat)
                    b.maxLon = max(b.maxLon, boxes[j].maxLon)
                }
                boxes.append(b)
                k = e
            }
            levelStart.append(boxes.count)
        }
    }

    /// Renames every item (e.g. to the order in which the entries are packed).
    mutating func remapItems(_ f: (Int32) -> Int32) {
        for k in items.indices { items[k] = f(items[k]) }
    }

    /// Calls `body` with the item of every entry whose box intersects `q` (an item whose fence
    /// was split at the antimeridian can come twice for a query box that spans both halves).
    @inlinable
    public func forEach(intersecting q: GeoBox, _ body: (Int32) -> Void) {
        withBuffers { $0.forEach(intersecting: q, body) }
    }

    /// The index's arrays, held for many queries (`Buffers.forEach(intersecting:_:)`): a query
    /// alone takes them each time, which for a point costs about what its search does.
    @inlinable
    func withBuffers<T>(_ body: (Buffers) -> T) -> T {
        boxes.withUnsafeBufferPointer { b in
            levelStart.withUnsafeBufferPointer { ls in
                items.withUnsafeBufferPointer { it in body(Buffers(boxes: b, levelStart: ls, items: it)) }
            }
        }
    }

    @usableFromInline
    struct Buffers {
        @usableFromInline let boxes: UnsafeBufferPointer<Box>
        @usableFromInline let levelStart: UnsafeBufferPointer<Int>
        @usableFromInline let items: UnsafeBufferPointer<Int32>

        @inlinable init(boxes: UnsafeBufferPointer<Box>, levelStart: UnsafeBufferPointer<Int>, items: UnsafeBufferPointer<Int32>) {
            self.boxes = boxes
            self.levelStart = levelStart
            self.items = items
        }

        @inlinable
        func forEach(intersecting q: GeoBox, _ body: (Int32) -> Void) {
            guard !items.isEmpty else { return }
            let b = boxes, ls = levelStart, it = items
            let top = ls.count - 2
            // Depth-first with an explicit stack of (level, node); depth ≤ levels × fanout.
            withUnsafeTemporaryAllocation(of: (Int32, Int32).self, capacity: (top + 1) * BoxIndex.fanout) { stack in
                var sp = 0
                for node in ls[top]..<ls[top + 1] where b[node].intersects(q) {
                    stack[sp] = (Int32(top), Int32(node - ls[top]))
                    sp += 1
                }
                while sp > 0 {
                    sp -= 1
                    let (level, node) = (Int(stack[sp].0), Int(stack[sp].1))
                    if level == 0 {
                        body(it[node])
                        continue
                    }
                    let below = level - 1
                    let lo = ls[below] + node * BoxIndex.fanout
                    let hi = min(lo + BoxIndex.fanout, ls[below + 1])
                    for child in lo..<hi where b[child].intersects(q) {
                        if below == 0 {
                            body(it[child])
                        } else {
                            stack[sp] = (Int32(below), Int32(child - ls[below]))
                            sp += 1
                        }
                    }
                }
            }
        }
    }
}
