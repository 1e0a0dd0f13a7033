import ArgumentParser
import Foundation
import Geo
import JSON
import Protocol
import Regions
import Walks

extension Treeline {
    struct Project: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A planting project as one GeoJSON file: its reforestation areas and its trees. Export one, import one.",
            discussion: """
            A project file is a GeoJSON FeatureCollection with a top-level "project"
            name: the areas as regions-file features, and the trees as Point features
            whose properties.kind is "tree" (species, area, planted, project). The
            trails whose project it is go in a top-level "trails" list, each as
            `treeline trails --json` lists it (id, name, checkpoints, requires).

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
                let regions = try connection.ask(.export, as: ExportReply.self).features
                let trees = try connection.ask(.trees(area: nil, project: project), as: TreesReply.self).trees
                let trails = try connection.ask(.trails, as: TrailsReply.self).trails.filter { $0.project == project }
                let areasOfTrees = Set(trees.map(\.area))
                let areas = regions.filter { f in f.kind == "reforestation" && (f.project == project || areasOfTrees.contains(f.id ?? "")) }
                guard !areas.isEmpty || !trees.isEmpty || !trails.isEmpty else {
                    throw UserError("no project '\(project)': no area has project: \(project) and no tree was planted with --project \(project)")
                }
                var features: [JSONValue] = areas.map { .object($0.members) }
                for t in trees {
                    var properties: [(key: String, value: JSONValue)] = [
                        ("kind", .string("tree")), ("tree", .number(Double(t.id))), ("species", .string(t.species)), ("area", .string(t.area)),
                        ("project", .string(project)),
                    ]
                    if let p = t.planted { properties.append(("planted", .string(p.iso8601))) }
                    let point: JSONValue = .object([("type", .string("Point")), ("coordinates", .array([.number(t.coordinate.longitude), .number(t.coordinate.latitude)]))])
                    features.append(.object([("type", .string("Feature")), ("properties", .object(properties)), ("geometry", point)]))
                }
                var members: [(key: String, value: JSONValue)] = [("type", .string("FeatureCollection")), ("project", .string(project)), ("features", .array(features))]
                if !trails.isEmpty { members.append(("trails", .array(try trails.map(Self.definition)))) }
                // A trail may pass through plants and albums, or require another project's trail:
                // those are not in the file, and the board that imports it must have them.
                let exported = Set(areas.compactMap(\.id)), trailIDs = Set(trails.map(\.id))
                for t in trails {
                    let outside = t.checkpoints.map(\.region).filter { !exported.contains($0) }
                    let required = t.requires.filter { !trailIDs.contains($0) }
                    if !outside.isEmpty || !required.isEmpty {
                        let needs = (outside.isEmpty ? [] : ["regions " + outside.joined(separator: ", ")]) + (required.isEmpty ? [] : ["trails " + required.joined(separator: ", ")])
                        FileHandle.standardError.write(Data("note: trail '\(t.id)' needs \(needs.joined(separator: " and ")), not in the file: the board that imports it must have them\n".utf8))
                    }
                }
                let doc: JSONValue = .object(members)
                var out: [UInt8] = []
                ProjectJSON.append(doc, to: &out)
                try ByteOutput.write(out + [0x0A], to: output)
                if output != nil { FileHandle.standardError.write(Data("\(areas.count) areas, \(trees.count) trees, \(trails.count) trails\n".utf8)) }
            }

            /// A trail as `add_trail` takes it (and `Trail.read` reads it back).
            static func definition(_ t: TrailsReply.Item) throws -> JSONValue {
                let trail = Trail(id: t.id, name: t.name, checkpoints: t.checkpoints.map { Trail.Checkpoint(region: $0.region, action: $0.action.flatMap(Trail.Action.init)) },
                                  requires: t.requires, project: t.project)
                return try JSONDocument.parse(trail.json).root
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
                let contents = try ProjectFile(file, project: project)
                var problems = contents.problems
                // Every area by the regions file's rules, before anything is sent.
                let regions = contents.checkedAreas(&problems)
                let regionsInForce = try connection.ask(.regions(geometry: false), as: RegionsReply.self).regions
                let inForce = Set(regionsInForce.map(\.id))
                // The trails as the daemon would take them, after the areas: checked now, so
                // that nothing is loaded when one would be refused.
                var kinds = Dictionary(regionsInForce.map { ($0.id, $0.kind) }, uniquingKeysWith: { a, _ in a })
                for r in regions { kinds[r.id] = r.kind.rawValue }
                problems += contents.trailProblems(kept: try connection.ask(.trails, as: TrailsReply.self).trails, kinds: kinds)
                for a in contents.areas {
                    if let id = a["properties"]?["id"]?.string, inForce.contains(id) {
                        problems.append("\(file): area '\(id)' is already in force: was this project imported before? (treeline regions lists them)")
                    }
                }
                // (Ids used before and removed are refused by the daemon, with the whole batch.)
                guard problems.isEmpty else { throw UserError("nothing imported:\n  " + problems.joined(separator: "\n  ")) }

                // The areas all at once (one transaction), then each tree by the planting rules.
                if !regions.isEmpty { _ = try connection.ask(.addRegions(regions)) }
                var recorded = 0, refused = 0
                for t in contents.trees {
                    let why: String
                    do {
                        let reply = try connection.ask(
                            .plant(species: t.species, area: t.area, at: t.coordinate, project: contents.name ?? t.project,
                                   planted: try t.planted.map { try wireTime($0, key: "planted") }))
                        let verdict = try SocketOptions.read(reply, as: PlantReply.self)
                        if verdict.allowed {
                            recorded += 1
                            continue
                        }
                        why = verdict.reason ?? reply.text
                    } catch {
                        why = "\(error)"  // e.g. no catalog: this tree is not recorded, the next are tried
                    }
                    refused += 1
                    print("tree of feature \(t.index) (\(t.species) at \(t.coordinate.latitude),\(t.coordinate.longitude)): refused: \(why)")
                }
                // The trails last: their checkpoints may be the areas just added.
                var trailsAdded = 0
                for t in contents.trails {
                    do {
                        _ = try connection.ask(.addTrail(t), as: EventReply.self)
                        trailsAdded += 1
                    } catch {
                        refused += 1
                        print("trail '\(t.id)': refused: \(error)")
                    }
                }
                print("\(regions.count) areas added, \(recorded) trees recorded, \(trailsAdded) trails added, \(refused) refused" + (contents.name.map { " (project \($0))" } ?? ""))
                if refused > 0 { throw ExitCode(3) }
            }
        }
    }
}

/// A project file as `project import` reads it: its areas (each a Feature, given the project's
/// name when it has none) and its trees, and what is wrong with them.
struct ProjectFile {
    struct Tree {
        var index: Int
        var species: String
        var area: String?
        var project: String?
        var planted: String?
        var coordinate: Coordinate
    }

    let file: String
    let document: JSONDocument
    /// The project's name: the one given, else the file's `project`.
    let name: String?
    var areas: [JSONValue] = []
    var trees: [Tree] = []
    /// The trails of the top-level "trails" list, each given the project's name when it has none.
    var trails: [Trail] = []
    var problems: [String] = []

    init(_ file: String, project: String?) throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw UserError("cannot read \(file): \(String(cString: strerror(errno)))")
        }
        guard let document = try? JSONDocument.parse(Array(data), duplicateMembers: true), document.root["type"]?.string == "FeatureCollection",
              case .array(let features)? = document.root["features"], features.allSatisfy({ if case .object = $0 { true } else { false } })
        else {
            throw UserError("\(file): not a GeoJSON FeatureCollection (a project file, as `treeline project export` writes)")
        }
        self.file = file
        self.document = document
        name = project ?? document.root["project"]?.string
        for (k, f) in features.enumerated() { take(f, index: k) }
        if let list = document.root["trails"] {
            guard case .array(let items) = list else {
                problems.append("\(file): \"trails\" must be a list of trails (id, name, checkpoints, requires)")
                return
            }
            for (k, item) in items.enumerated() {
                guard case .object(let members) = item else {
                    problems.append("\(file): trail \(k) must be an object")
                    continue
                }
                do {
                    var t = try Trail.read(members)
                    if t.project == nil { t.project = name }
                    trails.append(t)
                } catch {
                    problems.append("\(file): trail \(k): \(error.message)")
                }
            }
        }
    }

    /// A tree (`properties.kind` "tree"), else an area.
    mutating func take(_ f: JSONValue, index k: Int) {
        var p: [(key: String, value: JSONValue)] = []
        if case .object(let members)? = f["properties"] { p = members }
        func property(_ key: String) -> String? { p.first { $0.key == key }?.value.string }
        guard property("kind") == "tree" else {
            guard let name, !p.contains(where: { $0.key == "project" }), case .object(var members) = f else {
                areas.append(f)
                return
            }
            p.append(("project", .string(name)))
            members.removeAll { $0.key == "properties" }
            areas.append(.object(members + [("properties", .object(p))]))
            return
        }
        let g = f["geometry"]
        guard g?["type"]?.string == "Point", case .coordinates(.position(let i, let numbers))? = g?["coordinates"], numbers >= 2,
              case let (lon, lat) = document.position(i), abs(lat) <= 90, abs(lon) <= 180 else {
            problems.append("\(file): feature \(k): a tree must be a Point [longitude, latitude]")
            return
        }
        guard let species = property("species") else {
            problems.append("\(file): feature \(k): a tree needs properties.species")
            return
        }
        trees.append(Tree(index: k, species: species, area: property("area").flatMap { $0.isEmpty ? nil : $0 }, project: property("project"),
                          planted: property("planted"), coordinate: Coordinate(latitude: lat, longitude: lon)))
    }

    /// What the daemon would refuse of the file's trails, after its areas (`kinds`: the regions
    /// in force and the file's areas, by id): an id kept or given twice, too many, a checkpoint
    /// in no region or with an action its region's kind has not, a required trail neither kept
    /// nor earlier in the file.
    func trailProblems(kept: [TrailsReply.Item], kinds: [String: String]) -> [String] {
        var problems: [String] = []
        var known = Set(kept.map(\.id))
        if kept.count + trails.count > TrailBook.maxTrails {
            problems.append("\(file): \(trails.count) trails, and the board keeps \(kept.count): more than \(TrailBook.maxTrails)")
        }
        let checkpoints = kept.reduce(0) { $0 + $1.checkpoints.count } + trails.reduce(0) { $0 + $1.checkpoints.count }
        if checkpoints > TrailBook.maxCheckpoints {
            problems.append("\(file): the trails would have \(checkpoints) checkpoints with the board's: more than \(TrailBook.maxCheckpoints)")
        }
        for t in trails {
            let place = "\(file): trail '\(t.id)'"
            if known.contains(t.id) { problems.append("\(place) exists (on the board or earlier in the file): was this project imported before? (treeline trails lists them)") }
            for (k, c) in t.checkpoints.enumerated() {
                guard let kind = kinds[c.region].flatMap(RegionKind.init(rawValue:)) else {
                    problems.append("\(place): checkpoint \(k + 1), region '\(c.region)', is neither in force nor an area of the file")
                    continue
                }
                if let problem = c.problem(regionKind: kind) { problems.append("\(place): checkpoint \(k + 1): \(problem)") }
            }
            for r in t.requires where !known.contains(r) {
                problems.append("\(place) requires '\(r)', which is neither on the board nor earlier in the file")
            }
            known.insert(t.id)
        }
        return problems
    }

    /// The areas as regions, by the regions file's rules (ids unique among them); what is wrong
    /// goes to `problems`.
    func checkedAreas(_ problems: inout [String]) -> [Region] {
        var regions: [Region] = []
        var firstOfID: [String: Int] = [:]
        for (k, a) in areas.enumerated() {
            var issues: [RegionIssue] = []
            do { regions.append(try RegionFile.feature(a, in: document, source: file)) } catch { issues = error.issues }
            // As a regions file: a valid id seen before is a duplicate.
            if let id = a["properties"]?["id"]?.string, !id.isEmpty, PlainText.problem(id, field: "properties.id") == nil {
                if let first = firstOfID[id] {
                    issues.append(RegionIssue(file: file, feature: k, id: id, line: nil, column: nil, message: "duplicate id: feature \(first) has the same id"))
                } else {
                    firstOfID[id] = k
                }
            }
            problems += issues.map { "\(file): area \($0.id ?? "?"): \($0.message)" }
        }
        return regions
    }
}

/// The project file as Foundation's JSON writer wrote it with sorted keys, which `project export`
/// used to: members in Foundation's key order, whole numbers as integers, other numbers in
/// their shortest form, `/` escaped as `\/`.
enum ProjectJSON {
    static func append(_ v: JSONValue, to out: inout [UInt8]) {
        switch v {
        case .object(let members):
            let sorted = members.sorted { a, b in
                a.key.compare(b.key, options: [.numeric, .caseInsensitive, .forcedOrdering], range: a.key.startIndex..<a.key.endIndex,
                              locale: Locale(identifier: "")) == .orderedAscending
            }
            out.append(UInt8(ascii: "{"))
            for (k, m) in sorted.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                appendString(m.key, to: &out)
                out.append(UInt8(ascii: ":"))
                append(m.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (k, item) in items.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                append(item, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .string(let s): appendString(s, to: &out)
        case .number(let n): WireNumber.append(n, to: &out)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .null, .coordinates: out.append(contentsOf: "null".utf8)  // (a reply's values are plain: no coordinates)
        }
    }

    /// `JSONBytes.appendString`, with `/` as `\/`.
    static func appendString(_ s: String, to out: inout [UInt8]) {
        var escaped: [UInt8] = []
        JSONBytes.appendString(s, to: &escaped)
        for b in escaped {
            if b == UInt8(ascii: "/") { out.append(UInt8(ascii: "\\")) }
            out.append(b)
        }
    }
}
