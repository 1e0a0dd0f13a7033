import ArgumentParser
import Foundation
import Geo
import Protocol
import Regions
import Walks

extension Treeline {
    struct RoundCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "round",
            abstract: "The shortest order to walk through regions or points, from where you stand.",
            discussion: """
            An open walk from the last fix (or --at) through each stop once: a circle's
            centre, a polygon's area centroid. Up to \(RoundPlanner.exactLimit) stops the order
            is the shortest there is; beyond, within a few percent of it. Lengths and
            bearings are geodesic.

            Say what to walk through with one of:
              --due             the plants due for watering (the default)
              --kind KIND       every region of a kind (plant, album, reforestation)
              --regions A,B,C   the regions named
              --point LAT,LON   points, repeated (a plan's spots)

            --save-as ID adds the round as a trail (checkpoints in this order, each with
            what its region is for: water a plant, capture in an album, plant in an
            area), to start with `treeline trails start ID`.

            Examples:
              treeline round
              treeline round --regions plant-1,plant-4,album-2 --at 38.7071,-9.1355
              treeline round --due --save-as watering --name "Watering round"
            """
        )

        @Flag(help: "The plants due for watering (the default when nothing else is given).") var due = false
        @Option(help: "Every region of this kind: plant, album or reforestation.") var kind: String?
        @Option(help: "The regions named, comma-separated ids.") var regions: String?
        @Option(name: .customLong("point"), help: "A point, LAT,LON; repeat it for each.") var points: [String] = []
        @Option(help: "Start from here, LAT,LON (default: the last fix).") var at: String?
        @Option(help: "Save the round as a trail with this id.") var saveAs: String?
        @Option(help: "The saved trail's name (default: its id).") var name: String?
        @Flag(help: "Print the daemon's JSON (ROUND) instead of a table.") var json = false
        @OptionGroup var connection: SocketOptions

        func stops() throws -> RoundStops {
            let given = [kind != nil, regions != nil, !points.isEmpty].filter { $0 }.count
            guard given <= 1 else { throw ValidationError("give one of --kind, --regions or --point") }
            if let regions {
                let ids = regions.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                guard !ids.isEmpty else { throw ValidationError("--regions: give region ids, comma-separated") }
                return .regions(ids)
            }
            if !points.isEmpty {
                return .points(try points.map { let p = try HumanText.coordinate($0, option: "--point"); return Coordinate(latitude: p[0], longitude: p[1]) })
            }
            if let kind {
                guard let k = RegionKind(rawValue: kind) else { throw ValidationError("--kind must be plant, album or reforestation") }
                if due && k != .plant { throw ValidationError("--due is for plants") }
                return .kind(k, due: due)
            }
            return .kind(.plant, due: true)
        }

        func run() throws {
            let stops = try stops()
            let from = try at.map { let p = try HumanText.coordinate($0, option: "--at"); return Coordinate(latitude: p[0], longitude: p[1]) }
            if saveAs != nil, case .points = stops { throw ValidationError("--save-as needs regions: a trail's checkpoints are regions, not points") }
            let reply = try connection.ask(.round(stops, at: from))
            let round = try SocketOptions.read(reply, as: RoundReply.self)
            if json { print(reply.text) } else { print(Self.table(round)) }
            if let id = saveAs {
                // What each is for: water a plant, capture in an album, plant in an area.
                let checkpoints = round.legs.compactMap { leg in
                    leg.region.map { Trail.Checkpoint(region: $0, action: leg.kind.flatMap(RegionKind.init(rawValue:)).map(Trail.Action.init(doneAt:))) }
                }
                let added = try connection.ask(.addTrail(Trail(id: id, name: name, checkpoints: checkpoints)), as: EventReply.self)
                print("saved as trail '\(id)' (\(checkpoints.count) checkpoints): seq \(added.seq); start it with `treeline trails start \(id)`")
            }
        }

        static func table(_ round: RoundReply) -> String {
            var rows = [["#", "STOP", "NAME", "LEG", "BEARING"]]
            for (k, leg) in round.legs.enumerated() {
                rows.append(["\(k + 1)", leg.region ?? "point \(leg.point ?? 0)", leg.name ?? "", HumanText.distance(leg.distance),
                             HumanText.bearing(leg.bearing)])
            }
            return HumanText.table(rows) + "\n\(round.legs.count) stops, \(HumanText.distance(round.length))" + (round.exact ? " (the shortest order)" : "")
        }
    }
}
