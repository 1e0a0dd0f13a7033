import Foundation
@testable import Geo
import Testing
import TestSupport
@testable import Regions
import Rules

/// The shortcuts that make loading a country's fences for a few queries cheaper must not change
/// an answer.
@Suite struct FewQueries {
    /// A set without rasters (`treeline where --at`) answers as the set with them: the same
    /// regions contain each point, the same boundary is nearest at the same distance. Points near
    /// edges and vertices, in holes, and far away; 60 fences with holes and parts.
    @Test func aSetWithoutRastersAnswersAsTheSetWithThem() {
        var rng = SplitMix64(seed: 0xFE3_0E5)
        let g = Geodesic.wgs84
        var regions: [Region] = []
        let base = Coordinate(latitude: 38.7, longitude: -9.14)
        for k in 0..<60 {
            let centre = g.direct(from: base, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 5_000))
            let size = rng.uniform(20, 1_500)
            let parts = starPolygon(k, centre, size: size, n: [3, 5, 8, 17, 40, 64, 65, 200][k % 8], rng: &rng)
            regions.append(Region(id: "p\(k)", kind: .album, name: "p\(k)", shape: k % 10 == 9 ? .circle(center: centre, radius: size) : .polygons(Polygons(parts))))
        }
        let with = RegionSet(regions), without = RegionSet(regions, rasters: false)
        #expect(without.fences.grids.allSatisfy { $0 == Raster.allEdgeWord } && !with.fences.grids.elementsEqual(without.fences.grids))
        // Marked afterwards (a daemon's start), the rasters are the ones built at once, bit for
        // bit, and the rest is the unmarked set's own arrays, shared.
        let marked = without.withRasters(parallel: true)
        #expect(marked.fences.grids.elementsEqual(with.fences.grids) && without.fences.grids.allSatisfy { $0 == Raster.allEdgeWord })
        let shared = marked.fences.vertices.withUnsafeBufferPointer { a in without.fences.vertices.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
        #expect(shared)
        #expect(marked.fences.generation != without.fences.generation)
        var monitor = RegionMonitor(regions: without)
        let apart = monitor.takeRasters(RegionSet(regions.map { $0 }))
        #expect(!apart, "a set built apart (another array, even of the same regions) is refused")
        let taken = monitor.takeRasters(marked)
        #expect(taken && monitor.regions.fences.grids.elementsEqual(with.fences.grids))
        var inside = 0
        for k in 0..<20_000 {
            let c: Coordinate
            if k % 2 == 0, case let .polygons(parts) = regions[Int(rng.next() % 60)].shape {
                let ring = parts[0][0]
                c = g.direct(from: ring[Int(rng.next() % UInt64(ring.count))], bearing: rng.uniform(0, 360), distance: rng.uniform(0, 30))
            } else {
                c = g.direct(from: base, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 8_000))
            }
            let a = with.containing(c).sorted(), b = without.containing(c).sorted()
            #expect(a == b, "point \(k) at \(c)")
            inside += a.isEmpty ? 0 : 1
            let na = with.nearestBoundary(c), nb = without.nearestBoundary(c)
            #expect(na?.index == nb?.index && na?.signedDistance == nb?.signedDistance, "point \(k) at \(c)")
        }
        #expect(inside > 2_000, "the points test insides too")
    }

    /// Small rings are checked pair by pair, large ones through a quadtree of their edges: both
    /// report the same least pair that meets, and the same crossings of two rings, on rings that
    /// fold, touch, run along themselves or are fine (3,000 seeded rings of 3 to 64 vertices).
    @Test func pairwiseEqualsTheQuadtree() {
        var rng = SplitMix64(seed: 0x5E1F)
        var crossing = 0, crossed = 0
        for k in 0..<3_000 {
            let n = 3 + k % 62
            var r: [Planar] = (0..<n).map { i in
                let a = Double(i) / Double(n) * 2 * .pi, d = rng.uniform(50, 100)
                return Planar(x: d * cos(a), y: d * sin(a))
            }
            switch k % 4 {
            case 0: r.swapAt(Int(rng.next() % UInt64(n)), Int(rng.next() % UInt64(n)))  // a fold
            case 1: r = r.map { Planar(x: ($0.x / 20).rounded() * 20, y: ($0.y / 20).rounded() * 20) }  // on a grid: touches, collinear runs
            case 2: r[Int(rng.next() % UInt64(n))] = r[Int(rng.next() % UInt64(n))]  // a repeated vertex
            default: break
            }
            let pairwise = PolygonCheck.selfIntersectionPairwise(r), quadtree = PolygonCheck.selfIntersectionByQuadtree(r)
            #expect(pairwise?.0 == quadtree?.0 && pairwise?.1 == quadtree?.1, "ring \(k): \(r)")
            crossing += pairwise == nil ? 0 : 1
            // A hole well inside, a ring far off, or one across the boundary.
            let (lo, hi, off) = [(5.0, 40.0, 0.0), (20.0, 60.0, 500.0), (20.0, 120.0, 30.0)][k % 3]
            let q: [Planar] = (0..<(3 + k % 20)).map { i in
                let a = Double(i) / Double(3 + k % 20) * 2 * .pi, d = rng.uniform(lo, hi)
                return Planar(x: d * cos(a) + off, y: d * sin(a))
            }
            let cp = PolygonCheck.ringsCrossPairwise(r, q)
            #expect(cp == PolygonCheck.ringsCrossByQuadtree(r, q), "rings \(k)")
            crossed += cp ? 1 : 0
        }
        #expect(crossing > 500 && crossing < 2_900, "both fine and broken rings: \(crossing)")
        #expect(crossed > 300 && crossed < 2_900, "both crossing and apart: \(crossed)")
    }
}

