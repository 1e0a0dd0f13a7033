import Foundation
import Geo
import TestSupport
import Testing
import Regions

@Suite struct Fences {
    @Test func circleUsesTheGeodesic() {
        let c = Coordinate(latitude: 40.1, longitude: -8.24)
        let f = Fence(.circle(center: c, radius: 30))
        for bearing in stride(from: 0.0, to: 360, by: 45) {
            let inside = Geodesic.wgs84.direct(from: c, bearing: bearing, distance: 29.99)
            let outside = Geodesic.wgs84.direct(from: c, bearing: bearing, distance: 30.01)
            #expect(f.contains(inside) && !f.contains(outside))
            #expect(abs(f.signedDistance(inside) - 0.01) < 1e-6)
            #expect(abs(f.signedDistance(outside) + 0.01) < 1e-6)
        }
    }

    @Test func circleNearTheNorthPole() {
        // Centre at 89.9° N; 20 km reaches over the pole (11.1 km away) to the other side.
        let c = Coordinate(latitude: 89.9, longitude: 10)
        let set = RegionSet([Region(id: "polar", kind: .album, name: "polar", shape: .circle(center: c, radius: 20_000))])
        let acrossThePole = Coordinate(latitude: 89.95, longitude: -170)  // 11.1 + 5.6 km away
        let d = Geodesic.wgs84.distance(c, acrossThePole)
        #expect(abs(d - 16_700) < 100)
        #expect(set.containing(acrossThePole) == [0])
        #expect(abs(set.signedDistance(0, acrossThePole) - (20_000 - d)) < 1e-6)
        let far = Geodesic.wgs84.direct(from: c, bearing: 90, distance: 20_050)
        #expect(set.containing(far).isEmpty)
        #expect(abs(set.nearestBoundary(far)!.signedDistance - -50) < 1e-6)
        #expect(set.containing(Coordinate(latitude: 90, longitude: 0)) == [0], "the pole itself is inside")
    }

    @Test func polygonAcrossTheAntimeridian() throws {
        // A square from 179.9° E to 179.9° W, written with the antimeridian between its vertices.
        let file = collection([polygonFeature("dateline", [closed([(179.9, -0.1), (-179.9, -0.1), (-179.9, 0.1), (179.9, 0.1)])])])
        let set = RegionSet(try RegionFile.parse(file, file: "dateline.geojson"))
        #expect(set.boxes[0].count == 2, "the box is split at ±180°")
        for lon in [180.0, -180.0, 179.95, -179.95] {
            #expect(set.containing(Coordinate(latitude: 0, longitude: lon)) == [0], "lon \(lon) is inside")
        }
        for lon in [179.8, -179.8, 0] {
            #expect(set.containing(Coordinate(latitude: 0, longitude: lon)).isEmpty, "lon \(lon) is outside")
        }
        // At the centre the nearest edges are north and south, 0.1° of latitude away.
        let centre = Coordinate(latitude: 0, longitude: 180)
        let expected = Geodesic.wgs84.distance(centre, Coordinate(latitude: 0.1, longitude: 180))
        let n = try #require(set.nearestBoundary(centre))
        #expect(abs(n.signedDistance - expected) < 0.5)
        // Outside, just east of the east edge.
        let east = Coordinate(latitude: 0, longitude: -179.89)
        let e = try #require(set.nearestBoundary(east))
        #expect(abs(e.signedDistance + Geodesic.wgs84.distance(east, Coordinate(latitude: 0, longitude: -179.9))) < 0.5)
    }

    @Test func polygonAroundAPoleIsRefused() {
        let ring = closed((0..<8).map { (Double($0) * 45 - 180, 85.0) })
        let file = collection([polygonFeature("arctic", [ring])])
        #expect(throws: RegionFileError.self) { try RegionFile.parse(file, file: "arctic.geojson") }
        do {
            _ = try RegionFile.parse(file, file: "arctic.geojson")
        } catch {
            #expect(error.issues.count == 1)
            #expect(error.issues[0].message.contains("North Pole"))
            #expect(error.issues[0].feature == 0 && error.issues[0].id == "arctic")
        }
    }

