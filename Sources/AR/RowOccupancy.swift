/// For `stackOnOneRow`: the rows taken, over ranges of positions of the boxes sorted by x. A
/// segment tree over buckets of 16 positions, each node a bitset of the rows taken by a placed
/// box under it (`words` 64-bit words a node, doubled when a row does not fit); a range's
/// partial buckets are read box by box.
struct RowOccupancy {
    static let bucket = 16
    private let leaves: Int
    private var words = 4
    private var bits: [UInt64]
    /// Per position, the row of its box once placed; −1 before.
    private var rowAt: [Int32]

    init(count n: Int) {
        let buckets = (n + Self.bucket - 1) / Self.bucket
        var leaves = 1
        while leaves < buckets { leaves *= 2 }
        self.leaves = leaves
        bits = [UInt64](repeating: 0, count: 2 * leaves * words)
        rowAt = [Int32](repeating: -1, count: n)
    }

    /// The box at position `p` is placed in row `r`.
    mutating func place(row r: Int, position p: Int) {
        rowAt[p] = Int32(r)
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
        var node = leaves + p / Self.bucket
        while node >= 1 {
            bits[node * words + r / 64] |= 1 << UInt64(r % 64)
            node /= 2
        }
    }

    /// Adds to `nodes` the tree nodes covering the full buckets of `range`, and to `loose` the
    /// rows of the boxes placed in its partial buckets.
    func cover(_ range: Range<Int>, nodes: inout [Int], loose: inout [Int]) {
        let bucket = Self.bucket
        guard !range.isEmpty else { return }
        let start = range.lowerBound, end = range.upperBound
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

    /// The first row that no box of `nodes` and `loose` (sorted) takes, 64 rows at a time.
    func firstFree(nodes: [Int], loose: [Int]) -> Int {
        var k = 0, nextLoose = 0
        while true {
            var occupied: UInt64 = 0
            if k < words { for node in nodes { occupied |= bits[node * words + k] } }
            while nextLoose < loose.count, loose[nextLoose] / 64 == k {
                occupied |= 1 << UInt64(loose[nextLoose] % 64)
                nextLoose += 1
            }
            if occupied != ~0 { return k * 64 + (~occupied).trailingZeroBitCount }
            k += 1
        }
    }
}
