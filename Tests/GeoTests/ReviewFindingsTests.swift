import Foundation
import Geo
import Testing
import TestSupport
import Regions

/// Cases a review found; each asserts the behaviour a user relies on.
@Suite struct EdgeCases {
    func issues(_ bytes: [UInt8]) -> [RegionIssue] {
        do { _ = try RegionFile.parse(bytes, file: "t.geojson"); return [] } catch { return error.issues }
    }

    @Test func datesOutsideTheRepresentableYearsAreRefusedNotACrash() {
        #expect(UTCTime(year: 2263, month: 1, day: 1) == nil)
        #expect(UTCTime(year: 1, month: 1, day: 1) == nil)
        #expect(UTCTime(iso8601: "2263-01-01") == nil)
        let found = issues(collection([circleFeature("p", lon: -8.24, lat: 40.1, radius: 30, kind: "plant",
                                                     extra: ",\"interval_days\":7,\"last_watered\":\"2263-01-01\"")]))
        #expect(found.first?.message.contains("last_watered") == true)
    }

    @Test func aPartCrossingIntoAnotherPartsSolidAreaIsRefused() {
        // Part A: a unit square with a hole; part B pokes from the hole into A's solid area.
        let a = "[[[0,0],[1,0],[1,1],[0,1],[0,0]],[[0.3,0.3],[0.3,0.7],[0.7,0.7],[0.7,0.3],[0.3,0.3]]]"
        let b = "[[[0.5,0.5],[0.9,0.5],[0.9,0.6],[0.5,0.5]]]"
        let f = "{\"type\":\"Feature\",\"properties\":{\"id\":\"m\",\"kind\":\"album\"},\"geometry\":{\"type\":\"MultiPolygon\",\"coordinates\":[\(a),\(b)]}}"
        #expect(issues(collection([f])).contains { $0.message.contains("parts 1 and 2 overlap") })
        // A part wholly inside the other's hole is fine.
        let inHole = "[[[0.4,0.4],[0.6,0.4],[0.6,0.6],[0.4,0.6],[0.4,0.4]]]"
        let ok = "{\"type\":\"Feature\",\"properties\":{\"id\":\"m\",\"kind\":\"album\"},\"geometry\":{\"type\":\"MultiPolygon\",\"coordinates\":[\(a),\(inHole)]}}"
        #expect(issues(collection([ok])).isEmpty)
    }

    @Test func aHoleLeavingThroughTheShellsCornersIsRefused() {
        let f = polygonFeature("h", [closed([(0, 0), (4, 0), (4, 4), (0, 4)]), closed([(2, 2), (4, 4), (8, 2), (4, 0)])])
        #expect(issues(collection([f])).contains { $0.message.contains("hole 1 lies outside its outer ring") })
    }

    @Test func farPointsAreOutsideWithTheirGeodesicDistance() throws {
        let ring = [(0.5, 0.5), (1.5, 0.5), (1.5, 1.5), (0.5, 1.5)]
        let set = RegionSet(try RegionFile.parse(collection([polygonFeature("sq", [closed(ring)])]), file: "sq"))
        let antipodal = Coordinate(latitude: -1, longitude: -179)
        #expect(set.containing(antipodal).isEmpty)
        #expect(!set.contains(0, antipodal))
        let corners = ring.map { Coordinate(latitude: $0.1, longitude: $0.0) }
        for p in [antipodal, Coordinate(latitude: 10, longitude: 1), Coordinate(latitude: 1, longitude: 40)] {
            var reference = Double.infinity
            for i in 0..<4 { reference = min(reference, geodesicSegmentDistance(p, corners[i], corners[(i + 1) % 4])) }
            let n = try #require(set.nearestBoundary(p))
            #expect(n.signedDistance < 0)
            #expect(abs(-n.signedDistance - reference) <= 0.001 * reference, "ours \(n.signedDistance), reference \(reference)")
        }
    }

    @Test func polygonBoxesReachTheEdgesHighestLatitude() throws {
        // The top edge, a geodesic from (88 N, 0) to (88 N, 120 E), rises to about 89 N at 60 E.
        let ring = [(0.0, 88.0), (120.0, 88.0), (120.0, 87.0), (0.0, 87.0)]
        let set = RegionSet(try RegionFile.parse(collection([polygonFeature("polar", [closed(ring)])]), file: "p"))
        let fence = Fence(set.regions[0].shape)
        for lat in stride(from: 88.80, through: 88.95, by: 0.05) {
            let p = Coordinate(latitude: lat, longitude: 60)
            #expect(set.containing(p).isEmpty == !fence.contains(p), "lat \(lat)")
        }
        #expect(fence.contains(Coordinate(latitude: 88.9, longitude: 60)))
    }

    @Test func repeatedConsecutivePositionsAreAccepted() throws {
        let f = polygonFeature("dup", [[(0, 0), (1, 0), (1, 0), (1, 1), (0, 1), (0, 1), (0, 0), (0, 0)]])
        let regions = try RegionFile.parse(collection([f]), file: "dup")
        guard case let .polygons(parts) = regions[0].shape else { Issue.record("expected a polygon"); return }
        #expect(parts[0][0].count == 4)
    }

    @Test func aPropertyNamedCoordinatesIsPlainJSON() throws {
        let f = "{\"type\":\"Feature\",\"properties\":{\"id\":\"a\",\"kind\":\"album\",\"coordinates\":[\"see map\"]},\"geometry\":{\"type\":\"Point\",\"coordinates\":[-8.24,40.1]}}"
        #expect(try RegionFile.parse(collection([f]), file: "c").count == 1)
        let broken = "{\"type\":\"Feature\",\"properties\":{\"id\":\"a\",\"kind\":\"album\"},\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[[0,0],(1,0],[1,1],[0,0]]]}}"
        #expect(issues(collection([broken])).first?.message.hasPrefix("not JSON") == true)
    }

    @Test func hugeCirclesUseTheGeodesic() {
        let f = Fence(.circle(center: Coordinate(latitude: 0, longitude: 0), radius: 17_000_000))
        let p = Coordinate(latitude: 0, longitude: 160)
        #expect(Geodesic.wgs84.distance(Coordinate(latitude: 0, longitude: 0), p) > 17_000_000)
        #expect(!f.contains(p))
    }
}
