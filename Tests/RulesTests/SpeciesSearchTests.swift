@testable import Rules
import Testing

/// `SpeciesCatalog.search`: Latin and common names, case, accents, spaces and small typos
/// forgiven, best matches first.
@Suite struct SpeciesSearch {
    let catalog = try! SpeciesCatalog(parsing: Array("""
        {"species": [
          {"latin": "Quercus robur", "common": "Pedunculate oak", "spacing_m": 5, "min_height_m": 20, "max_height_m": 35},
          {"latin": "Quercus suber", "common": "Cork oak", "spacing_m": 7, "min_height_m": 10, "max_height_m": 20},
          {"latin": "Castanea sativa", "common": "Sweet chestnut", "spacing_m": 8, "min_height_m": 20, "max_height_m": 30},
          {"latin": "Arbutus unedo", "common": "Strawberry tree", "spacing_m": 3, "min_height_m": 4, "max_height_m": 10}
        ]}
        """.utf8), file: "test.json")

    func latin(_ q: String) -> [String] { catalog.search(q).map(\.species.latin) }

    @Test func exactThenPrefixThenContainsThenTypo() {
        let r = catalog.search("cork oak")
        #expect(r.map(\.species.latin) == ["Quercus suber"] && r.first?.match == .exact)
        // Every oak by the word "oak", the Latin genus by its start, sorted by Latin name.
        #expect(latin("oak") == ["Quercus robur", "Quercus suber"])
        #expect(latin("querc") == ["Quercus robur", "Quercus suber"])
        #expect(catalog.search("estnu").map(\.match) == [.contains])
        // A typo: one letter up to 5 letters, two beyond.
        #expect(latin("Quercus robr") == ["Quercus robur"])
        #expect(catalog.search("arbtus").first?.match == .typo)
        #expect(latin("chesnt").isEmpty == false)
        #expect(latin("pine").isEmpty)
    }

    @Test func caseAccentsAndSpacesDoNotMatter() {
        #expect(latin("  QUÉRCUS   Róbur ") == ["Quercus robur"])
        #expect(latin("Que\u{301}rcus su\u{308}ber") == ["Quercus suber"])  // decomposed accents
        #expect(SpeciesCatalog.searchKey("Çastañéa  Sätiva") == "castanea sativa")
    }

    @Test func noQueryListsEverySpeciesByLatinName() {
        #expect(latin("") == ["Arbutus unedo", "Castanea sativa", "Quercus robur", "Quercus suber"])
        #expect(latin("   ") == latin(""))
    }
}
