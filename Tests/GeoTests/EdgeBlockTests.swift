import Foundation
@testable import Geo
import Testing
import TestSupport
@testable import Regions

/// The store's signed distance goes through `EdgeBlock`s, which skip runs of edges that cannot
/// count; the answer must be the full scan's (`Fence.signedDistance`), bit for bit.
@Suite struct EdgeBlocks {
    @Test func distancesEqualTheFullScanBitForBit() {
        var rng = SplitMix64(seed: 0xED6E_B10C)
        let g = Geodesic.wgs84
        var regions: [Region] = []
        var fences: [Fence] = []
        for k in 0..<60 {
            let centre = Coordinate(latitude: rng.uniform(-70, 70), longitude: rng.uniform(-179, 179))
            let size = rng.uniform(20, 2_000)
            let n = [3, 5, 8, 9, 16, 17, 40, 64, 200][k % 9]
            let shape = Shape.polygons(Polygons(starPolygon(k, centre, size: size, n: n, rng: &rng)))
            regions.append(Region(id: "p\(k)", kind: .album, name: "p\(k)", shape: shape))
            fences.append(Fence(shape))
        }
        let set = RegionSet(regions)
        var checked = 0, inside = 0
        for (i, f) in fences.enumerated() {
            guard case let .polygons(parts) = f.shape else { continue }
            let vertices = parts.flatMap { $0.flatMap { $0 } }
            for _ in 0..<400 {
                // Near the boundary (on an edge, or a vertex, nudged), or anywhere around.
                let v = vertices[Int(rng.next() % UInt64(vertices.count))]
                let w = vertices[Int(rng.next() % UInt64(vertices.count))]
                let c: Coordinate
                switch rng.next() % 4 {
                case 0: c = g.direct(from: v, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 0.01))
                case 1:
                    let on = g.direct(from: v, bearing: g.inverse(v, w).initialBearing, distance: rng.uniform(0, 1) * g.distance(v, w))
                    c = g.direct(from: on, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 5))
                case 2: c = Coordinate(latitude: v.latitude, longitude: w.longitude)
                default: c = g.direct(from: f.frame.origin, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 5_000))
                }
                let full = f.signedDistance(c), ours = set.signedDistance(i, c)
                #expect(full.bitPattern == ours.bitPattern, "region \(i) at \(c): full scan \(full), blocks \(ours)")
                let p = ECEF(c)
                if !f.core.isFar(p) {
                    let approx = f.vertices.withUnsafeBufferPointer { v in
                        f.ringEnds.withUnsafeBufferPointer { r in f.core.approximateSignedDistance(p, vertices: v, ringEnds: r) }
                    }
                    #expect(approx.bitPattern == set.approximateSignedDistance(i, p).bitPattern)
                }
                checked += 1
                if full > 0 { inside += 1 }
            }
        }
        #expect(checked == 24_000 && inside > 2_000)
    }
}
