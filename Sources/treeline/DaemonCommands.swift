import ArgumentParser
import Config
import Foundation
import Loading
import Protocol
#if canImport(Glibc)
import Glibc
#endif

extension Treeline {
    struct Subscribe: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print treelined's events as they happen, resuming after a restart with nothing missed or doubled.",
            discussion: """
            One JSON line per event, as the daemon sends them:
            {"class":"EVENT","seq":N,…}. With --since N it first prints the journal's
            events after N. When the daemon restarts, or drops this client for not
            reading fast enough, it reconnects and goes on after the last seq it printed
            (waiting 0.1 s, doubling to 5 s). If the daemon comes back on another journal
            (its database replaced), it stops and says so: read that one with --since 0.
            Ctrl-C stops.

            The regions files' regions are journaled as one base_layer event per change of
            the files. --base-regions follows each with the region events it stands for
            (region_added, region_updated, region_removed, each with its Feature), which
            carry that event's seq and a "part" of their own; a resume goes on after the
            last part printed.

            Examples:
              treeline subscribe --kinds plant,album
              treeline subscribe --since 0 --types enter,exit --regions plant-7
              treeline subscribe --since 0 --base-regions --types region_added
            """
        )

        @OptionGroup var connection: SocketOptions

        @Option(help: "Print the journal's events after this seq first (0: all of them).")
        var since: Int64?

        @Option(help: "Only these kinds, comma-separated: reforestation, plant, album, trail (the trails' events).")
        var kinds: String?

        @Option(help: "Only these regions (ids), comma-separated.")
        var regions: String?

        @Option(help: "Only these event types, comma-separated (enter, exit, dwell, water_due, …).")
        var types: String?

        @Flag(help: "Follow each base_layer event with its regions' events (region_added, … with the Feature).")
        var baseRegions = false

        @Option(help: "Stop after this many events (default: never).")
        var count: Int?

        func validate() throws {
            if let since, since < 0 { throw ValidationError("--since must be 0 or more") }
            if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        }

        /// The filter of the options: each list as given, comma-separated.
        var filter: EventFilter {
            func list(_ s: String?) -> Set<String>? {
                s.map { Set($0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }) }
            }
            return EventFilter(kinds: list(kinds), regions: list(regions), types: list(types), baseRegions: baseRegions)
        }

        func run() throws {
            signal(SIGPIPE, SIG_IGN)
            let out = ByteWriter(fd: 1)
            var last = since
            // Within a base_layer event's region events: the last part printed (0: the event).
            var part: Int64?
            // The journal's name, from the first SUBSCRIBED: a resume on another journal (the
            // daemon's database replaced) is refused and said, not read on from the old seq.
            var journal: String?
            var printed = 0
            var delay = 0.1
            var connectedOnce = false
            while true {
                let c: DaemonConnection
                do {
                    (c, _) = try connection.connect()
                } catch {
                    // Never connected: say why and stop. Connected before: the daemon restarts.
                    if !connectedOnce { throw error }
                    usleep(UInt32(delay * 1e6))
                    delay = min(delay * 2, 5)
                    continue
                }
                connectedOnce = true
                delay = 0.1
                try c.send(.subscribe(Protocol.Subscribe(filter: filter, since: last, part: last == nil ? nil : part, journal: journal)))
                while let line = c.object() {
                    switch line.className {
                    case EventReply.replyClass:
                        if let e = try? line.decoded(as: EventReply.self) {
                            last = e.seq
                            part = e.part ?? (baseRegions && e.type == "base_layer" ? 0 : nil)
                        }
                        out.write(line.text + "\n")
                        out.flush()
                        printed += 1
                        if let count, printed >= count { return }
                    case Subscribed.replyClass:
                        if let s = try? line.decoded(as: Subscribed.self) {
                            if last == nil { last = s.since }
                            if journal == nil { journal = s.journal }
                        }
                    case ErrorReply.replyClass:
                        let e = try? line.decoded(as: ErrorReply.self)
                        if e?.lagged == true {
                            FileHandle.standardError.write(Data("treeline subscribe: dropped for not reading fast enough; resuming after seq \(last ?? 0)\n".utf8))
                        } else if let pruned = e?.prunedThrough {
                            // Said, and the rest follows: the events that remain are printed.
                            FileHandle.standardError.write(Data("treeline subscribe: the journal's events up to seq \(pruned) were pruned (journal: keep_days) but for the region events of regions in force; the rest follows\n".utf8))
                        } else {
                            throw UserError("treelined: \(e?.message ?? line.text)")
                        }
                    default:
                        break
                    }
                }
                FileHandle.standardError.write(Data("treeline subscribe: connection to treelined closed; reconnecting to resume after seq \(last ?? 0)\(part.map { " part \($0)" } ?? "")\n".utf8))
            }
        }
    }
}

extension Treeline {
    struct Water: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Tell treelined a plant was watered: its next watering is due one interval from now.",
            discussion: """
            Prints the `watered` event the daemon committed
            ({"class":"EVENT","seq":N,"type":"watered",…}). The time is that of the last
            fix the daemon used. --undo takes the plant's last watering back (watered by
            mistake): the watering before it is in force again, journaled as water_undone.

            Examples:
              treeline water plant-7
              treeline water plant-7 --undo
            """
        )

        @Argument(help: "The plant's id (as in the regions file).")
        var plant: String

        @Flag(help: "Take the plant's last watering back.")
        var undo = false

        @OptionGroup var connection: SocketOptions

        func run() throws {
            print(try connection.ask(undo ? .undoWater(plant: plant) : .water(plant: plant)).text)
        }
    }
}

extension Treeline {
    struct State: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print treelined's state: last fix, fences inside, counters, gpsd's status (one JSON line).",
            discussion: """
            With --regions, the regions in force instead (id, kind, name, inside;
            plants' watering).
            """
        )

        @OptionGroup var connection: SocketOptions

        @Flag(help: "Print the regions in force instead.")
        var regions = false

        func run() throws {
            print(try connection.ask(regions ? .regions(geometry: false) : .state).text)
        }
    }
}
