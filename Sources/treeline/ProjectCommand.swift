import ArgumentParser
import Foundation
import Geo
import Regions

extension Treeline {
    struct Project: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A planting project as one GeoJSON file: its reforestation areas and its trees. Export one, import one.",
            discussion: """
            A project file is a GeoJSON FeatureCollection with a top-level "project"
            name: the areas as regions-file features, and the trees as Point features
            whose properties.kind is "tree" (species, area, planted, project).

            Examples:
              treeline project export spring-2026 -o spring-2026.geojson
              treeline project import spring-2026.geojson
            """,
            subcommands: [Export.self, Import.self]
        )

        struct Export: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Write a project's areas (properties.project, or holding its trees) and trees as GeoJSON.")
            @Argument(help: "The project's name.") var project: String
            @Option(name: .shortAndLong, help: "Write to this file (default: standard output).") var output: String?
            @OptionGroup var connection: SocketOptions

            func run() throws {
                let regions = try connection.ask(["cmd": "export"]).json["features"] as? [[String: Any]] ?? []
                let trees = try connection.ask(["cmd": "trees", "project": project]).json["trees"] as? [[String: Any]] ?? []
                let areasOfTrees = Set(trees.compactMap { $0["area"] as? String })
                let areas = regions.filter { f in
                    let p = f["properties"] as? [String: Any] ?? [:]
                    return p["kind"] as? String == "reforestation" && (p["project"] as? String == project || areasOfTrees.contains(p["id"] as? String ?? ""))
                }
                guard !areas.isEmpty || !trees.isEmpty else {
                    throw UserError("no project '\(project)': no area has project: \(project) and no tree was planted with --project \(project)")
                }
                var features: [[String: Any]] = areas
                for t in trees {
                    var properties: [String: Any] = ["kind": "tree", "tree": t["id"] ?? 0, "species": t["species"] ?? "", "area": t["area"] ?? "",
                                                     "project": project]
                    if let p = t["planted"] { properties["planted"] = p }
                    features.append(["type": "Feature", "properties": properties,
                                     "geometry": ["type": "Point", "coordinates": [t["lon"] ?? 0, t["lat"] ?? 0]]])
                }
                let doc: [String: Any] = ["type": "FeatureCollection", "project": project, "features": features]
                let data = try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys])
                try ByteOutput.write(Array(data) + [0x0A], to: output)
                if output != nil { FileHandle.standardError.write(Data("\(areas.count) areas, \(trees.count) trees\n".utf8)) }
            }
        }

        struct Import: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Load a project file: its areas into the user layer, its trees re-checked against the planting rules.",
                discussion: """
                The whole file is checked first (every area by the regions file's rules,
                ids unused): if anything is wrong nothing is loaded. Then each area is
                added and each tree planted as `treeline plant` would (inside an area that
                allows its species, at its spacing from every recorded tree); a tree the
                rules refuse is named with the reason, and the exit status is 3.
                """
            )
            @Argument(help: "The project file (GeoJSON, as project export writes).") var file: String
            @Option(help: "The project's name (default: the file's \"project\").") var project: String?
            @OptionGroup var connection: SocketOptions

            func run() throws {
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw UserError("cannot read \(file): \(String(cString: strerror(errno)))")
                }
                guard let doc = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any], doc["type"] as? String == "FeatureCollection",
                      let features = doc["features"] as? [[String: Any]] else {
                    throw UserError("\(file): not a GeoJSON FeatureCollection (a project file, as `treeline project export` writes)")
                }
                let name = project ?? doc["project"] as? String
                var areas: [[String: Any]] = [], trees: [(index: Int, properties: [String: Any], lat: Double, lon: Double)] = []
                var problems: [String] = []
                for (k, f) in features.enumerated() {
                    let p = f["properties"] as? [String: Any] ?? [:]
                    if p["kind"] as? String == "tree" {
                        let g = f["geometry"] as? [String: Any], c = g?["coordinates"] as? [Double]
                        guard g?["type"] as? String == "Point", let c, c.count >= 2, abs(c[1]) <= 90, abs(c[0]) <= 180 else {
                            problems.append("\(file): feature \(k): a tree must be a Point [longitude, latitude]"); continue
                        }
                        guard p["species"] as? String != nil else { problems.append("\(file): feature \(k): a tree needs properties.species"); continue }
                        trees.append((k, p, c[1], c[0]))
                    } else {
                        var area = f
                        if let name, p["project"] == nil { var q = p; q["project"] = name; area["properties"] = q }
                        areas.append(area)
                    }
                }
                // Every area by the regions file's rules, before anything is sent.
                if !areas.isEmpty {
                    let text = try JSONSerialization.data(withJSONObject: ["type": "FeatureCollection", "features": areas])
                    do { _ = try RegionFile.parse(Array(text), file: file) } catch { problems += error.issues.map { "\(file): area \($0.id ?? "?"): \($0.message)" } }
                }
                let inForce = Set((try connection.ask(["cmd": "regions"]).json["regions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
                for a in areas {
                    if let id = (a["properties"] as? [String: Any])?["id"] as? String, inForce.contains(id) {
                        problems.append("\(file): area '\(id)' is already in force: was this project imported before? (treeline regions lists them)")
                    }
                }
                // (Ids used before and removed are refused by the daemon, with the whole batch.)
                guard problems.isEmpty else { throw UserError("nothing imported:\n  " + problems.joined(separator: "\n  ")) }

                // The areas all at once (one transaction), then each tree by the planting rules.
                if !areas.isEmpty { _ = try connection.ask(["cmd": "add_regions", "features": areas]) }
                var recorded = 0, refused = 0
                for t in trees {
                    var r: [String: Any] = ["cmd": "plant", "species": t.properties["species"]!, "at": [t.lat, t.lon]]
                    if let area = t.properties["area"] as? String, !area.isEmpty { r["area"] = area }
                    if let p = name ?? t.properties["project"] as? String { r["project"] = p }
                    if let planted = t.properties["planted"] as? String { r["planted"] = planted }
                    let why: String
                    do {
                        let reply = try connection.ask(r)
                        if reply.json["allowed"] as? Bool == true {
                            recorded += 1
                            continue
                        }
                        why = reply.json["reason"] as? String ?? reply.text
                    } catch {
                        why = "\(error)"  // e.g. no catalog: this tree is not recorded, the next are tried
                    }
                    refused += 1
                    print("tree of feature \(t.index) (\(t.properties["species"]!) at \(t.lat),\(t.lon)): refused: \(why)")
                }
                print("\(areas.count) areas added, \(recorded) trees recorded, \(refused) refused" + (name.map { " (project \($0))" } ?? ""))
                if refused > 0 { throw ExitCode(3) }
            }
        }
    }
}
