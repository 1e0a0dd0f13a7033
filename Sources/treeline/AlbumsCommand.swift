import ArgumentParser
import Foundation
import Geo
import Protocol

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
                let reply = try connection.ask(.regions(geometry: false))
                if json { print(reply.text); return }
                let albums = try SocketOptions.read(reply, as: RegionsReply.self).regions.filter { $0.kind == "album" }
                guard !albums.isEmpty else { print("no albums: add one with `treeline albums add NAME`"); return }
                var rows = [["ID", "NAME", "RADIUS", "DISTANCE", "CAPTURE"]]
                for a in albums {
                    let d = a.distance
                    rows.append([a.id, a.name, a.radius.map { HumanText.distance($0) } ?? "polygon",
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
                let place = try at.map { try HumanText.coordinate($0, option: "--at") }.map { Coordinate(latitude: $0[0], longitude: $0[1]) }
                let added = try connection.ask(.addRegion(.short(ShortRegion(kind: .album, id: id, name: name, radius: radius, at: place, note: note))),
                                               as: EventReply.self)
                print("added album \(added.region ?? "?") (\(name)), \(HumanText.distance(radius)) around: seq \(added.seq)")
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove an album added at runtime (its captures stay listed).")
            @Argument(help: "The album's id.") var id: String
            @OptionGroup var connection: SocketOptions

            func run() throws {
                print("removed \(id): seq \(try connection.ask(.removeRegion(id: id), as: EventReply.self).seq)")
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
            let reply = try connection.ask(.capture(album: album, file: file, note: note))
            let answer = try SocketOptions.read(reply, as: CaptureReply.self)
            guard answer.recorded, let c = answer.capture else { throw UserError("not recorded: \(answer.reason ?? reply.text)") }
            print("capture #\(c.id) recorded in \(album) at \(HumanText.time(c.time.iso8601))")
        }
    }

    struct Captures: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the captures recorded (of one album, or all).")
        @Argument(help: "Only this album's.") var album: String?
        @OptionGroup var connection: SocketOptions
        @Flag(help: "Print the daemon's JSON (CAPTURES) instead of a table.") var json = false

        func run() throws {
            let reply = try connection.ask(.captures(album: album))
            if json { print(reply.text); return }
            let list = try SocketOptions.read(reply, as: CapturesReply.self).captures
            guard !list.isEmpty else { print("no captures"); return }
            var rows = [["#", "ALBUM", "TIME", "LAT", "LON", "FILE", "NOTE"]]
            for c in list {
                rows.append(["\(c.id)", c.album, HumanText.time(c.time.iso8601), "\(c.coordinate.latitude)", "\(c.coordinate.longitude)", c.file ?? "",
                             c.note ?? ""])
            }
            print(HumanText.table(rows))
        }
    }
}
