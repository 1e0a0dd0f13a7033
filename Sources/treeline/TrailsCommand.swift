import ArgumentParser
import Foundation
import Protocol
import Walks

extension Treeline {
    struct Trails: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Trails: ordered checkpoints to walk, levels that unlock. List, add, start, stop, remove.",
            discussion: """
            A trail is a named, ordered list of checkpoints (regions), each with what to
            do there (water, capture or plant). Entering the next checkpoint journals
            checkpoint_reached; entering a later one first, checkpoint_out_of_order (the
            trail does not advance); the last, trail_completed with the time taken and
            the distance walked. A trail may require others to be completed first. One
            trail is under way at a time; its progress survives restarts.

            Examples:
              treeline trails add level-1 --name "First steps" --checkpoint plant-1:water --checkpoint album-2:capture
              treeline trails add level-2 --checkpoint ref-vale:plant --requires level-1
              treeline trails start level-1
              treeline trails
              treeline trails stop
              treeline trails remove level-2
            """,
            subcommands: [List.self, Add.self, Start.self, Stop.self, Remove.self],
            defaultSubcommand: List.self
        )

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "The trails, their progress, and the one under way.")
            @OptionGroup var connection: SocketOptions
            @Flag(help: "Print the daemon's JSON (TRAILS) instead of a table.") var json = false

            func run() throws {
                let reply = try connection.ask(.trails)
                if json { print(reply.text); return }
                let trails = try SocketOptions.read(reply, as: TrailsReply.self)
                guard !trails.trails.isEmpty else { print("no trails: add one with `treeline trails add ID --checkpoint REGION …`"); return }
                var rows = [["ID", "NAME", "CHECKPOINTS", "STATE"]]
                for t in trails.trails {
                    var state = t.completed.map { "completed \(HumanText.time($0.iso8601))" } ?? (t.locked ? "locked (after \(t.requires.joined(separator: ", ")))" : "not done")
                    if let a = trails.active, a.trail == t.id { state = "under way: \(a.next + 1) of \(a.of) next (\(a.nextRegion)), \(HumanText.distance(a.walked)) walked" }
                    if !t.missing.isEmpty { state += "; missing \(t.missing.joined(separator: ", "))" }
                    rows.append([t.id, t.name, t.checkpoints.map { c in c.action.map { "\(c.region):\($0)" } ?? c.region }.joined(separator: " → "), state])
                }
                print(HumanText.table(rows))
            }
        }

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Add a trail: its checkpoints in order, REGION or REGION:ACTION.")
            @Argument(help: "The trail's id.") var id: String
            @Option(help: "What to call it (default: its id).") var name: String?
            @Option(name: .customLong("checkpoint"), help: "A checkpoint, REGION or REGION:water|capture|plant (after the last ':'); repeat in order.") var checkpoints: [String] = []
            @Option(help: "Trails to complete first, comma-separated ids.") var requires: String?
            @Option(help: "The planting project it belongs to (exported with it).") var project: String?
            @OptionGroup var connection: SocketOptions

            func run() throws {
                guard !checkpoints.isEmpty else { throw ValidationError("give the checkpoints in order: --checkpoint REGION[:ACTION] …") }
                // REGION:ACTION when what follows the last ':' is an action (ids may hold ':' too).
                let list = checkpoints.map { text -> Trail.Checkpoint in
                    guard let colon = text.lastIndex(of: ":"), let action = Trail.Action(rawValue: String(text[text.index(after: colon)...])) else {
                        return Trail.Checkpoint(region: text)
                    }
                    return Trail.Checkpoint(region: String(text[..<colon]), action: action)
                }
                let required = requires.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
                let added = try connection.ask(.addTrail(Trail(id: id, name: name, checkpoints: list, requires: required, project: project)), as: EventReply.self)
                print("added trail '\(id)' (\(list.count) checkpoints): seq \(added.seq)")
            }
        }

        struct Start: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Start a trail where you stand (one at a time).")
            @Argument(help: "The trail's id.") var id: String
            @OptionGroup var connection: SocketOptions

            func run() throws {
                let started = try connection.ask(.startTrail(id: id), as: EventReply.self)
                print("trail '\(id)' started: first checkpoint \(started.region ?? "?") (seq \(started.seq))")
            }
        }

        struct Stop: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Stop the trail under way.")
            @OptionGroup var connection: SocketOptions

            func run() throws {
                print("stopped: seq \(try connection.ask(.stopTrail, as: EventReply.self).seq)")
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove a trail (not one under way, nor one another requires).")
            @Argument(help: "The trail's id.") var id: String
            @OptionGroup var connection: SocketOptions

            func run() throws {
                print("removed trail '\(id)': seq \(try connection.ask(.removeTrail(id: id), as: EventReply.self).seq)")
            }
        }
    }
}
