import Foundation
import Geo
@testable import Rules
import Testing
import Regions

/// The repository's Data folder and its files, found from this source file.
private enum SpeciesData {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Data")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func catalog() throws -> SpeciesCatalog {
        try SpeciesCatalog(parsing: bytes("species.json"), file: "species.json")
    }
}

/// A catalog file with these entries (each a JSON object's members, without braces).
private func catalogJSON(_ entries: [String]) -> [UInt8] {
    Array(("{\"about\": \"test\", \"species\": [\n" + entries.map { "{" + $0 + "}" }.joined(separator: ",\n") + "\n]}").utf8)
}

private let oak = #""latin": "Quercus robur", "common": "Pedunculate oak", "spacing_m": 5, "min_height_m": 20, "max_height_m": 35"#
private let cork = #""latin": "Quercus suber", "common": "Cork oak", "spacing_m": 7, "min_height_m": 10, "max_height_m": 20"#

/// The error parsing `bytes` gives (none if it parses).
private func catalogError(_ bytes: [UInt8], file: String = "bad.json") -> SpeciesCatalogError? {
    do {
        _ = try SpeciesCatalog(parsing: bytes, file: file)
        return nil
    } catch {
        return error
    }
}

@Suite struct SpeciesCatalogFile {
    @Test func theRealCatalogLoads() throws {
        let catalog = try SpeciesData.catalog()
        #expect(catalog.species.count >= 16)
        for s in catalog.species {
            #expect(s.spacing > 0, "\(s.latin)")
            #expect(s.minHeight > 0, "\(s.latin)")
            #expect(s.minHeight <= s.maxHeight, "\(s.latin)")
            #expect(!s.common.isEmpty, "\(s.latin)")
        }
        #expect(Set(catalog.species.map { $0.latin.lowercased() }).count == catalog.species.count)
    }

