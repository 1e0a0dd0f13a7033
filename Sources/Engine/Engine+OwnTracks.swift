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

    package func ownTracks(kinds: Set<String>) -> OwnTracksView {
        var position: OwnTracks.Position?
        if let f = lastFix {
            let detail = lastUsedFix
            position = OwnTracks.Position(time: f.time, coordinate: f.coordinate, accuracy: f.error,
                                          altitude: detail?.altitudeMSL, speed: detail?.speed, course: detail?.course)
        }
        var inside: [(id: String, name: String)] = []
        var waypoints: [OwnTracks.Waypoint] = []
        for (i, r) in regions.set.regions.enumerated() where kinds.contains(r.kind.rawValue) {
            if regions.inside[i] { inside.append((r.id, r.name)) }
            if case let .circle(center, radius) = r.shape {
                waypoints.append(OwnTracks.Waypoint(id: r.id, name: r.name, center: center, radius: radius,
                                                    created: regionsAdded[r.id] ?? UTCTime(nanoseconds: 0)))
            }
        }
        return OwnTracksView(position: position, inside: inside, waypoints: waypoints, created: regionsAdded, regionsVersion: regionsVersion)
    }
}
