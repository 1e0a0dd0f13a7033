import ArgumentParser
import Foundation

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
                let reply = try connection.ask(["cmd": "regions"])
                if json { print(reply.text); return }
                let plants = (reply.json["regions"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "plant" }
                guard !plants.isEmpty else { print("no plants: add one with `treeline plants add NAME --every 3d`"); return }
                // Due now first, then by how soon.
                let sorted = plants.sorted { a, b in
                    let da = (a["due"] as? Bool ?? false) ? Int.min : (a["due_in_s"] as? Int ?? Int.max)
                    let db = (b["due"] as? Bool ?? false) ? Int.min : (b["due_in_s"] as? Int ?? Int.max)
                    return da != db ? da < db : (a["id"] as? String ?? "") < (b["id"] as? String ?? "")
                }
                var rows = [["ID", "NAME", "DISTANCE", "EVERY", "LAST WATERED", "NEXT"]]
                for p in sorted {
                    let next: String
                    if p["last_watered"] == nil { next = "due now (never watered)" } else if let s = p["due_in_s"] as? Int { next = HumanText.countdown(seconds: s) } else { next = "?" }
                    rows.append([p["id"] as? String ?? "", p["name"] as? String ?? "",
                                 (p["distance_m"] as? Double).map { d in d >= 0 ? "here" : HumanText.distance(d) } ?? "no fix",
                                 "\(p["interval_days"] as? Int ?? 0) d", HumanText.time(p["last_watered"] as? String), next])
                }
                print(HumanText.table(rows))
            }
        }

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Add a plant where you stand (the last fix), or --at a point.")
            @Argument(help: "What to call it.") var name: String
            @Option(help: "How often it wants water: days (3d, 3) or weeks (2w), 1 day to 365.") var every: String
            @Option(help: "Where, LAT,LON (default: the last fix).") var at: String?
            @Option(help: "A note (what it is, where exactly).") var note: String?
            @Option(help: "Its id (default: plant-N).") var id: String?
            @Option(help: "Radius of its zone, metres (default 30).") var radius: Double?
            @OptionGroup var connection: SocketOptions

            func run() throws {
                var r: [String: Any] = ["cmd": "add_region", "kind": "plant", "name": name,
                                        "interval_days": try HumanText.days(every, option: "--every")]
                if let at { r["at"] = try HumanText.coordinate(at, option: "--at") }
                if let note { r["note"] = note }
                if let id { r["id"] = id }
                if let radius { r["radius_m"] = radius }
                let reply = try connection.ask(r)
                let id = reply.json["region"] as? String ?? "?"
                print("added plant \(id) (\(name)), watered every \(r["interval_days"]!) d, due now: seq \(reply.json["seq"] ?? "?")")
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove a plant added at runtime (a file's plant is edited in its file).")
            @Argument(help: "The plant's id.") var id: String
            @OptionGroup var connection: SocketOptions

            func run() throws {
                let reply = try connection.ask(["cmd": "remove_region", "region": id])
                print("removed \(id): seq \(reply.json["seq"] ?? "?")")
            }
        }
    }
}
