@testable import Geo
import Testing
import TestSupport

/// A region's polygons are held flat, in 32-bit fixed point where that is exact: every position
/// must read back as the very `Double` it was made from, whatever its decimals.
@Suite struct PolygonsStorage {
    static func bits(_ parts: [[[Coordinate]]]) -> [UInt64] {
        parts.flatMap { $0.flatMap { $0.flatMap { [$0.latitude.bitPattern, $0.longitude.bitPattern] } } }
    }

    static func bits(_ shape: Polygons) -> [UInt64] {
        shape.flatMap { $0.flatMap { $0.flatMap { [$0.latitude.bitPattern, $0.longitude.bitPattern] } } }
    }

    /// Two polygons, the second with two holes: the rings and positions come back in order and in
    /// their own polygon, and seven decimals take 8 bytes a position.
    @Test func sevenDecimalsAreFixedPointAndReadBackInPlace() {
        let outer = [Coordinate(latitude: 38.7000001, longitude: -9.1400002), Coordinate(latitude: 38.7100003, longitude: -9.1400004),
                     Coordinate(latitude: 38.7100005, longitude: -9.1300006), Coordinate(latitude: 38.7000007, longitude: -9.1300008)]
        let hole1 = [Coordinate(latitude: 38.701, longitude: -9.139), Coordinate(latitude: 38.702, longitude: -9.139),
                     Coordinate(latitude: 38.702, longitude: -9.138)]
        let hole2 = [Coordinate(latitude: 38.705, longitude: -9.135), Coordinate(latitude: 38.706, longitude: -9.135),
                     Coordinate(latitude: 38.706, longitude: -9.134), Coordinate(latitude: 38.705, longitude: -9.134),
                     Coordinate(latitude: 38.7055, longitude: -9.1345)]
        let single = [Coordinate(latitude: -90, longitude: -180), Coordinate(latitude: 90, longitude: 180),
                      Coordinate(latitude: 0, longitude: 0)]
        let parts = [[single], [outer, hole1, hole2]]
        let shape = Polygons(parts)
        #expect(shape.isFixedPoint)
        #expect(shape.count == 2 && shape[0].count == 1 && shape[1].count == 3)
        #expect(shape[1].map(\.count) == [4, 3, 5] && shape.ringCount == 4 && shape.positionCount == 15)
        #expect(Array(shape[1][1]) == hole1 && Array(shape[1][2]) == hole2 && Array(shape[0][0]) == single)
        #expect(Self.bits(shape) == Self.bits(parts) && shape.arrays == parts)
        // The header (3 words), each polygon's and each ring's end, then two words a position.
        #expect(shape.words.count == 3 + 2 + 4 + 2 * 15)
    }

    /// One position of more decimals than 32 bits of 10⁻⁷ degree can say keeps the whole shape in
    /// `Double`s; so does −0.0 (its sign would be lost) and anything out of the integers' range.
    @Test func anyInexactPositionKeepsTheShapeInDoubles() {
        let square = [Coordinate(latitude: 38.7, longitude: -9.14), Coordinate(latitude: 38.71, longitude: -9.14),
                      Coordinate(latitude: 38.71, longitude: -9.13)]
        for odd in [Coordinate(latitude: 38.705000000000012, longitude: -9.135), Coordinate(latitude: 38.705, longitude: -0.0),
                    Coordinate(latitude: 38.70512345678, longitude: -9.135), Coordinate(latitude: 1e-8, longitude: 3),
                    Coordinate(latitude: 400, longitude: 3), Coordinate(latitude: .nan, longitude: 3)] {
            let parts = [[square + [odd]]]
            let shape = Polygons(parts)
            #expect(!shape.isFixedPoint, "\(odd)")
            #expect(Self.bits(shape) == Self.bits(parts), "\(odd)")
            #expect(shape.words.count == 3 + 1 + 1 + 4 * 4)
        }
        #expect(Polygons([[square]]).isFixedPoint)
    }

    /// 20,000 positions of 0 to 15 random decimals, in shapes of 1 to 40 positions: each reads
    /// back bit for bit, and every shape of at most 7 decimals is fixed point.
    @Test func randomDecimalsReadBackBitForBit() {
        var rng = SplitMix64(seed: 0x9_01D)
        var fixedSeen = 0, doublesSeen = 0
        for _ in 0..<1_000 {
            let n = Int(rng.uniform(1, 41))
            let decimals = Int(rng.uniform(0, 16))
            let scale = (0..<decimals).reduce(1.0) { r, _ in r * 10 }
            // `+ 0` makes −0.0 (a small negative rounded) 0.0: −0.0 keeps a shape in `Double`s.
            let ring = (0..<n).map { _ in
                Coordinate(latitude: (rng.uniform(-90, 90) * scale).rounded() / scale + 0,
                           longitude: (rng.uniform(-180, 180) * scale).rounded() / scale + 0)
            }
            let shape = Polygons([[ring]])
            #expect(Self.bits(shape) == Self.bits([[ring]]))
            if decimals <= 7 { #expect(shape.isFixedPoint, "\(decimals) decimals") }
            if shape.isFixedPoint { fixedSeen += 1 } else { doublesSeen += 1 }
        }
        #expect(fixedSeen > 400 && doublesSeen > 400)
    }

    /// Equal as the nested arrays are: the same positions in the same rings, whatever the storage.
    @Test func equalityIsThePositions() {
        let a = [Coordinate(latitude: 1, longitude: 2), Coordinate(latitude: 3, longitude: 4), Coordinate(latitude: 5, longitude: 0)]
        var b = a
        b[2].longitude = -0.0
        #expect(Polygons([[a]]) == Polygons([[a]]) && Polygons([[a]]) == Polygons([[b]]))
        #expect(Polygons([[a]]).isFixedPoint && !Polygons([[b]]).isFixedPoint)
        #expect(Polygons([[a]]) != Polygons([[a, a]]) && Polygons([[a]]) != Polygons([[a], [a]]))
        #expect(Polygons([[a]]) != Polygons([[Array(a.reversed())]]))
        let literal: Polygons = [[a]]
        #expect(literal == Polygons([[a]]))
    }
}
