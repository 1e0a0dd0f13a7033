import Foundation
@testable import Geo
import Testing
import TestSupport

/// `Raster` visits only the rows an edge reaches and buckets the crossings; its words must be
/// those of the plain build it replaced (every edge against every row), bit for bit.
@Suite struct RasterTests {
    @Test func wordsEqualThePlainBuild() {
        var rng = SplitMix64(seed: 0x5A57_E201)
        for k in 0..<2_000 {
            var v: [Planar] = []
            var ends: [Int32] = []
            let rings = 1 + k % 3
            for r in 0..<rings {
                let n = [3, 4, 5, 8, 17, 40, 64, 200][(k + r) % 8]
                let (cx, cy) = (rng.uniform(-50, 50), rng.uniform(-50, 50))
                let size = rng.uniform(1, 3_000) / Double(r + 1)
                for i in 0..<n {
                    let a = Double(i) / Double(n) * 2 * .pi, d = size * rng.uniform(0.3, 1)
                    // Some rings with axis-aligned runs: edges on a row's centre line, vertices on it.
                    let x = k % 5 == 0 ? (cx + d * cos(a)).rounded() : cx + d * cos(a)
                    let y = k % 5 == 0 ? (cy + d * sin(a)).rounded() : cy + d * sin(a)
                    v.append(Planar(x: x, y: y))
                }
                ends.append(Int32(v.count))
            }
            let fast = Raster(vertices: v, ringEnds: ends)
            #expect(fast.words == Self.plainWords(v, ends, fast), "raster \(k)")
        }
    }

    /// The build before the bucketed one: every edge against every row's centre line.
    static func plainWords(_ v: [Planar], _ ringEnds: [Int32], _ r: Raster) -> [UInt64] {
        let n = FenceCore.gridSide
        // The box and cell size as the build computes them.
        var maxX = -Double.infinity, maxY = -Double.infinity, minX = Double.infinity, minY = Double.infinity
        for p in v { minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y) }
        let padX = (maxX - minX) * 1e-9 + 1e-9, padY = (maxY - minY) * 1e-9 + 1e-9
        minX -= padX
        minY -= padY
        let width = maxX + padX - minX, height = maxY + padY - minY
        let w = width / Double(n), h = height / Double(n)
        var words = [UInt64](repeating: 0, count: FenceCore.gridWords)
        var edge = [Bool](repeating: false, count: n * n)
        func forEachEdge(_ body: (Planar, Planar) -> Void) {
            var start = 0
            for e in ringEnds {
                var b = v[Int(e) - 1]
                for i in start..<Int(e) { body(b, v[i]); b = v[i] }
                start = Int(e)
            }
        }
        forEachEdge { b, a in
            let x0 = max(0, Int((min(a.x, b.x) - minX) * r.scaleX) - 1), x1 = min(n - 1, Int((max(a.x, b.x) - minX) * r.scaleX) + 1)
            let y0 = max(0, Int((min(a.y, b.y) - minY) * r.scaleY) - 1), y1 = min(n - 1, Int((max(a.y, b.y) - minY) * r.scaleY) + 1)
            for cy in y0...y1 {
                for cx in x0...x1 {
                    let lx = minX + Double(cx) * w, ly = minY + Double(cy) * h
                    if Raster.segment(b, a, meetsBoxX: lx - w * 1e-6, lx + w * (1 + 1e-6), y: ly - h * 1e-6, ly + h * (1 + 1e-6)) {
                        edge[cy * n + cx] = true
                    }
                }
            }
        }
        for cy in 0..<n {
            let y = minY + (Double(cy) + 0.5) * h
            var xs: [Double] = []
            forEachEdge { b, a in
                if (a.y > y) != (b.y > y) { xs.append((b.x - a.x) * (y - a.y) / (b.y - a.y) + a.x) }
            }
            xs.sort()
            var k = 0
            for cx in 0..<n {
                let cell = cy * n + cx
                let x = minX + (Double(cx) + 0.5) * w
                while k < xs.count, xs[k] <= x { k += 1 }
                let state: UInt64 = edge[cell] ? FenceCore.cellEdge : (k % 2 == 1 ? FenceCore.cellInside : FenceCore.cellOutside)
                words[cell >> 5] |= state << UInt64((cell & 31) * 2)
            }
        }
        return words
    }
}

/// `RegionSet` indexes `Fence.boxes(of:)` before it builds the fences; they must be the boxes
/// the fences have, to the bit, near the poles and across the antimeridian too.
@Suite struct FenceBoxesBeforeTheFence {
    @Test func boxesOfAShapeAreTheFencesBoxes() {
        var rng = SplitMix64(seed: 0xB0C5_EE01)
        for k in 0..<300 {
            let centre = Coordinate(latitude: rng.uniform(-85, 85), longitude: k % 4 == 0 ? 179.99 : rng.uniform(-180, 180))
            let size = rng.uniform(5, 200_000)
            let shape: Shape = k % 5 == 0
                ? .circle(center: centre, radius: size)
                : .polygons([[starRing(centre, n: 3 + k % 60, lo: size * 0.5, hi: size, rng: &rng)]])
            #expect(Fence.boxes(of: shape) == Fence(shape).boxes, "shape \(k)")
        }
    }
}
