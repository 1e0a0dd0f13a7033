/// Placed boxes of one column, sorted by y descending, in a buffer sized for every box whose x
/// falls in the column (so it never grows). A plain struct of a pointer: reading it costs no
/// reference counting, which on the stacking's hot path was 40% of the time with nested arrays.
struct Column {
    struct Entry {
        var y: Double
        var x: Double
        var width: Double
        var height: Double
        var rank: Int32
    }

    let entries: UnsafeMutablePointer<Entry>
    var count = 0

    init(capacity: Int) { entries = .allocate(capacity: capacity) }

    func deallocate() { entries.deallocate() }

    /// The index of the first entry with y < bound.
    func firstBelow(_ bound: Double) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if entries[mid].y >= bound { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    mutating func insert(_ e: Entry) {
        var i = count
        while i > 0, entries[i - 1].y < e.y {
            entries[i] = entries[i - 1]
            i -= 1
        }
        entries[i] = e
        count += 1
    }
}
