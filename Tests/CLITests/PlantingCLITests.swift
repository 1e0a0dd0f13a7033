import Foundation
import Testing

@Suite struct PlanCommand {
    let regions = ["--regions", "Data/regions.geojson", "--catalog", "Data/species.json"]

    @Test func placesTreesAroundThePointDeterministically() throws {
        let args = ["plan"] + regions + ["--area", "ref-encosta", "--species", "Quercus robur", "--count", "12", "--at", "40.1031,-8.2372"]
        let a = try CLI.run(args + ["--seed", "7"]), b = try CLI.run(args + ["--seed", "7"]), c = try CLI.run(args + ["--seed", "8"])
        #expect(a.status == 0, "\(a.stderr)")
        let lines = a.stdout.split(separator: "\n")
        #expect(lines.count == 12)
        #expect(lines.first == #"{"lat":40.1031000,"lon":-8.2372000}"#)
        #expect(a.stdout == b.stdout && a.stdout != c.stdout)
    }

    @Test func notEnoughRoomIsExitThreeWithTheTreesThatFit() throws {
        let r = try CLI.run(["plan"] + regions + ["--area", "ref-encosta", "--species", "Quercus robur", "--count", "40",
                                                  "--at", "40.1031,-8.2372", "--seed", "7"])
        #expect(r.status == 3)
        let placed = r.stdout.split(separator: "\n").count
        #expect(placed > 12 && placed < 40)
        #expect(r.stderr.contains("only \(placed) of 40 trees fit: the area within 15 m of the first tree is full at 5 m spacing"), "\(r.stderr)")
    }

    @Test func badRequestsAreClearErrors() throws {
        let base = ["plan"] + regions
        let species = try CLI.run(base + ["--area", "ref-encosta", "--species", "Quercus robr", "--count", "2", "--at", "40.1031,-8.2372"])
        #expect(species.status != 0 && species.stderr.contains("did you mean Quercus robur?"))
        let notHere = try CLI.run(base + ["--area", "ref-encosta", "--species", "Pinus pinea", "--count", "2", "--at", "40.1031,-8.2372"])
        #expect(notHere.status != 0 && notHere.stderr.contains("Pinus pinea is not planted in ref-encosta"))
        let album = try CLI.run(base + ["--area", "album-miradouro", "--species", "Quercus robur", "--count", "2", "--at", "40.1031,-8.2372"])
        #expect(album.status != 0 && album.stderr.contains("not a reforestation area"))
        let hole = try CLI.run(base + ["--area", "ref-encosta", "--species", "Quercus robur", "--count", "2", "--at", "40.101978,-8.236468"])
        #expect(hole.status == 3 && hole.stderr.contains("in a hole"), "\(hole.stderr)")
        let noAt = try CLI.run(base + ["--area", "ref-encosta", "--species", "Quercus robur", "--count", "2"])
        #expect(noAt.status != 0 && noAt.stderr.contains("--at"))
    }

    /// With --config and no --catalog, the catalog is the config's `species:`, as the daemon's.
    @Test func theConfigNamesTheCatalog() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("treeline-catalog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("treeline.yaml")
        let args = ["plan", "--regions", "Data/regions.geojson", "--config", config.path, "--area", "ref-encosta",
                    "--species", "Quercus robur", "--count", "2", "--at", "40.1031,-8.2372"]
        let missing = dir.appendingPathComponent("missing.json").path
        let database = dir.appendingPathComponent("trees.sqlite").path
        try "species: \(missing)\ndatabase: \(database)\n".write(to: config, atomically: true, encoding: .utf8)
        let refused = try CLI.run(args)
        #expect(refused.status != 0 && refused.stderr.contains("no species catalog at \(missing)"), "\(refused.stderr)")
        let copy = dir.appendingPathComponent("species.json")
        try FileManager.default.copyItem(atPath: "Data/species.json", toPath: copy.path)
        try "species: \(copy.path)\ndatabase: \(database)\n".write(to: config, atomically: true, encoding: .utf8)
        let planned = try CLI.run(args)
        #expect(planned.status == 0 && planned.stdout.split(separator: "\n").count == 2, "\(planned.stderr)")
    }

    @Test func fillReportsTheCountAgainstTheBounds() throws {
        let r = try CLI.run(["plan"] + regions + ["--area", "ref-encosta", "--species", "Castanea sativa", "--fill", "--geojson"])
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let n = (doc?["features"] as? [Any])?.count ?? 0
        // "ref-encosta: 57952 m², Castanea sativa at 6 m: N trees; bounds 1610 (square grid, …), 1859 (densest packing): …"
        #expect(r.stderr.contains("ref-encosta: ") && r.stderr.contains(" \(n) trees; bounds 1610 (square grid"), "\(r.stderr)")
        #expect(n > 1610)
    }
}

@Suite struct PlantAndTreesCommands {
    @Test func recordsWhatTheRulesAllowAndRefusesWithTheReason() throws {
        let db = FileManager.default.temporaryDirectory.appendingPathComponent("treeline-trees-\(UUID().uuidString).sqlite").path
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + s) } }
        let base = ["plant", "--regions", "Data/regions.geojson", "--catalog", "Data/species.json", "--database", db]
        let first = try CLI.run(base + ["--species", "Quercus robur", "--at", "40.1031,-8.2372"])
        #expect(first.status == 0 && first.stdout.contains(#""tree":1,"allowed":true,"area":"ref-encosta""#), "\(first.stdout)")
        let near = try CLI.run(base + ["--species", "Quercus robur", "--at", "40.10312,-8.2372"])
        #expect(near.status == 3 && near.stderr.contains("2.2 m from tree #1 but the spacing is 5 m"), "\(near.stderr)")
        let check = try CLI.run(base + ["--species", "Arbutus unedo", "--at", "40.1031,-8.23705", "--check"])
        #expect(check.status == 0 && check.stdout.contains(#""allowed":true"#) && !check.stdout.contains("\"tree\""))
        let trees = try CLI.run(["trees", "--database", db])
        let doc = try JSONSerialization.jsonObject(with: Data(trees.stdout.utf8)) as? [String: Any]
        let features = doc?["features"] as? [[String: Any]] ?? []
        #expect(features.count == 1, "only the allowed, recorded tree: \(trees.stdout)")
        #expect((features.first?["properties"] as? [String: Any])?["species"] as? String == "Quercus robur")
    }
}

@Suite struct SpeciesCommand {
    let catalog = ["--catalog", "Data/species.json"]

    @Test func aTypoFindsTheSpeciesAndTheAreasThatTakeIt() throws {
        let r = try CLI.run(["species", "quercus robr", "--regions", "Data/regions.geojson"] + catalog)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "Quercus robur (Pedunculate oak): spacing 5 m, 400 a hectare; height 20–35 m; allowed in ref-encosta\n")
    }

    @Test func everyOakByItsCommonName() throws {
        let r = try CLI.run(["species", "OAK", "--json"] + catalog)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count >= 5)
        for line in lines {
            let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect((o?["common"] as? String)?.lowercased().contains("oak") == true, "\(line)")
            #expect(o?["match"] as? String == "prefix" && o?["areas"] == nil && (o?["spacing_m"] as? Double ?? 0) > 0)
        }
    }

    @Test func nothingFoundIsAnError() throws {
        let r = try CLI.run(["species", "castanheiro"] + catalog)
        #expect(r.status != 0 && r.stdout.isEmpty)
        #expect(r.stderr.contains("no species in the catalog matches \"castanheiro\""), "\(r.stderr)")
    }
}