extension FewQueries {
    /// A file of many features is read, and its fences built, across the cores: the regions, the
    /// issues and their order, and the built store are those of one thread (6,000 features, some
    /// crossing themselves, without a kind, or with an id seen before).
    @Test func acrossTheCoresAsOnOneThread() throws {
        var rng = SplitMix64(seed: 0xC0_4E5)
        func features(broken: Bool) -> [String] {
            (0..<6_000).map { k in
                let lon = -9.14 + rng.uniform(-0.05, 0.05), lat = 38.7 + rng.uniform(-0.05, 0.05)
                let id = broken && k % 997 == 5 ? "f\(k - 3)" : "f\(k)"
                if k % 4 == 0 { return circleFeature(id, lon: lon, lat: lat, radius: rng.uniform(5, 300)) }
                let n = 3 + k % 60, size = rng.uniform(0.0002, 0.003)
                var ring = (0..<n).map { i -> (Double, Double) in
                    let a = Double(i) / Double(n) * 2 * .pi, d = size * rng.uniform(0.5, 1)
                    return (lon + d * cos(a), lat + d * sin(a))
                }
                if broken && k % 613 == 7 { ring.swapAt(0, n / 2) }  // crosses itself
                return polygonFeature(id, [closed(ring)], kind: broken && k % 1_201 == 11 ? "alb" : "album")
            }
        }
        let good = collection(features(broken: false))
        let many = try RegionFile.parse(good, file: "good.geojson", parallel: true)
        #expect(try many == RegionFile.parse(good, file: "good.geojson", parallel: false))
        #expect(many.count == 6_000)

        let bad = collection(features(broken: true))
        func issues(_ parallel: Bool) -> [String] {
            do {
                _ = try RegionFile.parse(bad, file: "bad.geojson", parallel: parallel)
                return []
            } catch { return error.issues.map(\.description) }
        }
        let found = issues(true)
        #expect(found == issues(false))
        #expect(found.count > 15 && found.contains { $0.contains("duplicate id") } && found.contains { $0.contains("crosses itself") })

        let a = RegionSet(many, parallel: true), b = RegionSet(many, parallel: false)
        #expect(a.fences.vertices == b.fences.vertices && a.fences.ringEnds == b.fences.ringEnds && a.fences.grids.elementsEqual(b.fences.grids))
        #expect(a.fences.regionOfCore == b.fences.regionOfCore && a.fences.coreOfRegion == b.fences.coreOfRegion && a.boxes == b.boxes && a.fences.blocks.count == b.fences.blocks.count)
    }
}

