import ArgumentParser
import Foundation
import Geo
import Protocol

extension Treeline {
    struct Plants: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Plants to water: list them (due first), add one where you stand, remove one.",
            discussion: """
            The list shows each plant's distance from the last fix, when it was last
            watered and when it is next due (due ones first). `treeline water ID`
            records a watering.

            Examples:
              treeline plants add Basil --every 3d
              treeline plants add "Old olive" --every 2w --at 38.7071,-9.1355 --note "by the gate"
              treeline plants
              treeline plants remove plant-3
            """,
            subcommands: [List.self, Add.self, Remove.self],
            defaultSubcommand: List.self
        )

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "The plants in force, due ones first.")
            @OptionGroup var connection: SocketOptions
            @Flag(help: "Print the daemon's JSON (REGIONS) instead of a table.") var json = false

            func run() throws {
                let reply = try connection.ask(.regions(geometry: false))
                if json { print(reply.text); return }
                let plants = try SocketOptions.read(reply, as: RegionsReply.self).regions.filter { $0.kind == "plant" }
                guard !plants.isEmpty else { print("no plants: add one with `treeline plants add NAME --every 3d`"); return }
                // Due now first, then by how soon.
                func soon(_ p: RegionStatus) -> Int64 { p.due == true ? Int64.min : (p.dueIn ?? Int64.max) }
                let sorted = plants.sorted { a, b in soon(a) != soon(b) ? soon(a) < soon(b) : a.id < b.id }
                var rows = [["ID", "NAME", "DISTANCE", "EVERY", "LAST WATERED", "NEXT"]]
                for p in sorted {
                    let next: String
                    if p.lastWatered == nil { next = "due now (never watered)" } else if let s = p.dueIn { next = HumanText.countdown(seconds: Int(s)) } else { next = "?" }
                    rows.append([p.id, p.name, p.distance.map { d in d >= 0 ? "here" : HumanText.distance(d) } ?? "no fix",
                                 "\(p.intervalDays ?? 0) d", HumanText.time(p.lastWatered?.iso8601), next])
                }
                print(HumanText.table(rows))
            }
        }

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Add a plant where you stand (the last fix), or --at a point.")
            @Argument(help: "What to call it.") var name: String
            @Option(help: "How often it wants water: days (3d, 3) or weeks (2w), 1 day to 365.") var every: String
            @Option(help: "Where, LAT,LON (default: the last fix).") var at: String?
            @Option(help: "Its species, one name (treeline species lists the catalog's).") var species: String?
            @Option(help: "A note (what it is, where exactly).") var note: String?
            @Option(help: "Its id (default: plant-N).") var id: String?
            @Option(help: "Radius of its zone, metres (default 30).") var radius: Double?
            @OptionGroup var connection: SocketOptions

            func run() throws {
                let days = try HumanText.days(every, option: "--every")
                let place = try at.map { try HumanText.coordinate($0, option: "--at") }.map { Coordinate(latitude: $0[0], longitude: $0[1]) }
                let added = try connection.ask(.addRegion(.short(ShortRegion(kind: .plant, id: id, name: name, intervalDays: days, species: species,
                                                                             radius: radius, at: place, note: note))), as: EventReply.self)
                print("added plant \(added.region ?? "?") (\(name)), watered every \(days) d, due now: seq \(added.seq)")
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove a plant added at runtime (a file's plant is edited in its file).")
            @Argument(help: "The plant's id.") var id: String
            @OptionGroup var connection: SocketOptions

            func run() throws {
                print("removed \(id): seq \(try connection.ask(.removeRegion(id: id), as: EventReply.self).seq)")
            }
        }
    }
}
