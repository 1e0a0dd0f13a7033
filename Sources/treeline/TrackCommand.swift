import ArgumentParser
import Foundation
import Geo
import Protocol
import TreelineVersion

extension Treeline {
    struct Track: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The track treelined recorded, as GPX 1.1 or a GeoJSON LineString.",
            discussion: """
            The daemon records the fixes it used, thinned: a point when the receiver
            moved 2 m or more, or 30 s passed. Kept for track: keep_days (default 90).
            Times are ISO 8601 (a date alone is its midnight, UTC).

            Examples:
              treeline track --gpx -o today.gpx --since 2026-05-01
              treeline track --geojson --since 2026-05-01T08:00:00Z --until 2026-05-01T12:00:00Z
            """
        )
        @Option(help: "From this time (ISO 8601).") var since: String?
        @Option(help: "Up to this time (ISO 8601).") var until: String?
        @Flag(help: "GPX 1.1.") var gpx = false
        @Flag(help: "A GeoJSON Feature with a LineString.") var geojson = false
        @Option(name: .shortAndLong, help: "Write to this file (default: standard output).") var output: String?
        @OptionGroup var connection: SocketOptions

        func validate() throws {
            if gpx == geojson { throw ValidationError("give one of --gpx or --geojson") }
            for (name, value) in [("--since", since), ("--until", until)] {
                if let value, UTCTime(iso8601: value) == nil {
                    throw ValidationError("\(name) must be an ISO 8601 time such as 2026-05-01T08:00:00Z or a date such as 2026-05-01 (not '\(value)')")
                }
            }
        }

        func run() throws {
            let command = { () throws -> Command in
                .track(since: try since.map { try wireTime($0, key: "since") }, until: try until.map { try wireTime($0, key: "until") })
            }
            let points = try connection.ask(try command(), as: TrackReply.self).points
            let name = "Treeline track" + (since.map { " from \($0)" } ?? "") + (until.map { " until \($0)" } ?? "")
            let bytes = gpx ? TrackWriter.gpx(points, name: name, creator: "treeline \(treelineVersion)") : TrackWriter.geoJSON(points, name: name)
            try ByteOutput.write(bytes + [0x0A], to: output)
            if output != nil { FileHandle.standardError.write(Data("\(points.count) points\n".utf8)) }
        }
    }
}
