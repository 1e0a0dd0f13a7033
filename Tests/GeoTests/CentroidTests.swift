import Foundation
import Geo
import Testing

/// `Shape.centroid`: where an AR label of a region points.
@Suite struct Centroids {
    let origin = Coordinate(latitude: 40.1, longitude: -8.24)

    /// The point `east` and `north` metres from the origin (along the geodesic of that azimuth).
    func at(_ east: Double, _ north: Double) -> Coordinate {
        Geodesic.wgs84.direct(from: origin, bearing: atan2(east, north) * 180 / .pi, distance: (east * east + north * north).squareRoot())
    }

    func metres(_ a: Coordinate, _ b: Coordinate) -> Double { Geodesic.wgs84.distance(a, b) }

    @Test func circleIsItsCentre() {
        #expect(Shape.circle(center: origin, radius: 30).centroid == origin)
    }

    /// An L of a 200×100 m and a 100×100 m rectangle: (83.33, 83.33) m, which the vertex mean
    /// (83.33, 100) is not.
    @Test func lShapeIsTheAreaCentroidInEitherWinding() {
        let ring = [(0.0, 0.0), (200, 0), (200, 100), (100, 100), (100, 200), (0, 200)].map { at($0.0, $0.1) }
        let expected = at(250.0 / 3, 250.0 / 3)
        #expect(metres(Shape.polygons([[ring]]).centroid, expected) < 0.02)
        #expect(metres(Shape.polygons([[ring.reversed()]]).centroid, expected) < 0.02)
        #expect(metres(Shape.polygons([[ring]]).centroid, at(250.0 / 3, 100)) > 16)
    }

    /// A 400 m square with a 100 m hole near its north-east corner: the hole pulls the centroid
    /// south-west to (193.33, 193.33), whatever the rings' windings.
    @Test func holeIsSubtracted() {
        let outer = [(0.0, 0.0), (400, 0), (400, 400), (0, 400)].map { at($0.0, $0.1) }
        let hole = [(250.0, 250.0), (350, 250), (350, 350), (250, 350)].map { at($0.0, $0.1) }
        let expected = at(580.0 / 3, 580.0 / 3)
        for rings in [[outer, hole], [outer.reversed(), hole], [outer, hole.reversed()]] {
            #expect(metres(Shape.polygons([rings]).centroid, expected) < 0.02)
        }
    }

    /// Two squares of a MultiPolygon, one four times the other's area: the centroid sits a fifth
    /// of the way from the big one's centre to the small one's.
    @Test func multiPolygonWeighsByArea() {
        let big = [(0.0, 0.0), (200, 0), (200, 200), (0, 200)].map { at($0.0, $0.1) }
        let small = [(1000.0, 0.0), (1100, 0), (1100, 100), (1000, 100)].map { at($0.0, $0.1) }
        let expected = at(100 + (1050 - 100) / 5, 100 + (50 - 100) / 5)
        #expect(metres(Shape.polygons([[big], [small]]).centroid, expected) < 0.05)
    }
}
