/// Per region, the boxes covering its fence: one, or two for a fence across the antimeridian
/// (`Fence.boxes(of:)`). Flat: each region's first box in one array, the few second boxes apart
/// with their regions' indices. A country's 100,000 regions take 3.2 MB, not the 6.4 MB of an
/// array of arrays.
public struct FenceBoxes: Sendable, RandomAccessCollection, Equatable {
    private let first: [GeoBox]
    /// The regions with a second box, ascending, and their second boxes.
    private let secondOf: [Int32]
    private let second: [GeoBox]

    /// Each region's boxes, one or two.
    public init(_ boxes: [[GeoBox]]) {
        precondition(boxes.allSatisfy { (1...2).contains($0.count) }, "a fence has one box, or two across the antimeridian")
        first = boxes.map { $0[0] }
        secondOf = boxes.indices.filter { boxes[$0].count == 2 }.map(Int32.init)
        second = secondOf.map { boxes[Int($0)][1] }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { first.count }

    /// For a prepared store.
    func write(to w: inout StoreWriter) {
        w.array(first)
        w.array(secondOf)
        w.array(second)
    }

    /// From a prepared store: `count` regions' boxes.
    init(reading r: inout StoreReader, count: Int) throws(StoreFormatError) {
        first = try r.array("boxes")
        secondOf = try r.array("regions with a second box")
        second = try r.array("second boxes")
        guard first.count == count else { throw StoreFormatError("\(first.count) regions' boxes for \(count) regions") }
        guard second.count == secondOf.count,
              zip(secondOf, secondOf.dropFirst()).allSatisfy({ $0 < $1 }), secondOf.allSatisfy({ $0 >= 0 && Int($0) < count }) else {
            throw StoreFormatError("the second boxes are not one per region named, in order")
        }
    }

    /// Region `i`'s boxes.
    @inlinable
    public subscript(i: Int) -> Boxes { Boxes(first: box(i), second: secondBox(i)) }

    @usableFromInline func box(_ i: Int) -> GeoBox { first[i] }

    @usableFromInline func secondBox(_ i: Int) -> GeoBox? {
        guard !secondOf.isEmpty else { return nil }
        var lo = 0, hi = secondOf.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if Int(secondOf[mid]) < i { lo = mid + 1 } else { hi = mid }
        }
        return lo < secondOf.count && Int(secondOf[lo]) == i ? second[lo] : nil
    }

    /// One region's boxes, without an allocation.
    public struct Boxes: Sendable, RandomAccessCollection, Equatable {
        public let first: GeoBox
        public let second: GeoBox?

        @inlinable
        public init(first: GeoBox, second: GeoBox?) {
            self.first = first
            self.second = second
        }

        public var startIndex: Int { 0 }
        public var endIndex: Int { second == nil ? 1 : 2 }

        @inlinable
        public subscript(k: Int) -> GeoBox {
            precondition(k >= 0 && k < count, "box index out of range")
            return k == 0 ? first : second.unsafelyUnwrapped
        }
    }
}
