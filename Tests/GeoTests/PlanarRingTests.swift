import Geo
import Testing

@Suite struct PlanarRingTests {
    let square = [Planar(x: 0, y: 0), Planar(x: 10, y: 0), Planar(x: 10, y: 10), Planar(x: 0, y: 10)]

    @Test func areaBySign() {
        #expect(PlanarRing.signedArea(square) == 100)
        #expect(PlanarRing.signedArea(square.reversed()) == -100)
        #expect(PlanarRing.signedArea(Array(square.prefix(2))) == 0)
        // An L: 10×10 less its 5×5 corner.
        let l = [Planar(x: 0, y: 0), Planar(x: 10, y: 0), Planar(x: 10, y: 5), Planar(x: 5, y: 5), Planar(x: 5, y: 10), Planar(x: 0, y: 10)]
        #expect(PlanarRing.signedArea(l) == 75)
    }

    @Test func evenOdd() {
        #expect(PlanarRing.contains(square, Planar(x: 5, y: 5)))
        #expect(!PlanarRing.contains(square, Planar(x: 15, y: 5)))
        #expect(!PlanarRing.contains(square, Planar(x: -1, y: 5)))
        #expect(!PlanarRing.contains([], Planar(x: 0, y: 0)))
        // A ray through a vertex (y = 0 of a diamond's left and right tips) counts once.
        let diamond = [Planar(x: 0, y: -5), Planar(x: 5, y: 0), Planar(x: 0, y: 5), Planar(x: -5, y: 0)]
        #expect(PlanarRing.contains(diamond, Planar(x: 0, y: 0)))
        #expect(!PlanarRing.contains(diamond, Planar(x: -6, y: 0)))
        #expect(!PlanarRing.contains(diamond, Planar(x: 6, y: 0)))
    }

    @Test func crossesIsHalfOpen() {
        let q = Planar(x: 0, y: 0)
        // An edge ending exactly on the ray's line counts only from one side.
        #expect(PlanarRing.crosses(q, Planar(x: 1, y: 0), Planar(x: 1, y: -1)) != PlanarRing.crosses(q, Planar(x: 1, y: 0), Planar(x: 1, y: 1)))
        // Edges left of q never cross a ray going right; horizontal edges never cross.
        #expect(!PlanarRing.crosses(q, Planar(x: -1, y: -1), Planar(x: -1, y: 1)))
        #expect(!PlanarRing.crosses(q, Planar(x: 1, y: 0), Planar(x: 5, y: 0)))
    }
}