    /// One pass for every species gives what a pass per species gave, area for area, in order;
    /// an area naming a species by two of its names is listed once.
    @Test(arguments: ["regions.geojson", "regions-pt-tm06.geojson"])
    func everySpeciesAreasInOnePassAreThoseOfEach(file: String) throws {
        let catalog = try SpeciesData.catalog()
        var regions = try RegionFile.parse(SpeciesData.bytes(file), file: file)
        if let k = regions.firstIndex(where: { $0.kind == .reforestation }), let first = regions[k].species.first,
           let common = catalog.named(first)?.common {
            regions[k].species.append(common)
        }
        let set = RegionSet(regions)
        let all = catalog.areasBySpecies(in: set)
        #expect(!all.isEmpty)
        for s in catalog.species { #expect((all[s.latin] ?? []) == catalog.areas(allowing: s, in: set), "\(s.latin)") }
    }

    @Test(arguments: ["regions.geojson", "regions-pt-tm06.geojson"])
    func everyRegionSpeciesIsInTheCatalog(file: String) throws {
        let catalog = try SpeciesData.catalog()
        let regions = try RegionFile.parse(SpeciesData.bytes(file), file: file)
        let listed = regions.flatMap(\.species)
        #expect(!listed.isEmpty)
        let unknown = catalog.unknownSpecies(in: regions)
        #expect(unknown.isEmpty, "\(unknown)")
        // Regions name species by their exact Latin names.
        for name in listed { #expect(catalog.named(name)?.latin == name) }
    }
}

@Suite struct SpeciesLookup {
    @Test func byLatinNameIgnoringCaseAndSpaces() throws {
        let catalog = try SpeciesData.catalog()
        let oak = try #require(catalog.named("Quercus robur"))
        #expect(oak.common == "Pedunculate oak")
        #expect(oak.spacing == 5)
        #expect(catalog.named("quercus ROBUR") == oak)
        #expect(catalog.named("  Quercus   robur ") == oak)
    }

    @Test func byCommonName() throws {
        let catalog = try SpeciesData.catalog()
        #expect(catalog.named("Cork oak")?.latin == "Quercus suber")
        #expect(catalog.named("STRAWBERRY TREE")?.latin == "Arbutus unedo")
        #expect(catalog.named("maritime pine")?.latin == "Pinus pinaster")
    }

    @Test func unknownNames() throws {
        let catalog = try SpeciesData.catalog()
        #expect(catalog.named("Quercus") == nil)
        #expect(catalog.named("") == nil)
        #expect(catalog.named("Eucalyptus globulus") == nil)
    }

    @Test func suggestionsForMisspeltNames() throws {
        let catalog = try SpeciesData.catalog()
        #expect(catalog.suggestion(for: "Quercus robus")?.latin == "Quercus robur")
        #expect(catalog.suggestion(for: "Cork oka")?.latin == "Quercus suber")
        #expect(catalog.suggestion(for: "Alnus glutinoza")?.latin == "Alnus glutinosa")
        #expect(catalog.suggestion(for: "Eucalyptus globulus") == nil)
        #expect(catalog.suggestion(for: "xy") == nil)
    }

    @Test func unknownSpeciesInRegions() throws {
        let catalog = try SpeciesCatalog(parsing: catalogJSON([oak, cork]), file: "two.json")
        let shape = Shape.circle(center: Coordinate(latitude: 38.79, longitude: -9.39), radius: 50)
        let regions = [
            Region(id: "a", kind: .reforestation, name: "A", shape: shape, species: ["Quercus robur", "cork oak"]),
            Region(id: "b", kind: .reforestation, name: "B", shape: shape, species: ["Quercus robus", "Quercus suber", "Pinus pinea"]),
            Region(id: "c", kind: .album, name: "C", shape: shape),
        ]
        let unknown = catalog.unknownSpecies(in: regions)
        #expect(unknown.map(\.region) == ["b", "b"])
        #expect(unknown.map(\.species) == ["Quercus robus", "Pinus pinea"])
        #expect(catalog.suggestion(for: "Quercus robus")?.latin == "Quercus robur")
        #expect(catalog.suggestion(for: "Pinus pinea") == nil)
    }

    @Test func plantsPerHectare() {
        let s = Species(latin: "Pinus pinaster", common: "Maritime pine", spacing: 2.5, minHeight: 20, maxHeight: 35)
        #expect(s.plantsPerHectare == 1600)
    }
}

@Suite struct SpeciesCatalogErrors {
    /// The one problem in `entries`, and the whole error message.
    func only(_ entries: [String]) throws -> (SpeciesCatalogError.Problem, String) {
        let error = try #require(catalogError(catalogJSON(entries)))
        try #require(error.problems.count == 1, "\(error)")
        return (error.problems[0], error.description)
    }

    @Test func missingField() throws {
        let (p, message) = try only([oak, #""latin": "Quercus suber", "common": "Cork oak", "min_height_m": 10, "max_height_m": 20"#])
        #expect(p.reason == .missingField("spacing_m"))
        #expect(p.entry == 1 && p.latin == "Quercus suber")
        #expect(message.contains("bad.json: species[1] (\"Quercus suber\"): spacing_m is missing"), "\(message)")
        #expect(message.contains("in metres"))
    }

    @Test func missingLatinNameNamesTheIndex() throws {
        let (p, message) = try only([oak, #""common": "Cork oak", "spacing_m": 7, "min_height_m": 10, "max_height_m": 20"#])
        #expect(p.reason == .missingField("latin"))
        #expect(p.entry == 1 && p.latin == nil)
        #expect(message.contains("bad.json: species[1]: latin is missing"), "\(message)")
    }

    @Test func unknownFieldWithSuggestion() throws {
        let (p, message) = try only([oak, cork.replacingOccurrences(of: "\"spacing_m\": 7", with: "\"spacing_m\": 7, \"spacing\": 7")])
        #expect(p.reason == .unknownField("spacing", suggestion: "spacing_m"))
        #expect(message.contains("species[1] (\"Quercus suber\"): unknown field \"spacing\" (did you mean \"spacing_m\"?)"), "\(message)")
    }

    @Test(arguments: [0.0, -3.0])
    func nonPositiveSpacing(value: Double) throws {
        let (p, message) = try only([oak, cork.replacingOccurrences(of: "\"spacing_m\": 7", with: "\"spacing_m\": \(value)")])
        #expect(p.reason == .notPositive(field: "spacing_m", value: value))
        #expect(message.contains("species[1] (\"Quercus suber\"): spacing_m must be more than 0"), "\(message)")
    }

    @Test func spacingInTheWrongUnit() throws {
        let (p, message) = try only([cork.replacingOccurrences(of: "\"spacing_m\": 7", with: "\"spacing_m\": 700")])
        #expect(p.reason == .implausible(field: "spacing_m", value: 700, limit: SpeciesCatalog.maxSpacing))
        #expect(message.contains("species[0] (\"Quercus suber\"): spacing_m is 700"), "\(message)")
    }

    @Test func minAboveMaxHeight() throws {
        let (p, message) = try only([oak, cork.replacingOccurrences(of: "\"min_height_m\": 10", with: "\"min_height_m\": 25")])
        #expect(p.reason == .minAboveMax(min: 25, max: 20))
        #expect(message.contains("species[1] (\"Quercus suber\"): min_height_m (25) is more than max_height_m (20)"), "\(message)")
    }

    @Test func duplicateLatinName() throws {
        let again = oak.replacingOccurrences(of: "Pedunculate oak", with: "English oak")
            .replacingOccurrences(of: "Quercus robur", with: "quercus  Robur")
        let (p, message) = try only([oak, cork, again])
        #expect(p.reason == .duplicateLatin(firstEntry: 0))
        #expect(message.contains("species[2] (\"quercus Robur\"): duplicate Latin name: species[0]"), "\(message)")
    }

    @Test func ambiguousCommonName() throws {
        let (p, message) = try only([oak, cork.replacingOccurrences(of: "Cork oak", with: "pedunculate OAK")])
        #expect(p.reason == .ambiguousName(field: "common", otherEntry: 0, otherField: "common"))
        #expect(message.contains("species[1] (\"Quercus suber\")"), "\(message)")
    }

    @Test func wrongTypesAndRepeatedFields() throws {
        let (p, _) = try only([oak.replacingOccurrences(of: "\"spacing_m\": 5", with: "\"spacing_m\": \"5\"")])
        #expect(p.reason == .wrongType(field: "spacing_m", expected: "a number of metres", found: "a string"))
        let (q, _) = try only([oak + ", \"common\": \"English oak\""])
        #expect(q.reason == .repeatedField("common"))
        let error = try #require(catalogError(Array("{\"species\": [{\(oak)}, \"Quercus suber\"]}".utf8)))
        let message = error.description
        #expect(error.problems.map(\.reason) == [.notAnObject(found: "a string")])
        #expect(message.contains("species[1]: is a string, not an object"), "\(message)")
    }

    @Test func notJSON() throws {
        let error = try #require(catalogError(Array("{\"species\": [\n  {\"latin\": \"Quercus robur\",}\n]}".utf8), file: "broken.json"))
        #expect(error.problems.count == 1)
        guard case let .notJSON(line, _, _) = error.problems[0].reason else {
            Issue.record("expected notJSON, got \(error)")
            return
        }
        #expect(line == 2)
        #expect(error.description.contains("broken.json:2:"), "\(error)")
        #expect(error.description.contains("not JSON"))
    }

    @Test func wrongShapeOfFile() throws {
        #expect(catalogError(Array("[]".utf8))?.problems.map(\.reason) == [.notACatalog(found: "an array")])
        #expect(catalogError(Array("{\"about\": \"x\"}".utf8))?.problems.map(\.reason) == [.noSpeciesList])
        #expect(catalogError(Array("{\"species\": []}".utf8))?.problems.map(\.reason) == [.emptyCatalog])
        let typo = try #require(catalogError(Array("{\"specie\": [], \"species\": [{\(oak)}]}".utf8)))
        #expect(typo.problems.map(\.reason) == [.unknownField("specie", suggestion: "species")])
        #expect(typo.description.contains("the fields are about, species"), "\(typo)")
    }

    @Test func everyProblemIsReported() throws {
        let error = try #require(catalogError(catalogJSON([
            oak.replacingOccurrences(of: "\"spacing_m\": 5", with: "\"spacing_m\": -1"),
            cork.replacingOccurrences(of: "\"max_height_m\": 20", with: "\"max_height_m\": 2"),
            oak,
        ])))
        #expect(error.problems.map(\.entry) == [0, 1, 2])
        #expect(error.description.hasPrefix("3 errors in species catalog:"))
    }
}
