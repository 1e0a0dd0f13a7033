@testable import Geo
import Testing
import TestSupport

/// The points' Morton order (a radix sort of their keys) against a stable comparison sort of
/// the same keys: the same indices in the same order, ties in the order the keys come.
struct StableOrder {
    /// What `Bits.stableOrder` must give: a stable sort's order.
    static func reference(_ keys: [UInt64]) -> [Int32] {
        let keyed: [(key: UInt64, index: Int32)] = keys.enumerated().map { ($0.element, Int32($0.offset)) }
        return keyed.sorted { a, b in a.key != b.key ? a.key < b.key : a.index < b.index }.map(\.index)
    }

    @Test(arguments: [0, 1, 2, 64, 65, 257, 10_000])
    func keysOfEveryByteAndManyTies(count: Int) {
        var random = SplitMix64(seed: UInt64(count) &+ 7)
        // Keys over all 64 bits, keys that differ only in their low bytes (every high byte
        // shared, so those passes are skipped), and keys of 15 values, each many times.
        let wide = (0..<count).map { _ in random.next() }
        let narrow = (0..<count).map { _ in 0xABCD_EF01_2345_0000 | random.next() & 0xFFFF }
        let ties = (0..<count).map { _ in (random.next() % 5) << 40 | (random.next() % 3) }
        // One byte, three bytes, and two bytes with six shared between them: an odd number of
        // passes, and a pass skipped between two that are not.
        let oneByte = wide.map { $0 & 0xFF }, threeBytes = wide.map { $0 & 0xFF_FFFF }, apart = wide.map { $0 & 0xFF00_0000_0000_00FF }
        for keys in [wide, narrow, ties, oneByte, threeBytes, apart, [UInt64](repeating: 42, count: count), Array(wide.sorted().reversed())] {
            #expect(Bits.stableOrder(keys) == Self.reference(keys))
        }
    }

    @Test func theMortonOrderOfPointsAnywhereAndTwins() {
        var random = SplitMix64(seed: 35)
        var points: [Coordinate] = []
        for k in 0..<5_000 {
            // A 20 km disc (the keys' high bytes shared), the whole globe, its corners, and twins.
            let local = Coordinate(latitude: 38.7 + random.uniform(-0.1, 0.1), longitude: -9.14 + random.uniform(-0.12, 0.12))
            let anywhere = Coordinate(latitude: random.uniform(-90, 90), longitude: random.uniform(-180, 180))
            points.append(k % 3 == 0 ? anywhere : local)
            if k % 7 == 0 { points.append(points[Int(random.next() % UInt64(points.count))]) }
        }
        points += [Coordinate(latitude: -90, longitude: -180), Coordinate(latitude: 90, longitude: 180), Coordinate(latitude: 0, longitude: 0)]
        let keys = points.map { c in
            let y = UInt32(max(0, min(4_294_967_295, (c.latitude + 90) / 180 * 4_294_967_295)))
            let x = UInt32(max(0, min(4_294_967_295, (c.longitude + 180) / 360 * 4_294_967_295)))
            return Bits.spread(x) | Bits.spread(y) << 1
        }
        let order = FenceSet.mortonOrder(points)
        #expect(order == Self.reference(keys))
        #expect(Set(order).count == points.count)
    }
}
