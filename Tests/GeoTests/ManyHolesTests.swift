import Geo
import Testing
import JSON
import Regions

/// A polygon with many holes: what a client can send in one request. Identical holes overlap (they
/// were taken), the problems told are bounded (a thousand identical holes listed half a million
/// pairs in a 13 MB message), and a command's geometry is bounded before any ring is built.
@Suite struct ManyHoles {
    static let outer = "[[-8.3,40],[-8.1,40],[-8.1,40.2],[-8.3,40.2],[-8.3,40]]"
    static let hole = "[[-8.2,40.1],[-8.199,40.1],[-8.199,40.101],[-8.2,40.1]]"

    static func file(holes: [String]) -> [UInt8] {
        let rings = ([outer] + holes).joined(separator: ",")
        return Array(#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"id":"h","kind":"album","name":"holes"},"geometry":{"type":"Polygon","coordinates":[\#(rings)]}}]}"#.utf8)
    }

    func problems(_ bytes: [UInt8]) -> [String] {
        do {
            _ = try RegionFile.parse(bytes, file: "holes.geojson")
            return []
        } catch {
            return error.issues.map(\.message)
        }
    }

    @Test func twoIdenticalHolesOverlap() {
        #expect(problems(Self.file(holes: [Self.hole, Self.hole])) == ["holes 1 and 2 overlap"])
        // Apart, or touching at a corner: fine.
        #expect(problems(Self.file(holes: [Self.hole, "[[-8.15,40.1],[-8.149,40.1],[-8.149,40.101],[-8.15,40.1]]"])).isEmpty)
        #expect(problems(Self.file(holes: [Self.hole, "[[-8.199,40.1],[-8.198,40.1],[-8.198,40.101],[-8.199,40.1]]"])).isEmpty)
    }

    @Test func theProblemsToldAreBounded() {
        let told = problems(Self.file(holes: Array(repeating: Self.hole, count: 1_000)))
        #expect(told.count == 11, "10 and a line that says there are more: \(told.count)")
        #expect(told.first == "holes 1 and 2 overlap")
        #expect(told.last == "(more problems are not listed: mend these first)")
    }

    @Test func aCommandsGeometryIsBoundedBeforeItIsBuilt() throws {
        func counted(_ holes: Int) throws -> String? {
            let doc = try JSONDocument.parse(Self.file(holes: Array(repeating: Self.hole, count: holes)))
            guard case .array(let features)? = doc.root["features"] else { return "no features" }
            var n = 0
            return GeometryLimits.standard.problem(feature: features[0], counted: &n)
        }
        #expect(try counted(63) == nil)
        #expect(try counted(64) == "a polygon of 65 rings, over the limit of 64 rings per polygon (its outer ring and 63 holes)")
        let small = GeometryLimits(ringsPerPolygon: 64, verticesPerRing: 3, vertices: 9)
        let doc = try JSONDocument.parse(Self.file(holes: [Self.hole]))
        guard case .array(let features)? = doc.root["features"] else { return }
        var n = 0
        #expect(small.problem(feature: features[0], counted: &n) == "a ring of 4 vertices, over the limit of 3 vertices per ring", "the closing position repeats the first")
        let loose = GeometryLimits(ringsPerPolygon: 64, verticesPerRing: 5, vertices: 6)
        n = 0
        #expect(loose.problem(feature: features[0], counted: &n) == "over 6 vertices in all")
    }
}
