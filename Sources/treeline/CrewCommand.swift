import ArgumentParser
import Foundation
import Protocol

extension Treeline {
    struct Crew: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The crew: the other boards and OwnTracks phones this board sees on its broker.",
            discussion: """
            With mqtt.owntracks set, the daemon reads every OwnTracks location on its
            broker (owntracks/+/+) and keeps the last of each (at most 200): a board
            under its name, a phone as "user device". The age is how old the position
            is by the board's own clock. Without MQTT the list is empty.

            Examples:
              treeline crew
              treeline crew --json
            """
        )
        @OptionGroup var connection: SocketOptions
        @Flag(help: "Print the daemon's JSON (CREW) instead of a table.") var json = false

        func run() throws {
            let reply = try connection.ask(.crew)
            if json { print(reply.text); return }
            let crew = try SocketOptions.read(reply, as: CrewReply.self)
            guard !crew.members.isEmpty else { print("no crew seen: other boards show once they publish OwnTracks locations on this board's broker (mqtt.owntracks)"); return }
            var rows = [["NAME", "TID", "LAT", "LON", "ACCURACY", "AGE"]]
            for m in crew.members {
                rows.append([m.name, m.tid ?? "", String(format: "%.6f", m.at.latitude), String(format: "%.6f", m.at.longitude),
                             m.accuracy.map { "±\($0) m" } ?? "", HumanText.span(Int(clamping: m.age)) + " ago"])
            }
            print(HumanText.table(rows))
        }
    }
}