extension FewQueries {
    /// One point asked of blocks answers as the whole set: the same regions contain it, the same
    /// boundary is nearest at the same distance, and of two equally near the earlier (here a
    /// fence repeated under another id in a later block).
    @Test func onePointAnswersAsTheWholeSet() {
        var rng = SplitMix64(seed: 0x9E_A5)
        let g = Geodesic.wgs84, base = Coordinate(latitude: 38.7, longitude: -9.14)
        var regions = starRegions(300, around: base, within: 4_000, sizes: 20...800, circleEvery: 5, vertices: [5, 8, 17, 40, 70], rng: &rng)
        for k in stride(from: 0, to: 300, by: 37) {
            regions.append(Region(id: "twin\(k)", kind: .album, name: "twin", shape: regions[k].shape))
        }
        let set = RegionSet(regions, rasters: false)
        var twinsNearest = 0
        for k in 0..<2_000 {
            let c = g.direct(from: base, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 6_000))
            var query = PointQuery(c)
            for start in stride(from: 0, to: regions.count, by: 64) { query.add(Array(regions[start..<min(regions.count, start + 64)])) }
            #expect(query.inside.sorted() == set.containing(c).map { regions[$0].id }.sorted(), "point \(k)")
            let n = set.nearestBoundary(c)
            #expect(query.nearest?.id == n.map { regions[$0.index].id } && query.nearest?.signedDistance == n?.signedDistance, "point \(k)")
            if let id = query.nearest?.id, regions.contains(where: { $0.id == "twin" + id.dropFirst() }) { twinsNearest += 1 }
        }
        #expect(twinsNearest > 20, "ties between a fence and its later twin were met: \(twinsNearest)")
    }
}

/// Containment asked for many points at once, across the cores, answers as each point asked
/// alone, and hands the pairs over in the same order as on one thread.
@Suite struct ManyPoints {
    @Test func aBatchAnswersAsEachPointAlone() {
        var rng = SplitMix64(seed: 0xBA7C4)
        let g = Geodesic.wgs84, base = Coordinate(latitude: 38.7, longitude: -9.14)
        let regions = starRegions(400, around: base, within: 3_000, sizes: 50...900, circleEvery: 4, vertices: [6, 12, 30, 64, 90], rng: &rng)
        let set = RegionSet(regions)
        let points = (0..<20_000).map { _ in g.direct(from: base, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 4_000)) }
        var pairs: [(Int, Int)] = [], serial: [(Int, Int)] = []
        set.forEachContaining(points) { pairs.append(($0, $1)) }
        set.forEachContaining(points, parallel: false) { serial.append(($0, $1)) }
        #expect(pairs.count == serial.count && zip(pairs, serial).allSatisfy { $0 == $1 }, "the same pairs in the same order")
        var byPoint = [[Int]](repeating: [], count: points.count)
        for (p, r) in pairs { byPoint[p].append(r) }
        for (k, c) in points.enumerated() {
            #expect(byPoint[k].sorted() == set.containing(c), "point \(k)")
        }
        #expect(pairs.count > 20_000, "points inside several fences: \(pairs.count)")
        // Each point's pairs come together.
        var seen = Set<Int>(), last = -1
        for (p, _) in pairs where p != last {
            #expect(seen.insert(p).inserted, "point \(p) came back")
            last = p
        }
    }
}
