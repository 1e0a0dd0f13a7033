import AR
import Geo
import JSON
import Regions
import Walks

/// A client's command: one JSON object per line, `{"cmd":…}`.
public enum Command: Equatable, Sendable {
    /// Journal events after `since`, then live ones (`Subscribe`).
    case subscribe(Subscribe)
    /// `ago`: seconds before the board's time at which it was done (an action queued offline).
    case water(plant: String, ago: Double? = nil)
    /// Takes back the plant's last watering (recorded by `water`): its watering before it is in
    /// force again.
    case undoWater(plant: String)
    case state
    /// The regions in force, of a map's view or named, capped; with `geometry`, each with its
    /// GeoJSON geometry (thinned for a zoom).
    case regions(RegionsQuery)
    /// Both layers as one GeoJSON FeatureCollection, as a regions file.
    case export
    /// A region for the user layer.
    case addRegion(NewRegion)
    /// Several Features for the user layer, all or none (a project's areas).
    case addRegions([Region])
    case updateRegion(id: String, RegionUpdate)
    case removeRegion(id: String)
    /// Brings back a region removed from the user layer (`remove_region` by mistake).
    case restoreRegion(id: String)
    /// "May I plant here": at `at`, else at the last fix.
    case canPlant(species: String?, area: String?, at: Coordinate?)
    /// Checks and records a tree: at `at`, else at the last fix.
    /// `ago`: planted that many seconds before the board's time (unless `planted` says when),
    /// where the board was then (unless `at` says where).
    case plant(species: String, area: String?, at: Coordinate?, project: String?, planted: UTCTime?, ago: Double? = nil)
    /// The recorded trees, of one area or project or all.
    case trees(area: String?, project: String?)
    /// Removes tree `id`, or the last recorded when nil (`undo_tree`).
    case removeTree(id: Int64?)
    /// Records a capture in an album, at the last fix, if it is inside.
    /// `ago`: seconds before the board's time at which the photo was taken: recorded where the
    /// board was then (its track).
    case capture(album: String, file: String?, note: String?, ago: Double? = nil)
    case captures(album: String?)
    /// The recorded track between two times (nil: unbounded).
    case track(since: UTCTime?, until: UTCTime?)
    /// A planting plan of `count` trees, the first at `at` (else the last fix).
    case plan(area: String, species: String, count: Int, at: Coordinate?, maxDistance: Double?, seed: UInt64)

    /// The catalog's species whose names answer `query` (empty: all), best first, with the
    /// reforestation areas in force that allow each.
    case species(query: String)

    /// Screen positions of the points of interest (the regions in force) for a camera pose, from
    /// `at`, else the last fix.
    /// `panorama`: the whole circle stacked once (heading and pitch 0) for a live view that turns
    /// (`Panorama`); the heading is then not needed.
    case layout(camera: Camera, options: LayoutOptions, at: Coordinate?, panorama: Bool)

    /// The shortest order to walk through `stops`, from `at` (else the last fix).
    case round(RoundStops, at: Coordinate?)
    /// A trail for the database (journaled, kept across restarts).
    case addTrail(Trail)
    /// The trails with their progress.
    case trails
    case removeTrail(id: String)
    /// Begins trail `id` (one at a time).
    case startTrail(id: String)
    /// Ends the trail under way.
    case stopTrail
    /// Reads the journal back: the `limit` events before seq `before` (nil: the newest).
    case journal(before: Int64?, limit: Int)
    /// The other boards and phones whose last OwnTracks location the board saw on the broker.
    case crew

    /// The command's name, as `cmd` gives it (and as `mqtt.commands` lists it).
    public var name: String {
        switch self {
        case .subscribe: "subscribe"
        case .water: "water"
        case .undoWater: "undo_water"
        case .state: "state"
        case .regions: "regions"
        case .export: "export"
        case .addRegion: "add_region"
        case .addRegions: "add_regions"
        case .updateRegion: "update_region"
        case .removeRegion: "remove_region"
        case .restoreRegion: "restore_region"
        case .canPlant: "can_plant"
        case .plant: "plant"
        case .trees: "trees"
        case .removeTree(let id): id == nil ? "undo_tree" : "remove_tree"
        case .capture: "capture"
        case .captures: "captures"
        case .track: "track"
        case .plan: "plan"
        case .species: "species"
        case .layout: "layout"
        case .round: "round"
        case .addTrail: "add_trail"
        case .trails: "trails"
        case .removeTrail: "remove_trail"
        case .startTrail: "start_trail"
        case .stopTrail: "stop_trail"
        case .journal: "journal"
        case .crew: "crew"
        }
    }

