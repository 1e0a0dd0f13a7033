import ArgumentParser
import Config
import Foundation
import Geo
import Loading
import Protocol
import Rules
import Store
import JSON
import Regions

/// Where the species catalog, regions and database come from, for the planting commands.
struct PlantingOptions: ParsableArguments {
    @Option(help: "A regions file (GeoJSON); repeat for several (default: the config's regions:).")
    var regions: [String] = []

    @Option(help: "The CRS of the regions' coordinates when a file does not say (e.g. EPSG:3763).")
    var crs: String?

    @Option(help: "The species catalog (default: the config's species: with --config; else Data/species.json here, else /usr/local/share/treeline or /usr/share/treeline).")
    var catalog: String?

    @Option(help: "The database of recorded trees (default: the config's database:).")
    var database: String?

    @Option(help: "A config file (YAML, as the daemon's): its regions:, database: and species:.")
    var config: String?

    func settings() throws -> TreelineConfig {
        try config.map(Loader.config) ?? TreelineConfig()
    }

    func loadRegions() throws -> RegionSet {
        try Loader.regions(regions.isEmpty ? try settings().regions : regions, crs: crs)
    }

    func loadCatalog() throws -> SpeciesCatalog {
        try Loader.catalog(given: catalog, config: config.map(Loader.config))
    }

    func openStore() throws -> Store {
        let path = try database ?? settings().database
        return try Store(path: path)
    }
}

extension Treeline {
    struct Plant: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record a tree planted at a point, if the planting rules allow it; else say why not.",
            discussion: """
            The rules: inside a reforestation area (not in one of its holes), of a
            species the area lists, at least the species' spacing from every recorded
            tree. Allowed: the tree is recorded in the database (checked and written in
            one transaction) and printed as a JSON line with its number. Refused: the
            reason, e.g. "2.1 m from tree #12 but the spacing is 3 m", and exit status
            3. With --check it only answers "may I plant here".

            Examples:
              treeline plant --regions Data/regions.geojson --database trees.sqlite \\
                --area ref-encosta --species "Quercus robur" --at 40.1031,-8.2372
              treeline plant --config /etc/treeline/treeline.yaml \\
                --species "pedunculate oak" --at 40.1031,-8.2372 --check
            """
        )

        @OptionGroup var options: PlantingOptions

        @Option(help: "The reforestation area's id (default: the area the point is in).")
        var area: String?

        @Option(help: "The species: Latin or common name, as in the catalog.")
        var species: String

        @Option(help: "Where, LAT,LON in decimal degrees (WGS84).")
        var at: LatLon

        @Flag(help: "Only check: record nothing.")
        var check = false

        @Option(help: "The planting project the tree belongs to (treeline project export).")
        var project: String?

        func run() throws {
            let rules = PlantingRules(regions: try options.loadRegions(), catalog: try options.loadCatalog())
            let store = try options.openStore()
            let now = UTCTime(nanoseconds: Int64(Date().timeIntervalSince1970 * 1e9))
            let c = at.coordinate
            let latin = rules.catalog.named(species)?.latin ?? species
            let verdict: PlantingVerdict
            let tree: PlantedTree?
            if check {
                verdict = rules.check(at: c, species: species, area: area, trees: try store.trees())
                tree = nil
            } else {
                (verdict, tree) = try store.plant(species: latin, at: c, planted: now, project: project) { trees in
                    rules.check(at: c, species: species, area: area, trees: trees)
                }
            }
            let json = JSONWriter.object { o in
                o.member("class", "PLANT")
                if let tree { o.member("tree", tree.id) }
                verdict.writeMembers(species: latin, to: &o)
            }
            let out = String(decoding: json, as: UTF8.self)
            print(out)
            if let r = verdict.refusal {
                FileHandle.standardError.write(Data("treeline plant: not here: \(PlainText.forTerminal(r.message))\n".utf8))
                throw ExitCode(3)
            }
        }
    }
}

