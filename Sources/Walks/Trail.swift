import JSON
import Regions

/// A named, ordered list of checkpoints (regions), each with what to do there, and the trails
/// that must be completed before it may start (levels that unlock). Pure: read from JSON,
/// written as JSON; the engine checks it against the regions in force.
public struct Trail: Sendable, Equatable {
    public var id: String
    public var name: String
    public var checkpoints: [Checkpoint]
    /// Trails to complete first.
    public var requires: [String]
    /// The planting project it belongs to, if any (exported with the project).
    public var project: String?

    public init(id: String, name: String? = nil, checkpoints: [Checkpoint], requires: [String] = [], project: String? = nil) {
        self.id = id
        self.name = name ?? id
        self.checkpoints = checkpoints
        self.requires = requires
        self.project = project
    }

    /// One stop of a trail: a region, and what to do there.
    public struct Checkpoint: Sendable, Equatable {
        public var region: String
        public var action: Action?
        public init(region: String, action: Action? = nil) {
            self.region = region
            self.action = action
        }

        /// Why the action cannot be done at a region of `kind`, nil when it can.
        public func problem(regionKind kind: RegionKind) -> String? {
            guard let action, action.kind != kind else { return nil }
            return "'\(action.rawValue)' is done at a \(action.kind.rawValue), and '\(region)' is a\(kind == .album ? "n" : "") \(kind.rawValue)"
        }
    }

    /// What a checkpoint asks for; each fits one kind of region.
    public enum Action: String, Sendable, CaseIterable {
        case water, capture, plant

        /// The kind of region where the action can be done.
        public var kind: RegionKind {
            switch self {
            case .water: .plant
            case .capture: .album
            case .plant: .reforestation
            }
        }

        /// What is done at a region of `kind`: the other way of `kind`.
        public init(doneAt kind: RegionKind) {
            switch kind {
            case .plant: self = .water
            case .album: self = .capture
            case .reforestation: self = .plant
            }
        }
    }

    /// The most checkpoints a trail has, and trails it requires.
    public static let maxCheckpoints = 1000
    public static let maxRequires = 16
    /// The longest id, in bytes.
    public static let maxIDBytes = 200

    /// `id` as a trail's id: non-empty, plain, at most `maxIDBytes`; else what is wrong.
    public static func problem(id: String) -> String? {
        do { _ = try identifier(.string(id), "\"trail\"") } catch { return error.message }
        return nil
    }

    /// The definition's members (`id`, `name`, `checkpoints`, `requires`, `project`).
    public func writeMembers(_ o: inout JSONWriter) {
        o.member("id", id)
        o.member("name", name)
        o.member("checkpoints") { w in
            w.array(checkpoints) { w, c in
                w.object { o in
                    o.member("region", c.region)
                    if let a = c.action { o.member("action", a.rawValue) }
                }
            }
        }
        o.member("requires") { $0.array(requires) { $0.value($1) } }
        o.member("project", ifPresent: project)
    }

    /// The definition as one JSON object, as the database keeps it and `add_trail` takes it.
    public var json: [UInt8] { JSONWriter.object { writeMembers(&$0) } }