    public static let commands = ["subscribe", "water", "undo_water", "state", "regions", "export", "add_region", "add_regions", "update_region", "remove_region",
                                  "restore_region", "can_plant", "plant", "trees", "remove_tree", "undo_tree", "plan", "layout", "capture", "captures", "track", "species",
                                  "round", "add_trail", "trails", "remove_trail", "start_trail", "stop_trail", "journal", "crew"]

    /// Parses one line; the error is the message the client gets back.
    ///
    /// The grammar is strict JSON (RFC 8259) as Geo's reader reads regions files: one grammar in
    /// the daemon. No byte-order mark, no UTF-16, no trailing commas, no duplicate member names,
    /// no number beyond a Double's range. What a message quotes of the request is cut at
    /// `TextExcerpt.limit` characters.
    public static func parse(_ bytes: some Collection<UInt8>) throws(CommandError) -> Command {
        let (document, members) = try object(bytes)
        return try parse(Members(members), document: document)
    }

    /// A command that carries an `"id"` (a string or a whole number) to match its answer, as
    /// MQTT's are: the request and the id as text (nil when there is none).
    public static func parseWithID(_ bytes: some Collection<UInt8>) -> (request: Result<Command, CommandError>, id: String?) {
        let document: JSONDocument, members: [(key: String, value: JSONValue)]
        do throws(CommandError) { (document, members) = try object(bytes) } catch { return (.failure(error), nil) }
        var id: String?
        if let v = members.first(where: { $0.key == "id" })?.value {
            if let s = v.string { id = s } else if let n = integer(v) { id = String(n) } else {
                return (.failure(CommandError("\"id\" must be a string or a whole number (it comes back with the answer)")), nil)
            }
        }
        do throws(CommandError) {
            return (.success(try parse(Members(members.filter { $0.key != "id" }), document: document)), id)
        } catch {
            return (.failure(error), id)
        }
    }