extension Treeline {
    struct Trees: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The trees recorded: list them as GeoJSON, remove one, or undo the last.",
            discussion: """
            Examples:
              treeline trees --database trees.sqlite --area ref-encosta > trees.geojson
              treeline trees --project spring-2026
              treeline trees remove 12      (treelined removes tree #12)
              treeline trees undo           (the last one recorded)
            """,
            subcommands: [List.self, Remove.self, Undo.self],
            defaultSubcommand: List.self
        )
    }
}

extension Treeline.Trees {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the recorded trees as GeoJSON (a FeatureCollection of points).",
            discussion: """
            Each feature: id, area, species, when it was recorded and its project.
            Read from the database itself (no daemon needed).
            """
        )

        @Option(help: "The database of recorded trees (default: the config's database:).")
        var database: String?

        @Option(help: "A config file whose database: to use.")
        var config: String?

        @Option(help: "Only the trees of this area.")
        var area: String?

        @Option(help: "Only the trees of this project.")
        var project: String?

        func run() throws {
            let path = try database ?? (config.map(Loader.config) ?? TreelineConfig()).database
            let trees: [PlantedTree]
            trees = try Store(path: path).trees(area: area, project: project)
            print(String(decoding: PlantedTree.featureCollection(trees), as: UTF8.self))
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a recorded tree (treelined does it; its number is not given again).")
        @Argument(help: "The tree's number (as `treeline trees` lists them).") var id: Int64
        @OptionGroup var connection: SocketOptions

        func run() throws {
            Self.removed(try connection.ask(.removeTree(id: id), as: TreeRemovedReply.self).tree)
        }

        static func removed(_ t: TreeRecord) {
            print("removed tree #\(t.id) (\(t.species) in \(t.area), planted \(HumanText.time(t.planted?.iso8601)))")
        }
    }

    struct Undo: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove the last tree recorded (a mistake just made).")
        @OptionGroup var connection: SocketOptions

        func run() throws {
            Remove.removed(try connection.ask(.removeTree(id: nil), as: TreeRemovedReply.self).tree)
        }
    }
}

