import Geo
import JSON
import Regions
import Walks

/// The grammar of rounds and trails.
extension Command {
    /// Rounds, trails and the crew (the walkers around). Nil for another command.
    static func walksCommand(_ cmd: String, _ o: Members, document: JSONDocument) throws(CommandError) -> Command? {
        switch cmd {
        case "round":
            try Self.allowed(in: o, cmd: cmd, ["at", "regions", "kind", "due", "points"])
            return .round(try roundStops(o), at: try coordinate(o))
        case "add_trail":
            try Self.allowed(in: o, cmd: cmd, ["trail", "name", "checkpoints", "requires", "project"])
            do { return .addTrail(try Trail.read(o.members.filter { $0.key != "cmd" })) } catch { throw CommandError(error.message) }
        case "trails":
            try Self.allowed(in: o, cmd: cmd, [])
            return .trails
        case "crew":
            try Self.allowed(in: o, cmd: cmd, [])
            return .crew
        case "remove_trail", "start_trail":
            try Self.allowed(in: o, cmd: cmd, ["trail"])
            guard let id = try string(o, "trail") else { throw CommandError("missing \"trail\": the trail's id ({\"cmd\":\"trails\"} lists them)") }
            if let problem = Trail.problem(id: id) { throw CommandError(problem) }
            return cmd == "start_trail" ? .startTrail(id: id) : .removeTrail(id: id)
        case "stop_trail":
            try Self.allowed(in: o, cmd: cmd, [])
            return .stopTrail
        default:
            return nil
        }
    }

    /// What a round walks through: exactly one of `regions`, `kind` (with `due` for plants) or
    /// `points`; `due` alone means the plants due.
    static func roundStops(_ o: Members) throws(CommandError) -> RoundStops {
        var due = false
        if let v = o["due"], !v.isNull {
            guard let b = boolean(v) else { throw CommandError("\"due\" must be true or false") }
            due = b
        }
        // (null is as absent, as everywhere else.)
        let given = ["regions", "kind", "points"].filter { o[$0].map { !$0.isNull } ?? false }
        guard given.count <= 1 else { throw CommandError("give one of \"regions\", \"kind\" or \"points\", not \(given.joined(separator: " and "))") }
        if let v = o["regions"], !v.isNull {
            if due { throw CommandError("\"due\" goes with \"kind\":\"plant\", not with \"regions\"") }
            guard case let .array(items) = v, !items.isEmpty, items.allSatisfy({ $0.string?.isEmpty == false }) else {
                throw CommandError("\"regions\" must be a non-empty list of region ids")
            }
            guard items.count <= RoundPlanner.maxStops else { throw CommandError("\"regions\" names \(items.count): a round takes at most \(RoundPlanner.maxStops)") }
            let ids = items.compactMap(\.string)
            if let problem = ids.lazy.compactMap({ PlainText.problem($0, field: "\"regions\"") }).first { throw CommandError(problem) }
            return .regions(ids)
        }
        if let v = o["points"], !v.isNull {
            if due { throw CommandError("\"due\" goes with \"kind\":\"plant\", not with \"points\"") }
            guard case let .array(items) = v, !items.isEmpty else { throw CommandError("\"points\" must be a non-empty list of [latitude, longitude]") }
            guard items.count <= RoundPlanner.maxStops else { throw CommandError("\"points\" has \(items.count): a round takes at most \(RoundPlanner.maxStops)") }
            var points: [Coordinate] = []
            points.reserveCapacity(items.count)
            for (k, item) in items.enumerated() {
                guard case let .array(a) = item, a.count == 2, let lat = a[0].number, let lon = a[1].number, abs(lat) <= 90, abs(lon) <= 180 else {
                    throw CommandError("\"points\" item \(k) must be [latitude, longitude] in decimal degrees")
                }
                points.append(Coordinate(latitude: lat, longitude: lon))
            }
            return .points(points)
        }
        var kind = RegionKind.plant
        if let v = o["kind"], !v.isNull {
            guard let s = v.string, let k = RegionKind(rawValue: s) else { throw CommandError("\"kind\" must be \"plant\", \"album\" or \"reforestation\"") }
            kind = k
        } else if !due {
            throw CommandError("say what to walk through: \"regions\":[ids], \"kind\":\"plant\" (with \"due\":true for the plants due), or \"points\":[[lat,lon],…]")
        }
        if due && kind != .plant { throw CommandError("\"due\" is for plants: only they are watered") }
        return .kind(kind, due: due)
    }
}
