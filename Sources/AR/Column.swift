/// Placed boxes of one column, sorted by y descending, in a buffer sized for every box whose x
/// falls in the column (so it never grows). A plain struct of a pointer: reading it costs no
/// reference counting, which on the stacking's hot path was 40% of the time with nested arrays.
struct Column {
    struct Entry {
        var y: Double
        var x: Double
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

// MARK: - All boxes on one row

extension Stacking {
    /// When every box starts at the same y (offset none, or everything within a manual
    /// threshold), the reference's walk does not depend on its scan order, and its climb is found
    /// in one query instead of lift by lift.
    ///
    /// Why: a lift goes to `other.y − h − 5`, so every placed box lies on the lattice
    /// r₀ = y, rₖ₊₁ = rₖ − h − 5 (with the reference's own rounding). Boxes on different rows are
    /// at least h + 5 apart and never overlap; boxes on one row overlap vertically. So a box on row
    /// k overlaps exactly the placed boxes of row k that overlap it in x, and whichever of them the
    /// scan meets first, the box lands on row k + 1. It stops on the first row where no placed box
    /// is within the x-window (x − w, x + w) (or the alternate frame's): its level is that row's
    /// number. With a cap, it is hidden on the last row it may reach.
    ///
    /// The query: boxes sorted by x in buckets of 16, a segment tree over the buckets, each node
    /// holding the set of rows its placed boxes occupy as a bitset; the x-window is O(log n) nodes
    /// and two partial buckets, and the first row missing from the OR of their bitsets is the
    /// answer, found 64 rows at a time. O(n log n · (1 + rows/64)).
    func stackOnOneRow(_ boxes: [ScreenBox]) -> [Placement] {
        let n = boxes.count
        let w = boxWidth, h = boxHeight, gap = Stacking.gap
        let order = self.order(boxes)

        // The rows, extended as the stacks grow; and how high a box may go under the caps.
        var rows = [boxes[0].y]
        func row(_ k: Int) -> Double {
            while rows.count <= k { rows.append(rows[rows.count - 1] - h - gap) }
            return rows[k]
        }
        var cap = maxLevels ?? Int.max
        if let topLimit {
            var r = 0
            while r < cap, row(r + 1) >= topLimit { r += 1 }
            cap = r
        }

        // Boxes by x; each position holds the row of its box once placed (−1 before).
        let byX = boxes.indices.sorted { boxes[$0].x < boxes[$1].x }
        let xs = byX.map { boxes[$0].x }
        var positionOf = [Int](repeating: 0, count: n)
        for (p, i) in byX.enumerated() { positionOf[i] = p }
        var rowAt = [Int32](repeating: -1, count: n)
        let bucket = 16
        let buckets = (n + bucket - 1) / bucket
        var leaves = 1
        while leaves < buckets { leaves *= 2 }
        var words = 4  // per node, doubled when a row does not fit
        var bits = [UInt64](repeating: 0, count: 2 * leaves * words)

        func setRow(_ r: Int, position p: Int) {
            if r / 64 >= words {
                var more = words
                while r / 64 >= more { more *= 2 }
                var grown = [UInt64](repeating: 0, count: 2 * leaves * more)
                for node in 1..<(2 * leaves) {
                    for k in 0..<words { grown[node * more + k] = bits[node * words + k] }
                }
                bits = grown
                words = more
            }
            var node = leaves + p / bucket
            while node >= 1 {
                bits[node * words + r / 64] |= 1 << UInt64(r % 64)
                node /= 2
            }
        }

        var nodes: [Int] = []
        var loose: [Int] = []  // rows of placed boxes in partial buckets
        var result = [Placement](repeating: Placement(y: 0, level: 0, hidden: false), count: n)
        for index in order {
            let x = boxes[index].x
            nodes.removeAll(keepingCapacity: true)
            loose.removeAll(keepingCapacity: true)
            // Positions whose box the reference's x-test finds overlapping a frame at c: both
            // halves of the test are monotone in x', so they form one range.
            func addWindow(_ c: Double) {
                var lo = 0, hi = n
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if c < xs[mid] + w { hi = mid } else { lo = mid + 1 }
                }
                let start = lo
                hi = n
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if xs[mid] < c + w { lo = mid + 1 } else { hi = mid }
                }
                let end = lo
                guard start < end else { return }
                let firstFull = (start + bucket - 1) / bucket, lastFull = end / bucket  // full buckets [firstFull, lastFull)
                if firstFull >= lastFull {
                    for p in start..<end where rowAt[p] >= 0 { loose.append(Int(rowAt[p])) }
                    return
                }
                for p in start..<(firstFull * bucket) where rowAt[p] >= 0 { loose.append(Int(rowAt[p])) }
                for p in (lastFull * bucket)..<end where rowAt[p] >= 0 { loose.append(Int(rowAt[p])) }
                var l = firstFull + leaves, r = lastFull + leaves
                while l < r {
                    if l & 1 == 1 { nodes.append(l); l += 1 }
                    if r & 1 == 1 { r -= 1; nodes.append(r) }
                    l /= 2
                    r /= 2
                }
            }
            addWindow(x)
            if let alt = alternateX(x) { addWindow(alt) }

            // The first row no box in the window occupies, 64 rows at a time.
            loose.sort()
            var free = 0
            var k = 0, nextLoose = 0
            while true {
                var occupied: UInt64 = 0
                if k < words { for node in nodes { occupied |= bits[node * words + k] } }
                while nextLoose < loose.count, loose[nextLoose] / 64 == k {
                    occupied |= 1 << UInt64(loose[nextLoose] % 64)
                    nextLoose += 1
                }
                if occupied != ~0 {
                    free = k * 64 + (~occupied).trailingZeroBitCount
                    break
                }
                k += 1
            }
            if free > cap {
                result[index] = Placement(y: row(cap), level: cap, hidden: true)
            } else {
                result[index] = Placement(y: row(free), level: free, hidden: false)
                rowAt[positionOf[index]] = Int32(free)
                setRow(free, position: positionOf[index])
            }
        }
        return result
    }
}
