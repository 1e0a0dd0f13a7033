import Geo
import JSON

// The replies a client reads, typed: each from its JSON object (`ReplyLine.value`), its class
// checked, the members the daemon always sends required, the others optional.

/// The first line of every connection.
public struct Hello: DaemonReply, Equatable {
    public static let replyClass = "HELLO"
    public var version: String
    /// The journal's last seq when the client connected.
    public var seq: Int64

    public init(_ value: JSONValue) throws(ReplyError) {
        let o = try ReplyObject(value, class: Self.replyClass)
        version = try o.required("version", o.string)
        seq = try o.required("seq", o.integer)
    }
}

/// A refusal; for a subscriber also the daemon dropping it (`lagged`) or saying that events it
/// asked for were pruned (`pruned_through`; the rest follows).
public struct ErrorReply: DaemonReply, Equatable {
    public static let replyClass = "ERROR"
    public var message: String
    public var lagged: Bool
    /// With `lagged`: the seq to resubscribe after.
    public var seq: Int64?
    public var prunedThrough: Int64?

    public init(_ value: JSONValue) throws(ReplyError) {
        let o = try ReplyObject(value, class: Self.replyClass)
        message = try o.required("message", o.string)
        lagged = try o.bool("lagged") ?? false
        seq = try o.integer("seq")
        prunedThrough = try o.integer("pruned_through")
    }
}

/// A subscription taken: events after `since` of the journal named `journal` follow.
public struct Subscribed: DaemonReply, Equatable {
    public static let replyClass = "SUBSCRIBED"
    public var since: Int64
    /// The journal's name (nil from a treelined that did not name its journal).
    public var journal: String?

    public init(_ value: JSONValue) throws(ReplyError) {
        let o = try ReplyObject(value, class: Self.replyClass)
        since = try o.required("since", o.integer)
        journal = try o.string("journal")
    }
}

/// A journal event: a subscriber's line, and the answer to `water`, `add_region`,
/// `update_region` and `remove_region` (the event each committed).
public struct EventReply: DaemonReply, Equatable {
    public static let replyClass = "EVENT"
    public var seq: Int64
    public var type: String
    public var time: UTCTime
    /// The region it is about.
    public var region: String?
    /// A region event derived from the `base_layer` record `seq` (`base_regions`): its part.
    public var part: Int64?

    public init(_ value: JSONValue) throws(ReplyError) {
        let o = try ReplyObject(value, class: Self.replyClass)
        seq = try o.required("seq", o.integer)
        type = try o.required("type", o.string)
        time = try o.required("time", o.time)
        region = try o.string("region")
        part = try o.integer("part")
    }
}

/// `regions`: the regions in force, each with where it is from the last fix.
public struct RegionsReply: DaemonReply {
    public static let replyClass = "REGIONS"
    public var regions: [RegionStatus]

    public init(_ value: JSONValue) throws(ReplyError) {
        let o = try ReplyObject(value, class: Self.replyClass)
        regions = try o.objects("regions", RegionStatus.init)
    }
}

/// One region of `RegionsReply`.
public struct RegionStatus: Sendable {
    public var id: String
    /// `reforestation`, `plant` or `album`.
    public var kind: String
    public var name: String
    /// `base` (the regions files) or `user` (added at runtime).
    public var layer: String
    public var inside: Bool
    /// Metres to the edge, positive inside; nil with no fix yet.
    public var distance: Double?
    /// Circles only.
    public var radius: Double?
    /// Plants only.
    public var intervalDays: Int64?
    public var lastWatered: UTCTime?
    public var nextDue: UTCTime?
    /// Seconds until the next watering is due (negative: overdue); nil when never watered.
    public var dueIn: Int64?
    public var due: Bool?
    public var note: String?
    /// A reforestation area's species allowed; a plant's own species, one name.
    public var species: [String]?
    /// With `{"cmd":"regions","geometry":true}`: the GeoJSON geometry.
    public var geometry: JSONValue?

    init(_ o: ReplyObject) throws(ReplyError) {
        id = try o.required("id", o.string)
        kind = try o.required("kind", o.string)
        name = try o.required("name", o.string)
        layer = try o.required("layer", o.string)
        inside = try o.required("inside", o.bool)
        distance = try o.number("distance_m")
        radius = try o.number("radius_m")
        intervalDays = try o.integer("interval_days")
        lastWatered = try o.time("last_watered")
        nextDue = try o.time("next_due")
        dueIn = try o.integer("due_in_s")
        due = try o.bool("due")
        note = try o.string("note")
        // An area's list, or a plant's one name.
        species = kind == "plant" ? try o.string("species").map { [$0] } : try o.strings("species")
        geometry = o.member("geometry")
    }
}

/// `export`: both layers as one GeoJSON FeatureCollection.
public struct ExportReply: DaemonReply {
    public static let replyClass = "EXPORT"
    public var features: [GeoJSONFeature]

    public init(_ value: JSONValue) throws(ReplyError) {
        let o = try ReplyObject(value, class: Self.replyClass)
        features = try o.objects("features", GeoJSONFeature.init)
    }
}

/// A GeoJSON Feature, kept whole (its members as sent, in order, coordinates as plain arrays)
/// for a client that passes it on, with what a client looks at in its properties.
public struct GeoJSONFeature: Sendable {
    public var members: [(key: String, value: JSONValue)]

