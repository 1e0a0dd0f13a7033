import ArgumentParser
import Foundation
import Protocol

extension Treeline {
    struct Regions: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The regions in force in treelined, both layers: list, export, update or remove one added at runtime.",
            discussion: """
            Two layers: the regions files (config regions:) are the read-only base layer;
            what `plants add`, `albums add`, `project import` or the socket's add_region
            add is the user layer, kept in the database. Ids are unique across both, and
            an id removed is never given again.

            Examples:
              treeline regions
              treeline regions export > all-regions.geojson     (treeline check accepts it)
              treeline regions update plant-2 --every 5d --name "Basil (kitchen)"
              treeline regions update plant-2 --last-watered 2026-05-01T08:00:00Z
              treeline regions remove album-1
            """,
            subcommands: [List.self, Export.self, Update.self, Remove.self, Restore.self],
            defaultSubcommand: List.self
        )

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "The regions in force: id, kind, layer, name, inside, distance.")
            @OptionGroup var connection: SocketOptions
            @Flag(help: "Print the daemon's JSON (REGIONS, with each geometry) instead of a table.") var json = false

            func run() throws {
                let reply = try connection.ask(.regions(geometry: json))
                if json { print(reply.text); return }
                var rows = [["ID", "KIND", "LAYER", "NAME", "INSIDE", "DISTANCE"]]
                for r in try SocketOptions.read(reply, as: RegionsReply.self).regions {
                    rows.append([r.id, r.kind, r.layer, r.name, r.inside ? "yes" : "no",
                                 r.distance.map { $0 >= 0 ? "inside by \(HumanText.distance($0))" : HumanText.distance($0) } ?? "no fix"])
                }
                print(HumanText.table(rows))
            }
        }

        struct Export: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Both layers as one GeoJSON FeatureCollection: a regions file treeline check accepts (plants with their last watering).")
            @Option(name: .shortAndLong, help: "Write to this file (default: standard output).") var output: String?
            @OptionGroup var connection: SocketOptions

            func run() throws {
                try ByteOutput.write(try connection.ask(.export).bytes + [0x0A], to: output)
            }
        }

        struct Update: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Change a region of the user layer (a file's region is edited in its file).")
            @Argument(help: "The region's id.") var id: String
            @Option(help: "A new name.") var name: String?
            @Option(help: "A new radius, metres (circles only).") var radius: Double?
            @Option(help: "Plants: a new interval, days (3d) or weeks (2w).") var every: String?
            @Option(help: "Reforestation areas: the species allowed, comma-separated; a plant: its species, one name.") var species: String?
            @Option(help: "Plants: when last watered (ISO 8601), or 'never' (due now).") var lastWatered: String?
            @Option(help: "A new note ('' clears it).") var note: String?
            @OptionGroup var connection: SocketOptions

            func run() throws {
                let days = try every.map { try HumanText.days($0, option: "--every") }
                let update = { () throws -> RegionUpdate in
                    RegionUpdate(name: name, radius: radius, intervalDays: days,
                                 species: species.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } },
                                 lastWatered: try lastWatered.map { $0 == "never" ? nil : try wireTime($0, key: "last_watered") },
                                 note: note.map { $0.isEmpty ? nil : $0 })
                }
                print("updated \(id): seq \(try connection.ask(.updateRegion(id: id, try update()), as: EventReply.self).seq)")
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove a region of the user layer: region_removed, and no exit even if you were inside.")
            @Argument(help: "The region's id.") var id: String
            @OptionGroup var connection: SocketOptions

            func run() throws {
                print("removed \(id): seq \(try connection.ask(.removeRegion(id: id), as: EventReply.self).seq)")
            }
        }

        struct Restore: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Bring back a region of the user layer removed by mistake: its last Feature, its id, a plant's watering.")
            @Argument(help: "The removed region's id.") var id: String
            @OptionGroup var connection: SocketOptions

            func run() throws {
                print("restored \(id): seq \(try connection.ask(.restoreRegion(id: id), as: EventReply.self).seq)")
            }
        }
    }
}

/// Writes a command's output to a file (`-o`) or standard output; the error names the file.
enum ByteOutput {
    static func write(_ bytes: [UInt8], to path: String?) throws {
        guard let path, path != "-" else {
            FileHandle.standardOutput.write(Data(bytes))
            return
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw UserError("cannot write \(path): \(String(cString: strerror(errno))) (does its folder exist and is it writable?)")
        }
    }
}