    @Test func polygonNearAPoleButNotAroundItWorks() throws {
        let ring = closed([(10, 89.5), (40, 89.5), (40, 89.8), (10, 89.8)])
        let set = RegionSet(try RegionFile.parse(collection([polygonFeature("near", [ring])]), file: "near.geojson"))
        #expect(set.containing(Coordinate(latitude: 89.65, longitude: 25)) == [0])
        #expect(set.containing(Coordinate(latitude: 89.65, longitude: 60)).isEmpty)
    }

    /// Signed distances against a reference built only from Karney geodesics (densified edges,
    /// golden-section refinement): star-shaped fences up to 50 km across, anywhere but the poles.
    @Test func signedDistanceWithinHalfAMetreOrOnePerMille() {
        var rng = SplitMix64(seed: 11)
        var worst = 0.0
        for k in 0..<60 {
            let centre = Coordinate(latitude: rng.uniform(-80, 80), longitude: rng.uniform(-180, 180))
            let size = k % 3 == 0 ? 25_000.0 : k % 3 == 1 ? 2_000.0 : 100.0
            let outer = starRing(centre, n: 5 + k % 12, lo: size * 0.5, hi: size, rng: &rng)
            let fence = Fence(.polygons([[outer]]))
            for _ in 0..<8 {
                let p = Geodesic.wgs84.direct(from: centre, bearing: rng.uniform(0, 360), distance: rng.uniform(0, size * 1.4))
                var reference = Double.infinity
                for i in 0..<outer.count {
                    reference = min(reference, geodesicSegmentDistance(p, outer[i], outer[(i + 1) % outer.count]))
                }
                let ours = fence.signedDistance(p)
                let err = abs(abs(ours) - reference)
                worst = max(worst, err / max(1, reference))
                #expect(err <= max(0.5, 0.001 * reference), "fence \(k) size \(size): ours \(ours), reference \(reference)")
            }
        }
        print("worst relative distance error: \(worst)")
    }

    @Test func holesAndMultiPolygons() throws {
        // A 2 km square with a 1 km square hole, plus a second part 5 km east.
        let lat = 38.7, lon = -9.14
        let m = 1.0 / 111_000
        let dl = 1.0 / (111_000 * cos(lat * .pi / 180))
        func sq(_ cx: Double, _ half: Double, reverse: Bool = false) -> [(Double, Double)] {
            let r = [(lon + (cx - half) * dl, lat - half * m), (lon + (cx + half) * dl, lat - half * m),
                     (lon + (cx + half) * dl, lat + half * m), (lon + (cx - half) * dl, lat + half * m)]
            return closed(reverse ? r.reversed() : r)
        }
        let multi = "{\"type\":\"Feature\",\"properties\":{\"id\":\"m\",\"kind\":\"album\"},\"geometry\":{\"type\":\"MultiPolygon\",\"coordinates\":[" +
            "[" + [sq(0, 1000), sq(0, 500, reverse: true)].map { r in "[" + r.map { "[\($0.0),\($0.1)]" }.joined(separator: ",") + "]" }.joined(separator: ",") + "]," +
            "[" + "[" + sq(5000, 300).map { "[\($0.0),\($0.1)]" }.joined(separator: ",") + "]" + "]" + "]}}"
        let set = RegionSet(try RegionFile.parse(collection([multi]), file: "multi.geojson"))
        func at(_ east: Double, _ north: Double) -> Coordinate { Coordinate(latitude: lat + north * m, longitude: lon + east * dl) }
        #expect(set.containing(at(0, 0)).isEmpty, "in the hole")
        #expect(set.containing(at(750, 0)) == [0], "between hole and shell")
        #expect(set.containing(at(5000, 0)) == [0], "in the second part")
        #expect(set.containing(at(3000, 0)).isEmpty)
        // In the hole's centre the nearest boundary is the hole's edge, about 500 m away.
        #expect(abs(set.signedDistance(0, at(0, 0)) + 500) < 3)
        #expect(abs(set.signedDistance(0, at(750, 0)) - 250) < 3)
    }