    /// A trail from a JSON object's members: `id` (or `trail`), `name`, `checkpoints` (region ids,
    /// or `{"region":…,"action":…}`), `requires`, `project`. Every value checked and bounded.
    public static func read(_ members: [(key: String, value: JSONValue)]) throws(TrailError) -> Trail {
        func member(_ k: String) -> JSONValue? { members.first { $0.key == k }?.value }
        for (k, _) in members where !["id", "trail", "name", "checkpoints", "requires", "project"].contains(k) {
            throw TrailError("unknown key \"\(TextExcerpt.short(k))\" in a trail: it takes trail (its id), name, checkpoints, requires, project")
        }
        if member("trail") != nil && member("id") != nil { throw TrailError("give the trail's id once: \"trail\" (or \"id\", as trails lists it), not both") }
        guard let idValue = member("trail") ?? member("id") else { throw TrailError("missing \"trail\": the trail's id, e.g. \"morning-round\"") }
        let id = try identifier(idValue, "\"trail\"")
        var name = id
        if let v = member("name"), !v.isNull {
            guard let s = v.string, !s.isEmpty, s.utf8.count <= Region.maxTextBytes else {
                throw TrailError("\"name\" must be a non-empty string of at most \(Region.maxTextBytes) bytes")
            }
            if let problem = PlainText.problem(s, field: "\"name\"") { throw TrailError(problem) }
            name = s
        }
        guard let list = member("checkpoints") else { throw TrailError("missing \"checkpoints\": the regions to walk through, in order, e.g. [\"p1\",{\"region\":\"p2\",\"action\":\"water\"}]") }
        guard case let .array(items) = list, !items.isEmpty else { throw TrailError("\"checkpoints\" must be a non-empty list of region ids (or {\"region\":…,\"action\":…})") }
        guard items.count <= maxCheckpoints else { throw TrailError("\"checkpoints\" has \(items.count) entries: a trail takes at most \(maxCheckpoints); split it in levels") }
        var checkpoints: [Checkpoint] = []
        checkpoints.reserveCapacity(items.count)
        for (k, item) in items.enumerated() {
            let c = try checkpoint(item, k)
            // Entering a region once cannot be two visits: the walker would have to leave between them.
            if let last = checkpoints.last, last.region == c.region {
                throw TrailError("checkpoints \(k) and \(k + 1) are both '\(TextExcerpt.short(c.region))': one visit reaches both; put another region between them")
            }
            checkpoints.append(c)
        }
        var requires: [String] = []
        if let v = member("requires"), !v.isNull {
            guard case let .array(ids) = v else { throw TrailError("\"requires\" must be a list of trail ids") }
            guard ids.count <= maxRequires else { throw TrailError("\"requires\" names \(ids.count) trails: at most \(maxRequires)") }
            for item in ids {
                let r = try identifier(item, "\"requires\"")
                guard r != id else { throw TrailError("trail '\(TextExcerpt.short(id))' cannot require itself") }
                if !requires.contains(r) { requires.append(r) }
            }
        }
        var project: String?
        if let v = member("project"), !v.isNull {
            guard let s = v.string, !s.isEmpty, s.utf8.count <= Region.maxTextBytes else { throw TrailError("\"project\" must be a non-empty string") }
            if let problem = PlainText.problem(s, field: "\"project\"") { throw TrailError(problem) }
            project = s
        }
        return Trail(id: id, name: name, checkpoints: checkpoints, requires: requires, project: project)
    }

    /// A stored or exported definition read back.
    public static func read(json bytes: [UInt8]) throws(TrailError) -> Trail {
        let document: JSONDocument
        do { document = try JSONDocument.parse(bytes) } catch { throw TrailError("not JSON: \(error.message)") }
        guard case let .object(members) = document.root else { throw TrailError("a trail must be a JSON object") }
        return try read(members)
    }

    static func checkpoint(_ item: JSONValue, _ k: Int) throws(TrailError) -> Checkpoint {
        if item.string != nil { return Checkpoint(region: try identifier(item, "checkpoint \(k + 1)")) }
        guard case let .object(members) = item else {
            throw TrailError("checkpoint \(k + 1) must be a region id or {\"region\":…,\"action\":…}")
        }
        var region: String?, action: Action?
        for (key, value) in members {
            switch key {
            case "region": region = try identifier(value, "checkpoint \(k + 1)'s \"region\"")
            case "action":
                guard value.isNull || value.string != nil else { throw TrailError("checkpoint \(k + 1)'s \"action\" must be water, capture or plant") }
                if let s = value.string {
                    guard let a = Action(rawValue: s) else {
                        throw TrailError("checkpoint \(k + 1)'s \"action\" '\(TextExcerpt.short(s))' is not one of water, capture, plant")
                    }
                    action = a
                }
            default: throw TrailError("checkpoint \(k + 1): unknown key \"\(TextExcerpt.short(key))\": it takes region, action")
            }
        }
        guard let region else { throw TrailError("checkpoint \(k + 1) has no \"region\"") }
        return Checkpoint(region: region, action: action)
    }

    /// An id: a non-empty plain string of at most `maxIDBytes`.
    static func identifier(_ v: JSONValue, _ what: String) throws(TrailError) -> String {
        guard let s = v.string, !s.isEmpty else { throw TrailError("\(what) must be an id (a non-empty string)") }
        guard s.utf8.count <= maxIDBytes else { throw TrailError("\(what) is over \(maxIDBytes) bytes") }
        if let problem = PlainText.problem(s, field: what) { throw TrailError(problem) }
        return s
    }
}

/// Why a trail was refused: the message says what to send.
public struct TrailError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
