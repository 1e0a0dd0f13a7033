/// Items sorted into numbered buckets, packed in two arrays: bucket `k` holds
/// `items[start[k]..<start[k + 1]]`, in item order. The spatial indexes over edges (bands of a
/// ring for the even-odd test, cells of an area for proximity) are all built this way: one pass
/// counts, a prefix sum places, a second pass fills — no array per bucket.
public struct Buckets: Sendable {
    /// Where each bucket starts in `items`, plus the end: one more offset than there are buckets.
    public let start: [Int32]
    /// Item numbers, bucket after bucket.
    public let items: [Int32]

    /// `place(i, add)` must call `add(k)` for each bucket `k` (in `0..<buckets`) that item `i`
    /// goes into, the same ones each time: it is called twice per item.
    @inlinable
    public init(buckets: Int, items count: Int, place: (Int, (Int) -> Void) -> Void) {
        var start = [Int32](repeating: 0, count: buckets + 1)
        for i in 0..<count { place(i) { start[$0 + 1] += 1 } }
        for k in 0..<buckets { start[k + 1] += start[k] }
        var fill = Array(start[0..<buckets])
        var items = [Int32](repeating: 0, count: Int(start[buckets]))
        for i in 0..<count {
            place(i) { k in
                items[Int(fill[k])] = Int32(i)
                fill[k] += 1
            }
        }
        self.start = start
        self.items = items
    }

    /// No buckets, no items.
    public static let empty = Buckets(buckets: 0, items: 0) { _, _ in }

    /// The positions in `items` of bucket `k`'s items.
    @inlinable
    public func range(_ k: Int) -> Range<Int> { Int(start[k])..<Int(start[k + 1]) }

    /// Whether bucket `k` is empty.
    @inlinable
    public func isEmpty(_ k: Int) -> Bool { start[k] == start[k + 1] }
}
