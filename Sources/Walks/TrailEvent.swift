import Geo
import JSON

/// Something that happened to a trail, as the journal keeps it. Every one names a trail and a
/// checkpoint region (the one it is about: the next to reach, the one reached, the last), and
/// has kind `trail`, so `{"kinds":["trail"]}` subscribes to them all.
public struct TrailEvent: Sendable, Equatable {
    public enum EventType: String, Sendable, CaseIterable {
        case trailAdded = "trail_added"
        case trailRemoved = "trail_removed"
        case trailStarted = "trail_started"
        case trailStopped = "trail_stopped"
        /// The next checkpoint entered (`index`, 0-based, of `of`).
        case checkpointReached = "checkpoint_reached"
        /// A later checkpoint entered before the next one (`index`; `expected` is the next): the
        /// trail does not advance.
        case checkpointOutOfOrder = "checkpoint_out_of_order"
        /// The last checkpoint reached: `took_s` since the start, `walked_m` along the track.
        case trailCompleted = "trail_completed"
    }

    public var time: UTCTime
    public var type: EventType
    public var trail: String
    public var name: String
    /// The checkpoint region it is about.
    public var region: String
    /// The checkpoint's position in the trail, and the trail's number of checkpoints.
    public var index: Int?
    public var of: Int
    /// The checkpoint expected next (out of order, stopped).
    public var expected: Int?
    public var action: Trail.Action?
    /// Where the walker was (the fix that entered), if known.
    public var coordinate: Coordinate?
    public var took: Double?
    public var walked: Double?
    public var outOfOrder: Int?
    /// `trail_added`: the definition.
    public var definition: Trail?

    public init(time: UTCTime, type: EventType, trail: Trail, region: String, index: Int? = nil) {
        self.time = time
        self.type = type
        self.trail = trail.id
        self.name = trail.name
        self.region = region
        self.index = index
        of = trail.checkpoints.count
    }

    /// The kind every trail event is journaled with.
    public static let kind = "trail"

    /// One JSON object (no newline), as the journal keeps it: `time`, `type`, `region`, `kind`,
    /// `trail`, `name`, then what the type carries.
    public var json: [UInt8] {
        JSONWriter.object { o in
            o.member("time", time.iso8601)
            o.member("type", type.rawValue)
            o.member("region", region)
            o.member("kind", Self.kind)
            o.member("trail", trail)
            o.member("name", name)
            if let index { o.member("index", index) }
            o.member("of", of)
            if let expected { o.member("expected", expected) }
            if let action { o.member("action", action.rawValue) }
            if let c = coordinate, c.latitude.isFinite {
                o.member("lat", c.latitude, decimals: 7)
                o.member("lon", c.longitude, decimals: 7)
            }
            if let took { o.member("took_s", took, decimals: 1) }
            if let walked { o.member("walked_m", walked, decimals: 1) }
            if let outOfOrder { o.member("out_of_order", outOfOrder) }
            if let definition { o.member("definition") { w in w.object { definition.writeMembers(&$0) } } }
        }
    }
}
