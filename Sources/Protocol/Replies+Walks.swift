import Geo
import JSON

/// `round`: the order to walk, with each leg.
public struct RoundReply: DaemonReply, Equatable {
    public static let replyClass = "ROUND"
    public var from: Coordinate
    public var exact: Bool
    public var length: Double
    public var legs: [Leg]

    /// One stop: a region (id, name) or a point (its index in the request), its centre, the
    /// leg's length and initial bearing.
    public struct Leg: Sendable, Equatable {
        public var region: String?
        /// The region's kind: reforestation, plant or album.
        public var kind: String?
        public var name: String?
        public var point: Int64?
        public var at: Coordinate
        public var distance: Double
        public var bearing: Double
    }

    public init(_ value: JSONValue) throws(ReplyError) {
        let o = try ReplyObject(value, class: Self.replyClass)
        from = try o.required("from", o.coordinate)
        exact = try o.required("exact", o.bool)
        length = try o.required("length_m", o.number)
        legs = try o.objects("legs") { l throws(ReplyError) in
            Leg(region: try l.string("region"), kind: try l.string("kind"), name: try l.string("name"), point: try l.integer("point"), at: try l.required("at", l.coordinate),
                distance: try l.required("distance_m", l.number), bearing: try l.required("bearing", l.number))
        }
    }
}

/// `trails`: each trail with its progress, and the one under way.
public struct TrailsReply: DaemonReply, Equatable {
    public static let replyClass = "TRAILS"
    public var active: Active?
    public var trails: [Item]

    public struct Active: Sendable, Equatable {
        public var trail: String
        public var next: Int64
        public var of: Int64
        public var nextRegion: String
        public var action: String?
        public var started: UTCTime
        public var walked: Double
    }

    public struct Item: Sendable, Equatable {
        public var id: String
        public var name: String
        /// The checkpoints' regions, in order, each with its action if any.
        public var checkpoints: [(region: String, action: String?)]
        public var requires: [String]
        public var project: String?
        public var completed: UTCTime?
        public var locked: Bool
        public var missing: [String]

        public static func == (a: Item, b: Item) -> Bool {
            a.id == b.id && a.name == b.name && a.checkpoints.elementsEqual(b.checkpoints, by: { $0 == $1 }) && a.requires == b.requires
                && a.project == b.project && a.completed == b.completed && a.locked == b.locked && a.missing == b.missing
        }
    }

    public init(_ value: JSONValue) throws(ReplyError) {
        let o = try ReplyObject(value, class: Self.replyClass)
        active = try o.object("active").map { a throws(ReplyError) in
            Active(trail: try a.required("trail", a.string), next: try a.required("next", a.integer), of: try a.required("of", a.integer),
                   nextRegion: try a.required("next_region", a.string), action: try a.string("action"),
                   started: try a.required("started", a.time), walked: try a.required("walked_m", a.number))
        }
        trails = try o.objects("trails") { t throws(ReplyError) in
            Item(id: try t.required("id", t.string), name: try t.required("name", t.string),
                 checkpoints: try t.objects("checkpoints") { c throws(ReplyError) in (try c.required("region", c.string), try c.string("action")) },
                 requires: try t.strings("requires") ?? [], project: try t.string("project"), completed: try t.time("completed"), locked: try t.required("locked", t.bool),
                 missing: try t.strings("missing") ?? [])
        }
    }
}

extension ReplyObject {
    /// `[latitude, longitude]`.
    func coordinate(_ key: String) throws(ReplyError) -> Coordinate? {
        guard let v = member(key) else { return nil }
        guard case .array(let a) = v, a.count == 2, let lat = a[0].number, let lon = a[1].number else { throw problem(key, "[latitude, longitude]") }
        return Coordinate(latitude: lat, longitude: lon)
    }
}

/// `crew`: the other boards and phones the board saw on its broker, by name.
public struct CrewReply: DaemonReply, Equatable {
    public static let replyClass = "CREW"
    public var members: [Member]

    public struct Member: Sendable, Equatable {
        public var name: String
        public var user: String
        public var device: String
        public var tid: String?
        public var at: Coordinate
        /// Metres; km/h; degrees.
        public var accuracy: Int64?
        public var velocity: Int64?
        public var course: Int64?
        /// How old the position is, seconds.
        public var age: Int64
    }

    public init(_ value: JSONValue) throws(ReplyError) {
        let o = try ReplyObject(value, class: Self.replyClass)
        members = try o.objects("members") { m throws(ReplyError) in
            Member(name: try m.required("name", m.string), user: try m.required("user", m.string), device: try m.required("device", m.string), tid: try m.string("tid"),
                   at: Coordinate(latitude: try m.required("lat", m.number), longitude: try m.required("lon", m.number)),
                   accuracy: try m.integer("acc"), velocity: try m.integer("vel"), course: try m.integer("cog"), age: try m.required("age_s", m.integer))
        }
    }
}