extension Treeline {
    struct Plan: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Plan where to plant: N trees around a point, or --fill a whole area, at the species' spacing.",
            discussion: """
            Positions inside the reforestation area (never in a hole). The first tree is
            at --at; each other is at least the species' spacing from it, from each
            other and from every tree recorded in the database (when there is one), and
            at most --max-distance (default 3 × spacing) from the first. As the app
            Treeline learns from, each tree gets 20 random attempts; then a systematic
            search of the room left finds a place where one exists, so "not enough
            space" means it. The same --seed gives the same plan.

            Output: one JSON line per tree ({"lat":…,"lon":…}) or, with --geojson, a
            GeoJSON FeatureCollection. When not all fit: the ones that did, "only K of N
            trees fit: …why" on standard error, and exit status 3.

            --fill fills the whole area at the spacing (a triangular lattice along the
            area's longest edge, then its gaps filled) and reports the count against the
            bounds area ÷ spacing² (a square grid) and 2/√3 · area ÷ spacing² (the
            densest packing).

            Examples:
              treeline plan --regions Data/regions.geojson --area ref-encosta \\
                --species "Quercus robur" --count 12 --at 40.1031,-8.2372 --seed 7
              treeline plan --regions Data/regions.geojson --area ref-encosta \\
                --species "Arbutus unedo" --fill --geojson > fill.geojson
            """
        )

        @OptionGroup var options: PlantingOptions

        @Option(help: "The reforestation area's id.")
        var area: String

        @Option(help: "The species: Latin or common name, as in the catalog.")
        var species: String

        @Option(help: "How many trees (with --at).")
        var count: Int?

        @Option(help: "The first tree, LAT,LON in decimal degrees (WGS84).")
        var at: LatLon?

        @Option(name: .customLong("max-distance"), help: "Metres from the first tree at most (default 3 × spacing).")
        var maxDistance: Double?

        @Option(help: "The random seed: the same seed, the same plan.")
        var seed: UInt64 = 1

        @Flag(help: "Fill the whole area at the spacing instead.")
        var fill = false

        @Flag(help: "Print a GeoJSON FeatureCollection instead of JSON lines.")
        var geojson = false

        @Flag(name: .customLong("no-trees"), help: "Ignore the recorded trees (no database).")
        var noTrees = false

        func validate() throws {
            if fill {
                if count != nil || at != nil || maxDistance != nil { throw ValidationError("--fill takes the whole area: no --count, --at or --max-distance") }
            } else {
                guard let count, count >= 1 else { throw ValidationError("give --count N (1 or more) and --at LAT,LON, or --fill") }
                if count > 100_000 { throw ValidationError("--count is at most 100000 (use --fill for a whole area)") }
                if at == nil { throw ValidationError("give --at LAT,LON: where the first tree goes") }
            }
            if let maxDistance, !(maxDistance > 0) || !maxDistance.isFinite { throw ValidationError("--max-distance must be a number of metres above 0") }
        }

        func run() throws {
            let regions = try options.loadRegions()
            let catalog = try options.loadCatalog()
            let i: Int, s: Species
            do { (i, s) = try PlantingRules(regions: regions, catalog: catalog).resolve(area: area, species: species) } catch { throw UserError(error.message) }
            var existing: [Coordinate] = []
            if !noTrees && (options.database != nil || options.config != nil) {
                do { existing = try options.openStore().trees().map(\.coordinate) } catch { throw UserError("\(error)") }
            }
            let planner = PlantingPlanner(regions: regions)
            let positions: [Coordinate]
            var shortfall: String?
            if fill {
                let result = planner.fill(area: i, species: s, existing: existing, seed: seed)
                positions = result.positions
                let f = result.figures
                FileHandle.standardError.write(Data(String(
                    format: "%@: %.0f m², %@ at %g m: %d trees; bounds %.0f (square grid, area ÷ spacing²), %.0f (densest packing): %.1f%% of area ÷ spacing²\n",
                    area, f.squareMetres, s.latin, s.spacing, positions.count, f.squareBound, f.hexagonalBound,
                    100 * Double(positions.count) / f.squareBound).utf8))
            } else {
                let result = planner.plan(area: i, species: s, count: count!, at: at!.coordinate, maxDistance: maxDistance,
                                          existing: existing, seed: seed)
                positions = result.positions
                shortfall = result.reason
            }
            let out = ByteWriter(fd: 1)
            if geojson {
                out.write { buf in
                    buf.append(contentsOf: #"{"type":"FeatureCollection","features":["#.utf8)
                    for (k, p) in positions.enumerated() {
                        if k > 0 { buf.append(UInt8(ascii: ",")) }
                        buf.append(contentsOf: #"{"type":"Feature","properties":{"n":\#(k + 1),"species":"#.utf8)
                        JSONBytes.appendString(s.latin, to: &buf)
                        buf.append(contentsOf: #"},"geometry":{"type":"Point","coordinates":["#.utf8)
                        JSONBytes.appendFixed(p.longitude, decimals: 7, to: &buf)
                        buf.append(UInt8(ascii: ","))
                        JSONBytes.appendFixed(p.latitude, decimals: 7, to: &buf)
                        buf.append(contentsOf: "]}}".utf8)
                    }
                    buf.append(contentsOf: "]}\n".utf8)
                }
            } else {
                for p in positions {
                    out.write { buf in
                        buf.append(contentsOf: #"{"lat":"#.utf8)
                        JSONBytes.appendFixed(p.latitude, decimals: 7, to: &buf)
                        buf.append(contentsOf: #","lon":"#.utf8)
                        JSONBytes.appendFixed(p.longitude, decimals: 7, to: &buf)
                        buf.append(contentsOf: "}\n".utf8)
                    }
                }
            }
            out.flush()
            if let shortfall {
                FileHandle.standardError.write(Data("treeline plan: \(shortfall)\n".utf8))
                throw ExitCode(3)
            }
        }
    }
}
