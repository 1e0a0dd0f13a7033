import ArgumentParser
import TreelineVersion

/// The command line. `MultiCall` runs it, unless the executable was started as `treelined`.
struct Treeline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "treeline",
        abstract: "Location rules for a GPS board: live fixes from gpsd or replayed NMEA logs, geofence events, maps, AR layouts.",
        discussion: """
        Treeline reads fixes from an NMEA 0183 log (or, on a board, from gpsd) and turns them into \
        events. See README.md for the whole picture.
        """,
        version: treelineVersion,
        subcommands: [Replay.self, Watch.self, Check.self, Where.self, LayoutCommand.self, Subscribe.self, State.self, Regions.self,
                      Plants.self, Water.self, Albums.self, CaptureCommand.self, Captures.self, Plan.self, Plant.self, Trees.self,
                      Project.self, SpeciesCommand.self, Track.self, RoundCommand.self, Trails.self, Crew.self, TilesCommand.self, Web.self]
    )
}
