import Geo
import MQTT
import Rules

/// What the MQTT bridge's OwnTracks side needs of the engine, in one look: from a snapshot,
/// beside the actor.
extension Snapshot {
    package struct OwnTracksView: Sendable {
        package var position: OwnTracks.Position?
        package var inside: [(id: String, name: String)]
        /// The circle regions of the chosen kinds, and when each was first announced.
        package var waypoints: [OwnTracks.Waypoint]
        package var created: [String: UTCTime]
        /// Changes with every change of the regions in force.
        package var regionsVersion: Int
    }

    /// The last fix as OwnTracks and Home Assistant take it.
    var lastPosition: OwnTracks.Position? { lastFix.map { Engine.position($0, detail: lastUsedFix) } }

    package func ownTracks(kinds: Set<String>) -> OwnTracksView {
        var inside: [(id: String, name: String)] = []
        var waypoints: [OwnTracks.Waypoint] = []
        for (i, r) in regions.set.regions.enumerated() where kinds.contains(r.kind.rawValue) {
            if regions.inside[i] { inside.append((r.id, r.name)) }
            if case let .circle(center, radius) = r.shape {
                waypoints.append(OwnTracks.Waypoint(id: r.id, name: r.name, center: center, radius: radius,
                                                    created: regionsAdded[r.id] ?? UTCTime(nanoseconds: 0)))
            }
        }
        return OwnTracksView(position: lastPosition, inside: inside, waypoints: waypoints, created: regionsAdded, regionsVersion: regionsVersion)
    }
}

/// What Home Assistant's discovery needs of the engine, from a snapshot.
extension Snapshot {
    package struct HomeAssistantView: Sendable {
        package var position: OwnTracks.Position?
        /// The regions of the kinds asked for, when the regions changed since `version`.
        package var regions: [HomeAssistant.RegionRef]?
        package var regionsVersion: Int
        package var plantsDue: Int
        /// Whole seconds since the last fix of this run came; nil before the first.
        package var fixAge: Int?
    }

    /// The position, the plants due, the fix's age (for the sensors); and, when the regions
    /// changed since `version`, those of `kinds` (in the order in force).
    package func homeAssistant(kinds: Set<String>, since version: Int, now: UInt64) -> HomeAssistantView {
        var due = 0
        var refs: [HomeAssistant.RegionRef]? = regionsVersion == version ? nil : []
        for (i, r) in regions.set.regions.enumerated() {
            if regions.isDue(i) == true { due += 1 }
            if refs != nil, kinds.contains(r.kind.rawValue) { refs?.append(HomeAssistant.RegionRef(id: r.id, name: r.name, kind: r.kind.rawValue)) }
        }
        return HomeAssistantView(position: lastPosition, regions: refs, regionsVersion: regionsVersion, plantsDue: due,
                                 fixAge: lastFixReceived.map { Int((now > $0 ? now - $0 : 0) / 1_000_000_000) })
    }
}

extension Engine {
    /// A last fix as OwnTracks and Home Assistant take it, with what gpsd gave of it.
    static func position(_ f: LastFix, detail: Fix?) -> OwnTracks.Position {
        OwnTracks.Position(time: f.time, coordinate: f.coordinate, accuracy: f.error, altitude: detail?.altitudeMSL, speed: detail?.speed, course: detail?.course)
    }

    /// The last fix's time, for a bridge that publishes each new one.
    package func lastFixTime() -> UTCTime? { monitor.lastFix?.time }

    /// The last fix as Home Assistant's tracker takes it: the position, the fix's mode ("3d",
    /// "2d" or "none") and the ids of the regions it is inside, in the order in force.
    package func location() -> (position: OwnTracks.Position, fix: String, inside: [String])? {
        guard let f = monitor.lastFix else { return nil }
        var inside: [String] = []
        for (i, isInside) in monitor.inside.enumerated() where isInside { inside.append(monitor.regions.regions[i].id) }
        let mode = lastUsedFix?.mode ?? .noFix
        return (Self.position(f, detail: lastUsedFix), mode == .threeD ? "3d" : mode == .twoD ? "2d" : "none", inside)
    }
}