    /// The raster never changes an answer: containment equals the exact crossing count (the
    /// sign of the signed distance), also for points millimetres from an edge.
    @Test func rasterAgreesWithTheExactTest() {
        var rng = SplitMix64(seed: 31)
        var inside = 0, checked = 0
        for k in 0..<150 {
            let centre = Coordinate(latitude: rng.uniform(-70, 70), longitude: rng.uniform(-180, 180))
            let size = [50.0, 800, 20_000][k % 3]
            var rings = [starRing(centre, n: 3 + k % 40, lo: size * 0.3, hi: size, rng: &rng)]
            if k % 4 == 0 { rings.append(starRing(centre, n: 6, lo: size * 0.1, hi: size * 0.2, rng: &rng).reversed()) }
            let fence = Fence(.polygons([rings]))
            for j in 0..<300 {
                var p: Coordinate
                if j % 3 == 0 {
                    // Near an edge: a point on it, nudged by up to 5 mm.
                    let ring = rings[j % rings.count]
                    let a = ring[j % ring.count], b = ring[(j + 1) % ring.count]
                    let ab = Geodesic.wgs84.inverse(a, b)
                    let onEdge = Geodesic.wgs84.direct(from: a, bearing: ab.initialBearing, distance: ab.distance * rng.uniform(0, 1))
                    p = Geodesic.wgs84.direct(from: onEdge, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 0.005))
                } else {
                    p = Geodesic.wgs84.direct(from: centre, bearing: rng.uniform(0, 360), distance: rng.uniform(0, size * 1.2))
                }
                let exact = fence.signedDistance(p) > 0
                let d = fence.signedDistance(p)
                if d != 0 {
                    #expect(fence.contains(p) == exact, "fence \(k), point \(j): raster says \(fence.contains(p)), exact \(exact) (d = \(d))")
                    checked += 1
                    if exact { inside += 1 }
                }
            }
        }
        #expect(checked > 40_000 && inside > 10_000)
    }

    /// The index finds exactly what a scan of every fence finds.
    @Test func indexAgreesWithBruteForce() throws {
        var rng = SplitMix64(seed: 21)
        var regions: [Region] = []
        let centre = Coordinate(latitude: 38.7, longitude: -9.14)
        for k in 0..<400 {
            let c = Geodesic.wgs84.direct(from: centre, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 10_000))
            let shape: Shape = k % 3 == 0
                ? .circle(center: c, radius: rng.uniform(20, 500))
                : .polygons([[starRing(c, n: 6 + k % 20, lo: 50, hi: rng.uniform(60, 800), rng: &rng)]])
            regions.append(Region(id: "f\(k)", kind: .album, name: "f\(k)", shape: shape))
        }
        let set = RegionSet(regions)
        let fences = regions.map { Fence($0.shape) }
        var hits = 0
        for _ in 0..<2000 {
            let p = Geodesic.wgs84.direct(from: centre, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 11_000))
            let brute = fences.indices.filter { fences[$0].contains(p) }
            hits += brute.count
            #expect(set.containing(p) == brute)
        }
        #expect(hits > 1000, "the random fences overlap the random points often enough to mean something")
        for _ in 0..<200 {
            let p = Geodesic.wgs84.direct(from: centre, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 14_000))
            let brute = fences.map { abs($0.signedDistance(p)) }.min()!
            #expect(abs(abs(set.nearestBoundary(p)!.signedDistance) - brute) < 1e-9)
        }
    }
}
