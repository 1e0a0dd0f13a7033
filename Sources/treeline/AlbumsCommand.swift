import ArgumentParser
import Foundation

extension Treeline {
    struct Albums: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Photo albums: capture is allowed only inside an album's zone. List, add where you stand, remove.",
            discussion: """
            The list shows each album's distance from the last fix and whether capture
            is allowed there now. `treeline capture ALBUM` records a picture.

            Examples:
              treeline albums add Beach --radius 150
              treeline albums
              treeline albums remove album-2
            """,
            subcommands: [List.self, Add.self, Remove.self],
            defaultSubcommand: List.self
        )

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "The albums in force: distance, capture allowed or locked.")
            @OptionGroup var connection: SocketOptions
            @Flag(help: "Print the daemon's JSON (REGIONS) instead of a table.") var json = false

            func run() throws {
                let reply = try connection.ask(["cmd": "regions"])
                if json { print(reply.text); return }
                let albums = (reply.json["regions"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "album" }
                guard !albums.isEmpty else { print("no albums: add one with `treeline albums add NAME`"); return }
                var rows = [["ID", "NAME", "RADIUS", "DISTANCE", "CAPTURE"]]
                for a in albums {
                    let d = a["distance_m"] as? Double
                    rows.append([a["id"] as? String ?? "", a["name"] as? String ?? "",
                                 (a["radius_m"] as? Double).map { HumanText.distance($0) } ?? "polygon",
                                 d.map { $0 >= 0 ? "inside" : HumanText.distance($0) } ?? "no fix",
                                 d.map { $0 >= 0 ? "allowed" : "locked" } ?? "locked (no fix)"])
                }
                print(HumanText.table(rows))
            }
        }

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Add an album centred where you stand (the last fix), or --at a point.")
            @Argument(help: "What to call it.") var name: String
            @Option(help: "Radius of its zone, metres (1 to 1,000,000).") var radius: Double = 150
            @Option(help: "Where, LAT,LON (default: the last fix).") var at: String?
            @Option(help: "A note.") var note: String?
            @Option(help: "Its id (default: album-N).") var id: String?
            @OptionGroup var connection: SocketOptions

            func run() throws {
                var r: [String: Any] = ["cmd": "add_region", "kind": "album", "name": name, "radius_m": radius]
                if let at { r["at"] = try HumanText.coordinate(at, option: "--at") }
                if let note { r["note"] = note }
                if let id { r["id"] = id }
                let reply = try connection.ask(r)
                print("added album \(reply.json["region"] as? String ?? "?") (\(name)), \(HumanText.distance(radius)) around: seq \(reply.json["seq"] ?? "?")")
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove an album added at runtime (its captures stay listed).")
            @Argument(help: "The album's id.") var id: String
            @OptionGroup var connection: SocketOptions

            func run() throws {
                let reply = try connection.ask(["cmd": "remove_region", "region": id])
                print("removed \(id): seq \(reply.json["seq"] ?? "?")")
            }
        }
    }

    struct CaptureCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "capture",
            abstract: "Record a picture in an album: only when the last fix is inside it; else how far to walk.",
            discussion: """
            Records the time and position of the last fix, the album, and the file and
            note given. Outside the album nothing is recorded and the exit status is 1.

            Example:
              treeline capture album-1 --file DCIM/IMG_0042.jpg --note "low tide"
            """
        )
        @Argument(help: "The album's id.") var album: String
        @Option(help: "The picture's file.") var file: String?
        @Option(help: "A note.") var note: String?
        @OptionGroup var connection: SocketOptions

        func run() throws {
            var r: [String: Any] = ["cmd": "capture", "album": album]
            if let file { r["file"] = file }
            if let note { r["note"] = note }
            let reply = try connection.ask(r)
            guard reply.json["recorded"] as? Bool == true, let c = reply.json["capture"] as? [String: Any] else {
                throw UserError("not recorded: \(reply.json["reason"] as? String ?? reply.text)")
            }
            print("capture #\(c["id"] ?? "?") recorded in \(album) at \(HumanText.time(c["time"] as? String))")
        }
    }

    struct Captures: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the captures recorded (of one album, or all).")
        @Argument(help: "Only this album's.") var album: String?
        @OptionGroup var connection: SocketOptions
        @Flag(help: "Print the daemon's JSON (CAPTURES) instead of a table.") var json = false

        func run() throws {
            var r: [String: Any] = ["cmd": "captures"]
            if let album { r["album"] = album }
            let reply = try connection.ask(r)
            if json { print(reply.text); return }
            let list = reply.json["captures"] as? [[String: Any]] ?? []
            guard !list.isEmpty else { print("no captures"); return }
            var rows = [["#", "ALBUM", "TIME", "LAT", "LON", "FILE", "NOTE"]]
            for c in list {
                rows.append(["\(c["id"] ?? "")", c["album"] as? String ?? "", HumanText.time(c["time"] as? String),
                             "\(c["lat"] ?? "")", "\(c["lon"] ?? "")", c["file"] as? String ?? "", c["note"] as? String ?? ""])
            }
            print(HumanText.table(rows))
        }
    }
}
