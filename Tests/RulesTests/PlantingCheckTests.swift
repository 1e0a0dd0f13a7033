import Foundation
import Geo
import Rules
import Testing
import Regions

/// "May I plant here" over the sample regions and the species catalog.
@Suite struct PlantingRulesCheck {
    static let data = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Data")

    static func rules() throws -> PlantingRules {
        let bytes = { (name: String) in Array(try Data(contentsOf: data.appendingPathComponent(name))) }
        let regions = try ["regions.geojson", "regions-pt-tm06.geojson"].flatMap { try RegionFile.parse(bytes($0), file: $0) }
        return PlantingRules(regions: RegionSet(regions), catalog: try SpeciesCatalog(parsing: bytes("species.json"), file: "species.json"))
    }

    let inside = Coordinate(latitude: 40.1031, longitude: -8.2372)      // 13.6 m inside ref-encosta
    let inHole = Coordinate(latitude: 40.101978, longitude: -8.236468)  // the hole of ref-encosta
    let outside = Coordinate(latitude: 40.1033067, longitude: -8.2372)  // 6.1 m outside it

    @Test func allowedInsideWithAListedSpecies() throws {
        let v = try Self.rules().check(at: inside, species: "pedunculate oak", trees: [])
        #expect(v.allowed && v.area == "ref-encosta" && v.spacing == 5)
        #expect(v.nearest == nil)
    }

    @Test func everyRuleRefusesWithItsReason() throws {
        let rules = try Self.rules()
        let g = Geodesic.wgs84
        let tree = PlantedTree(id: 12, area: "ref-encosta", species: "Quercus robur", coordinate: inside)
        let near = g.direct(from: inside, bearing: 90, distance: 2.1)
        func reason(_ c: Coordinate, _ species: String?, area: String? = nil, trees: [PlantedTree] = []) -> String? {
            rules.check(at: c, species: species, area: area, trees: trees).refusal?.message
        }
        #expect(reason(near, "Quercus robur", trees: [tree]) == "2.1 m from tree #12 but the spacing is 5 m")
        // Arbutus unedo's spacing is 2.5 m: 2.1 m is still too near; 3 m is not.
        #expect(reason(near, "Arbutus unedo", trees: [tree]) == "2.1 m from tree #12 but the spacing is 2.5 m")
        #expect(reason(g.direct(from: inside, bearing: 90, distance: 3), "Arbutus unedo", trees: [tree]) == nil)
        #expect(reason(outside, "Quercus robur") == "outside every reforestation area; the nearest, ref-encosta, is 6.1 m away")
        #expect(reason(inHole, "Quercus robur")?.hasPrefix("outside every reforestation area") == true)
        #expect(reason(inHole, "Quercus robur", area: "ref-encosta")?.hasPrefix("outside area ref-encosta (") == true)
        #expect(reason(inside, "Pinus pinea") == "Pinus pinea is not planted in ref-encosta: it takes Quercus robur, Castanea sativa, Arbutus unedo, Pinus pinaster")
        #expect(reason(inside, "Quercus robr") == "no species 'Quercus robr' in the catalog (did you mean Quercus robur?)")
        #expect(reason(inside, "Quercus robur", area: "plant-carvalho") == "'plant-carvalho' is a plant, not a reforestation area")
        #expect(reason(inside, "Quercus robur", area: "nowhere")?.hasPrefix("no region 'nowhere'") == true)
    }

    @Test func withoutASpeciesItSaysWhichAreaAndTheNearestTree() throws {
        let far = PlantedTree(id: 3, area: "ref-encosta", species: "Castanea sativa",
                              coordinate: Geodesic.wgs84.direct(from: inside, bearing: 0, distance: 40))
        let v = try Self.rules().check(at: inside, species: nil, trees: [far])
        #expect(v.allowed && v.area == "ref-encosta" && v.spacing == nil)
        #expect(v.nearest?.tree.id == 3 && abs((v.nearest?.metres ?? 0) - 40) < 1e-6)
    }
}
