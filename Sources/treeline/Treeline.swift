import ArgumentParser

@main
struct Treeline: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "treeline",
        abstract: "Location rules for a GPS board: replay NMEA logs, and (soon) geofences, AR layout and planting plans.",
        discussion: """
        Treeline reads fixes from an NMEA 0183 log (or, on a board, from gpsd) and turns them into
        events. See README.md for the whole picture.
        """,
        subcommands: [Replay.self, Check.self, Where.self]
    )
}
