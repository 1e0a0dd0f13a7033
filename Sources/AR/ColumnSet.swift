/// For `Stacking.walk`: the screen cut in columns of the widest box's width, keyed by
/// floor(x / w), each a `Column` of the placed boxes whose x falls in it, sized for all of them.
/// Pointers, not arrays: the climb reads them in its innermost loop. `deallocate()` when done.
struct ColumnSet {
    /// The widest box: a box overlapping a frame at c has its x within this of c.
    let width: Double
    /// Column index by key, for the keys some box has.
    private var index: [Int: Int] = [:]
    private let columns: UnsafeMutablePointer<Column>
    private let count: Int

    init(_ boxes: [ScreenBox], width: Double) {
        self.width = width
        index.reserveCapacity(boxes.count)
        var sizes: [Int] = []
        for b in boxes {
            let k = Self.key(b.x, width)
            if let c = index[k] { sizes[c] += 1 } else { index[k] = sizes.count; sizes.append(1) }
        }
        columns = .allocate(capacity: sizes.count)
        for (c, size) in sizes.enumerated() { columns.advanced(by: c).initialize(to: Column(capacity: size)) }
        count = sizes.count
    }

    func deallocate() {
        for c in 0..<count { columns[c].deallocate() }
        columns.deallocate()
    }

    @inline(__always)
    static func key(_ x: Double, _ width: Double) -> Int {
        let k = (x / width).rounded(.down)
        return Int(max(-1e15, min(1e15, k)))
    }

    @inline(__always)
    subscript(_ c: Int) -> Column { columns[c] }

    /// Adds to `queried` (once each) the columns that can hold a box overlapping a frame at `c`:
    /// |x' − c| < w (the widest box) up to rounding, so three columns, or four when c sits on a
    /// column edge. The slack, over 4 ulps of |c| + w, covers the rounding of the reference's x + w.
    ///
    /// The keys between are at most a handful for any width the options allow; whatever the
    /// numbers, the loop is bounded by the columns there are (a key range wider than that is
    /// answered from the columns' keys instead).
    func addColumns(around c: Double, to queried: inout [Int]) {
        let w = width
        let slack = (abs(c) + w) * 1e-15
        let low = Self.key(c - w - slack, w), high = Self.key(c + w + slack, w)
        guard low <= high else { return }
        if high - low <= count {
            for k in low...high {
                if let col = index[k], !queried.contains(col) { queried.append(col) }
            }
        } else {
            for (k, col) in index.sorted(by: { $0.key < $1.key }) where low <= k && k <= high && !queried.contains(col) { queried.append(col) }
        }
    }

    /// Places a box in its column.
    func insert(_ e: Column.Entry) {
        columns[index[Self.key(e.x, width)]!].insert(e)
    }

    /// Among the placed boxes of the `queried` columns from their `cursors` on, with y in
    /// (lower, upper), those the reference's overlap test finds overlapping a w×h box at (x, y) —
    /// or at (alternate, y), its frame across the seam: the one of least rank ≥ `pointer` (`next`)
    /// and the one of least rank (`first`), `Int32.max` when none. Moves each cursor past the
    /// boxes above `upper`, which can no longer overlap as the box only climbs.
    @inline(__always)
    func hits(_ queried: [Int], _ cursors: inout [Int], x: Double, alternate: Double?, y: Double, w: Double, h: Double, upper: Double,
              lower: Double, pointer: Int32) -> (next: Int32, nextY: Double, first: Int32, firstY: Double) {
        let hasAlt = alternate != nil, ax = alternate ?? 0
        var next = Int32.max, nextY = 0.0
        var first = Int32.max, firstY = 0.0
        for q in 0..<queried.count {
            let column = columns[queried[q]]
            var j = cursors[q]
            while j < column.count, column.entries[j].y >= upper { j += 1 }
            cursors[q] = j
            while j < column.count {
                let e = column.entries[j]
                if e.y <= lower { break }
                // The reference's test, the primary frame then the alternate one.
                if (x < e.x + e.width && e.x < x + w && y < e.y + e.height && e.y < y + h)
                    || (hasAlt && ax < e.x + e.width && e.x < ax + w && y < e.y + e.height && e.y < y + h) {
                    if e.rank >= pointer, e.rank < next { next = e.rank; nextY = e.y }
                    if e.rank < first { first = e.rank; firstY = e.y }
                }
                j += 1
            }
        }
        return (next, nextY, first, firstY)
    }
}