    /// The bytes as one JSON object.
    static func object(_ bytes: some Collection<UInt8>) throws(CommandError) -> (JSONDocument, [(key: String, value: JSONValue)]) {
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(Array(bytes))
        } catch {
            throw CommandError("not JSON (\(error.message), at byte \(error.column)): send one JSON object per line, e.g. {\"cmd\":\"state\"}")
        }
        guard case let .object(members) = document.root else { throw CommandError("not a JSON object: send {\"cmd\":…}") }
        return (document, members)
    }

    static func parse(_ o: Members, document: JSONDocument) throws(CommandError) -> Command {
        guard let cmdValue = o["cmd"] else { throw CommandError("missing \"cmd\": one of \(commands.joined(separator: ", "))") }
        guard let cmd = cmdValue.string else { throw CommandError("\"cmd\" must be a string") }
        if let c = try streamCommand(cmd, o, document: document) { return c }
        if let c = try regionsCommand(cmd, o, document: document) { return c }
        if let c = try plantingCommand(cmd, o, document: document) { return c }
        if let c = try recordsCommand(cmd, o, document: document) { return c }
        if let c = try walksCommand(cmd, o, document: document) { return c }
        if let c = try journalCommand(cmd, o) { return c }
        throw CommandError("unknown cmd '\(TextExcerpt.short(cmd))': one of \(commands.joined(separator: ", "))")
    }

    /// Every key of `o` but `cmd` must be one of `keys`.
    static func allowed(in o: Members, cmd: String, _ keys: Set<String>) throws(CommandError) { try allowed(keys, in: o, cmd: cmd) }

    /// The subscription, watering and the daemon's state. Nil for another command.
    static func streamCommand(_ cmd: String, _ o: Members, document: JSONDocument) throws(CommandError) -> Command? {
        switch cmd {
        case "subscribe":
            try Self.allowed(in: o, cmd: cmd, ["kinds", "regions", "types", "since", "part", "base_regions", "timing", "positions", "journal"])
            return try subscribe(o)
        case "water", "undo_water":
            try Self.allowed(in: o, cmd: cmd, cmd == "water" ? ["plant", "ago_s"] : ["plant"])
            guard o["plant"] != nil else { throw CommandError("missing \"plant\": the id of the plant watered") }
            guard o["plant"]?.string != nil else { throw CommandError("\"plant\" must be a plant's id (a string)") }
            guard let id = try string(o, "plant") else { throw CommandError("\"plant\" must be a plant's id (a string)") }
            return cmd == "water" ? .water(plant: id, ago: try ago(o)) : .undoWater(plant: id)
        case "state":
            try Self.allowed(in: o, cmd: cmd, [])
            return .state
        default:
            return nil
        }
    }

    /// The regions in force and the user layer's changes. Nil for another command.
    static func regionsCommand(_ cmd: String, _ o: Members, document: JSONDocument) throws(CommandError) -> Command? {
        switch cmd {
        case "regions":
            try Self.allowed(in: o, cmd: cmd, ["geometry", "bbox", "zoom", "limit", "ids"])
            return .regions(try regionsQuery(o))
        case "export":
            try Self.allowed(in: o, cmd: cmd, [])
            return .export
        case "add_region":
            return try addRegion(o, doc: document)
        case "add_regions":
            try Self.allowed(in: o, cmd: cmd, ["features"])
            return try addRegions(o, doc: document)
        case "update_region":
            try Self.allowed(in: o, cmd: cmd, ["region", "name", "radius_m", "interval_days", "species", "last_watered", "note"])
            return try updateRegion(o)
        case "remove_region", "restore_region":
            try Self.allowed(in: o, cmd: cmd, ["region"])
            return cmd == "remove_region" ? .removeRegion(id: try regionID(o)) : .restoreRegion(id: try regionID(o))
        default:
            return nil
        }
    }

    /// Planting: may I plant, record, list and undo trees, plans, species; the AR layout. Nil for another command.
    static func plantingCommand(_ cmd: String, _ o: Members, document: JSONDocument) throws(CommandError) -> Command? {
        switch cmd {
        case "can_plant":
            try Self.allowed(in: o, cmd: cmd, ["species", "area", "at"])
            return .canPlant(species: try string(o, "species"), area: try string(o, "area"), at: try coordinate(o))
        case "plant":
            try Self.allowed(in: o, cmd: cmd, ["species", "area", "at", "project", "planted", "ago_s"])
            guard let species = try string(o, "species") else { throw CommandError("missing \"species\": a Latin or common name from the catalog") }
            return .plant(species: species, area: try string(o, "area"), at: try coordinate(o), project: try text(o, "project"),
                          planted: try time(o, "planted"), ago: try ago(o))
        case "species":
            try Self.allowed(in: o, cmd: cmd, ["query"])
            return .species(query: try text(o, "query") ?? "")
        case "trees":
            try Self.allowed(in: o, cmd: cmd, ["area", "project"])
            return .trees(area: try string(o, "area"), project: try string(o, "project"))
        case "remove_tree":
            try Self.allowed(in: o, cmd: cmd, ["tree"])
            guard let v = o["tree"] else { throw CommandError("missing \"tree\": the tree's number (treeline trees lists them)") }
            guard let n = integer(v), n >= 1 else { throw CommandError("\"tree\" must be a tree's number, a whole number ≥ 1") }
            return .removeTree(id: n)
        case "undo_tree":
            try Self.allowed(in: o, cmd: cmd, [])
            return .removeTree(id: nil)
        case "plan":
            try Self.allowed(in: o, cmd: cmd, ["area", "species", "count", "at", "max_distance", "seed"])
            return try plan(o)
        case "layout":
            try Self.allowed(in: o, cmd: cmd, ["heading", "pitch", "fov", "screen", "box", "sizes", "offset", "max_distance", "max_visible",
                         "max_levels", "clamp", "projection", "at", "panorama"])
            return try layout(o)
        default:
            return nil
        }
    }

    /// Album captures and the track. Nil for another command.
    static func recordsCommand(_ cmd: String, _ o: Members, document: JSONDocument) throws(CommandError) -> Command? {
        switch cmd {
        case "capture":
            try Self.allowed(in: o, cmd: cmd, ["album", "file", "note", "ago_s"])
            guard let album = try string(o, "album") else { throw CommandError("missing \"album\": the album's id (treeline albums lists them)") }
            return .capture(album: album, file: try text(o, "file"), note: try text(o, "note"), ago: try ago(o))
        case "captures":
            try Self.allowed(in: o, cmd: cmd, ["album"])
            return .captures(album: try string(o, "album"))
        case "track":
            try Self.allowed(in: o, cmd: cmd, ["since", "until"])
            let since = try time(o, "since"), until = try time(o, "until")
            if let since, let until, until < since { throw CommandError("\"until\" is before \"since\": nothing could be in between") }
            return .track(since: since, until: until)
        default:
            return nil
        }
    }

    /// Every key of `o` but `cmd` must be one of `keys`.
    static func allowed(_ keys: Set<String>, in o: Members, cmd: String) throws(CommandError) {
        for k in o.keys.sorted() where k != "cmd" && !keys.contains(k) {
            throw CommandError("unknown key \"\(TextExcerpt.short(k))\" for cmd '\(TextExcerpt.short(cmd))'" + (keys.isEmpty ? "" : ": it takes \(keys.sorted().joined(separator: ", "))"))
        }
    }

    /// `subscribe`: the filter, where to resume (`since`, `part`), whether to add timings.
    static func subscribe(_ o: Members) throws(CommandError) -> Command {
        var filter = EventFilter(kinds: try strings(o, "kinds", from: ["reforestation", "plant", "album", "trail", "layer"]),
                                 regions: try strings(o, "regions"),
                                 types: try strings(o, "types", from: eventTypes))
        if let v = o["base_regions"] {
            guard let b = boolean(v) else { throw CommandError("\"base_regions\" must be true or false") }
            filter.baseRegions = b
        }
        var since: Int64?
        if let v = o["since"], !v.isNull {
            guard let n = integer(v), n >= 0 else {
                if case .number(let d) = v, d.isFinite, d == d.rounded(), d > Double(maxInteger) {
                    throw CommandError("\"since\" is too large: seqs go up to \(maxInteger); send the last seq you received")
                }
                throw CommandError("\"since\" must be a whole number ≥ 0 (the last seq you received)")
            }
            since = n
        }
        var part: Int64?
        if let v = o["part"], !v.isNull {
            guard since != nil, filter.baseRegions else {
                throw CommandError("\"part\" resumes within a base_layer record's region events: send it with \"since\" (that record's seq) and \"base_regions\":true")
            }
            guard let n = integer(v), n >= 0 else {
                throw CommandError("\"part\" must be a whole number ≥ 0 (the last part you received; 0: the record itself, none of its events)")
            }
            part = n
        }
        var timing = false
        if let v = o["timing"] {
            guard let b = boolean(v) else { throw CommandError("\"timing\" must be true or false") }
            timing = b
        }
        var positions = false
        if let v = o["positions"] {
            guard let b = boolean(v) else { throw CommandError("\"positions\" must be true or false") }
            positions = b
        }
        var journal: String?
        if let v = o["journal"], !v.isNull {
            guard let name = v.string, Subscribe.isJournalName(name) else {
                throw CommandError("\"journal\" must be the journal's name as STATE or SUBSCRIBED gave it (1 to \(Subscribe.journalNameBytes) bytes)")
            }
            journal = name
        }
        return .subscribe(Subscribe(filter: filter, since: since, part: part, timing: timing, positions: positions, journal: journal))
    }

    /// The longest an action may have waited in a phone's queue, seconds (a week).
    public static let maxAgo = 7 * 86_400.0

    /// `ago_s`: how long before the board's time an action queued offline was done.
    static func ago(_ o: Members) throws(CommandError) -> Double? {
        guard let v = o["ago_s"], !v.isNull else { return nil }
        guard let n = v.number, n.isFinite, (0...maxAgo).contains(n) else {
            throw CommandError("\"ago_s\" must be a number of seconds from 0 to \(Int(maxAgo)) (a week): how long ago it was done")
        }
        return n
    }

    /// `plan`: N trees in an area from a point, each at least the species' spacing apart.
    static func plan(_ o: Members) throws(CommandError) -> Command {
        guard let area = try string(o, "area") else { throw CommandError("missing \"area\": the reforestation area's id") }
        guard let species = try string(o, "species") else { throw CommandError("missing \"species\": a Latin or common name from the catalog") }
        guard let c = o["count"] else { throw CommandError("missing \"count\": how many trees") }
        guard let count = integer(c), (1...10_000).contains(count) else { throw CommandError("\"count\" must be a whole number from 1 to 10000") }
        var maxDistance: Double?
        if let m = o["max_distance"] {
            guard let n = m.number, n > 0, n.isFinite else {
                throw CommandError("\"max_distance\" must be a number of metres above 0")
            }
            maxDistance = n
        }
        var seed: UInt64 = 1
        if let v = o["seed"] {
            guard let n = integer(v), n >= 0 else { throw CommandError("\"seed\" must be a whole number ≥ 0") }
            seed = UInt64(n)
        }
        return .plan(area: area, species: species, count: Int(count), at: try coordinate(o), maxDistance: maxDistance, seed: seed)
    }

    static let eventTypes: Set<String> = ["enter", "exit", "dwell", "water_due", "watered", "water_undone", "capture_allowed", "capture_locked",
                                          "planting_allowed", "planting_forbidden", "region_added", "region_updated", "region_removed", "base_layer",
                                          "trail_added", "trail_removed", "trail_started", "trail_stopped", "checkpoint_reached",
                                          "checkpoint_out_of_order", "trail_completed"]

    /// The largest whole number a request may carry: JSON numbers are read as Doubles, exact
    /// up to 2⁵³.
    static let maxInteger: Int64 = 1 << 53

    /// An object's members by name (the reader has already refused duplicate names).
    struct Members {
        let members: [(key: String, value: JSONValue)]
        init(_ members: [(key: String, value: JSONValue)]) { self.members = members }
        subscript(key: String) -> JSONValue? { members.first { $0.key == key }?.value }
        var keys: [String] { members.map(\.key) }
    }

    /// A list of names, nil when absent or null. An empty list is refused: it would match no
    /// event, and a subscriber would wait for ever.
    static func strings(_ o: Members, _ key: String, from known: Set<String>? = nil) throws(CommandError) -> Set<String>? {
        guard let v = o[key], !v.isNull else { return nil }
        guard case let .array(items) = v, items.allSatisfy({ $0.string != nil }) else {
            throw CommandError("\"\(key)\" must be a list of strings")
        }
        guard !items.isEmpty else {
            throw CommandError("\"\(key)\" is empty, so no event would ever match: leave it out to get every one")
        }
        let set = Set(items.compactMap(\.string))
        if let problem = set.lazy.compactMap({ PlainText.problem($0, field: "\"\(key)\"") }).first { throw CommandError(problem) }
        if let known, let bad = set.subtracting(known).sorted().first {
            throw CommandError("\"\(key)\": unknown '\(TextExcerpt.short(bad))': one of \(known.sorted().joined(separator: ", "))")
        }
        return set
    }

    static func string(_ o: Members, _ key: String) throws(CommandError) -> String? {
        guard let v = o[key], !v.isNull else { return nil }
        guard let s = v.string, !s.isEmpty else { throw CommandError("\"\(key)\" must be a non-empty string") }
        if let problem = PlainText.problem(s, field: "\"\(key)\"") { throw CommandError(problem) }
        return s
    }

    /// `"at":[lat, lon]` in decimal degrees.
    static func coordinate(_ o: Members) throws(CommandError) -> Coordinate? {
        guard let v = o["at"], !v.isNull else { return nil }
        guard case let .array(a) = v, a.count == 2, let lat = a[0].number, let lon = a[1].number,
              abs(lat) <= 90, abs(lon) <= 180 else {
            throw CommandError("\"at\" must be [latitude, longitude] in decimal degrees")
        }
        return Coordinate(latitude: lat, longitude: lon)
    }

    /// The `layout` command: the options of `treeline layout`, as JSON.
    static func layout(_ o: Members) throws(CommandError) -> Command {
        func number(_ key: String, _ what: String) throws(CommandError) -> Double? {
            guard let v = o[key], !v.isNull else { return nil }
            guard let n = v.number, n.isFinite else { throw CommandError("\"\(key)\" must be \(what)") }
            return n
        }
        func pair(_ key: String, _ what: String) throws(CommandError) -> (Double, Double)? {
            guard let v = o[key], !v.isNull else { return nil }
            guard case let .array(a) = v, a.count == 2, let x = a[0].number, let y = a[1].number else {
                throw CommandError("\"\(key)\" must be \(what)")
            }
            return (x, y)
        }
        var panorama = false
        if let v = o["panorama"] {
            guard let b = boolean(v) else { throw CommandError("\"panorama\" must be true or false") }
            panorama = b
        }
        let heading = try number("heading", "a number of degrees clockwise from true north")
        if heading == nil && !panorama {
            throw CommandError("missing \"heading\": where the camera looks, degrees from true north (or \"panorama\":true for the whole circle)")
        }
        guard let fov = try pair("fov", "[horizontal, vertical] in degrees") else { throw CommandError("missing \"fov\": [horizontal, vertical] in degrees") }
        guard let screen = try pair("screen", "[width, height] in pixels") else { throw CommandError("missing \"screen\": [width, height] in pixels") }
        let box = try pair("box", "[width, height] in pixels") ?? (100, 40)
        let sizes = try boxSizes(o)
        var offset = DistanceOffset.none
        if let v = o["offset"] {
            guard let s = v.string, let parsed = DistanceOffset(written: s) else {
                throw CommandError("\"offset\" must be \"none\", \"automatic\" or \"manual:T:M\" (T metres, M pixels per metre)")
            }
            offset = parsed
        }
        var projection = Projection.linear
        if let v = o["projection"] {
            guard let s = v.string, let p = Projection(rawValue: s) else { throw CommandError("\"projection\" must be \"linear\" or \"pinhole\"") }
            projection = p
        }
        var maxVisible = 100
        if let v = o["max_visible"] {
            guard let n = integer(v) else { throw CommandError("\"max_visible\" must be a whole number") }
            maxVisible = Int(clamping: n)
        }
        var maxLevels: Int?
        if let v = o["max_levels"], !v.isNull {
            guard let n = integer(v) else { throw CommandError("\"max_levels\" must be a whole number") }
            maxLevels = Int(clamping: n)
        }
        var clamp = false
        if let v = o["clamp"] {
            guard let b = boolean(v) else { throw CommandError("\"clamp\" must be true or false") }
            clamp = b
        }
        let camera = Camera(screenWidth: screen.0, screenHeight: screen.1, horizontalFOV: fov.0, verticalFOV: fov.1,
                            heading: heading ?? 0, pitch: try number("pitch", "a number of degrees") ?? 0, projection: projection)
        let options = LayoutOptions(boxWidth: box.0, boxHeight: box.1, sizes: sizes, offset: offset,
                                    maxDistance: try number("max_distance", "a number of metres") ?? 0,
                                    maxVisible: maxVisible, maxLevels: maxLevels, clampToScreen: clamp)
        if let problem = (camera.problems + options.problems).first { throw CommandError(problem.message) }
        return .layout(camera: camera, options: options, at: try coordinate(o), panorama: panorama)
    }

    /// `"sizes":{"id":[width, height], …}`: boxes of their own size (a view sizes each to its text).
    /// The count and the sides are checked with the other options.
    static func boxSizes(_ o: Members) throws(CommandError) -> [String: BoxSize] {
        guard let v = o["sizes"], !v.isNull else { return [:] }
        let what = "\"sizes\" must be an object of box sizes by id, {\"id\":[width, height], …} in pixels"
        guard case let .object(members) = v else { throw CommandError(what) }
        guard members.count <= LayoutOptions.maxSizes else {
            throw CommandError("\"sizes\": at most \(LayoutOptions.maxSizes) boxes may have their own size (\(members.count) given): size the boxes a view shows")
        }
        var sizes: [String: BoxSize] = [:]
        sizes.reserveCapacity(members.count)
        for (id, value) in members {
            if let problem = PlainText.problem(id, field: "an id in \"sizes\"") { throw CommandError(problem) }
            guard case let .array(a) = value, a.count == 2, let w = a[0].number, let h = a[1].number else {
                throw CommandError("\"sizes\": the box of '\(TextExcerpt.short(id))' must be [width, height] in pixels")
            }
            sizes[id] = BoxSize(width: w, height: h)
        }
        return sizes
    }

    /// A whole number of at most 2⁵³ in magnitude, else nil.
    static func integer(_ v: JSONValue) -> Int64? {
        guard let d = v.number, d.isFinite, d == d.rounded(), abs(d) <= Double(maxInteger) else { return nil }
        return Int64(d)
    }

    static func boolean(_ v: JSONValue) -> Bool? {
        if case .bool(let b) = v { return b }
        return nil
    }
}