    init(_ o: ReplyObject) throws(ReplyError) {
        guard case .object(let members) = o.value else { throw ReplyError("\(o.place) must be an object") }
        guard o.value["type"]?.string == "Feature" else { throw ReplyError("\(o.place) is not a GeoJSON Feature") }
        self.members = members
    }

    /// The `properties` object's members (none when it has none).
    public var properties: [(key: String, value: JSONValue)] {
        guard case .object(let p)? = members.first(where: { $0.key == "properties" })?.value else { return [] }
        return p
    }

    public var geometry: JSONValue? { members.first { $0.key == "geometry" }?.value }

    /// A string property, nil when absent or not a string.
    public func property(_ key: String) -> String? { properties.first { $0.key == key }?.value.string }

    public var id: String? { property("id") }
    public var kind: String? { property("kind") }
    public var project: String? { property("project") }
}

/// A recorded tree (`trees`, `remove_tree`, `undo_tree`).
public struct TreeRecord: Equatable, Sendable {
    public var id: Int64
    public var area: String
    public var species: String
    public var planted: UTCTime?
    public var project: String?
    public var coordinate: Coordinate

    init(_ o: ReplyObject) throws(ReplyError) {
        id = try o.required("id", o.integer)
        area = try o.required("area", o.string)
        species = try o.required("species", o.string)
        planted = try o.time("planted")
        project = try o.string("project")
        coordinate = Coordinate(latitude: try o.required("lat", o.number), longitude: try o.required("lon", o.number))
    }
}

public struct TreesReply: DaemonReply, Equatable {
    public static let replyClass = "TREES"
    public var trees: [TreeRecord]

    public init(_ value: JSONValue) throws(ReplyError) {
        let o = try ReplyObject(value, class: Self.replyClass)
        trees = try o.objects("trees", TreeRecord.init)
    }
}

public struct TreeRemovedReply: DaemonReply, Equatable {
    public static let replyClass = "TREE_REMOVED"
    public var tree: TreeRecord

    public init(_ value: JSONValue) throws(ReplyError) {
        let o = try ReplyObject(value, class: Self.replyClass)
        tree = try TreeRecord(o.required("tree", o.object))
    }
}

/// `plant` (`PLANT`) and `can_plant` (`CAN_PLANT`): the rules' verdict.
public struct PlantReply: DaemonReply, Equatable {
    public static let replyClass = "PLANT"
    public var allowed: Bool
    /// The tree recorded, when allowed and planted.
    public var tree: Int64?
    public var area: String?
    public var species: String?
    /// Why not, when refused.
    public var reason: String?

    public init(_ value: JSONValue) throws(ReplyError) {
        let o = try ReplyObject(value, class: value["class"]?.string == "CAN_PLANT" ? "CAN_PLANT" : Self.replyClass)
        allowed = try o.required("allowed", o.bool)
        tree = try o.integer("tree")
        area = try o.string("area")
        species = try o.string("species")
        reason = try o.string("reason")
    }
}

/// A recorded capture.
public struct CaptureRecord: Equatable, Sendable {
    public var id: Int64
    public var album: String
    public var time: UTCTime
    public var coordinate: Coordinate
    /// The fix's horizontal error, metres.
    public var error: Double?
    public var file: String?
    public var note: String?

    init(_ o: ReplyObject) throws(ReplyError) {
        id = try o.required("id", o.integer)
        album = try o.required("album", o.string)
        time = try o.required("time", o.time)
        coordinate = Coordinate(latitude: try o.required("lat", o.number), longitude: try o.required("lon", o.number))
        error = try o.number("error_m")
        file = try o.string("file")
        note = try o.string("note")
    }
}

/// `capture`: recorded, or how far the album is.
public struct CaptureReply: DaemonReply, Equatable {
    public static let replyClass = "CAPTURE"
    public var album: String
    /// Metres to the album's edge at the last fix, positive inside.
    public var distance: Double?
    public var recorded: Bool
    public var capture: CaptureRecord?
    /// Metres to walk, when outside.
    public var walk: Double?
    /// Why not, when not recorded.
    public var reason: String?

    public init(_ value: JSONValue) throws(ReplyError) {
        let o = try ReplyObject(value, class: Self.replyClass)
        album = try o.required("album", o.string)
        distance = try o.number("distance_m")
        recorded = try o.required("recorded", o.bool)
        capture = try o.object("capture").map { (c) throws(ReplyError) in try CaptureRecord(c) }
        walk = try o.number("walk_m")
        reason = try o.string("reason")
    }
}

public struct CapturesReply: DaemonReply, Equatable {
    public static let replyClass = "CAPTURES"
    public var captures: [CaptureRecord]

    public init(_ value: JSONValue) throws(ReplyError) {
        let o = try ReplyObject(value, class: Self.replyClass)
        captures = try o.objects("captures", CaptureRecord.init)
    }
}

/// `track`: the recorded points, oldest first.
public struct TrackReply: DaemonReply, Equatable {
    public static let replyClass = "TRACK"
    public var points: [TrackPoint]

    public init(_ value: JSONValue) throws(ReplyError) {
        let o = try ReplyObject(value, class: Self.replyClass)
        points = try o.objects("points") { (p) throws(ReplyError) in
            TrackPoint(time: try p.required("time", p.time),
                       coordinate: Coordinate(latitude: try p.required("lat", p.number), longitude: try p.required("lon", p.number)),
                       error: try p.number("error_m") ?? 0)
        }
    }
}
