import AR
import Geo
import JSON
import Regions
import Walks

/// A command written as the JSON line `parse` reads: a client (the CLI) builds a `Command` and
/// sends these bytes, so no client spells a key of its own. `Command.parse(c.json) == c` for
/// every command `parse` gives: numbers are written in full (a Double's shortest form that reads
/// back as the same Double, whole numbers as integers), times to the nanosecond.
extension Command {
    /// `{"cmd":…,…}`, without the newline.
    public var json: [UInt8] {
        var o = CommandObject(cmd: name)
        switch self {
        case .subscribe(let s): o.subscribe(s)
        case .water(let plant, let ago):
            o.string("plant", plant)
            o.number("ago_s", ago)
        case .undoWater(let plant): o.string("plant", plant)
        case .state, .export: break
        case .regions(let query): o.regionsQuery(query)
        case .addRegion(.feature(let region)): o.key("feature") { RegionFeature.append(region, to: &$0) }
        case .addRegion(.short(let s)): o.shortRegion(s)
        case .addRegions(let regions):
            o.key("features") { out in Self.appendList(regions, to: &out) { RegionFeature.append($0, to: &$1) } }
        case .updateRegion(let id, let u): o.update(id, u)
        case .removeRegion(let id), .restoreRegion(let id): o.string("region", id)
        case .canPlant(let species, let area, let at):
            o.string("species", species)
            o.string("area", area)
            o.coordinate("at", at)
        case .plant(let species, let area, let at, let project, let planted, let ago):
            o.string("species", species)
            o.string("area", area)
            o.coordinate("at", at)
            o.string("project", project)
            o.time("planted", planted)
            o.number("ago_s", ago)
        case .trees(let area, let project):
            o.string("area", area)
            o.string("project", project)
        case .removeTree(let id): o.integer("tree", id)
        case .capture(let album, let file, let note, let ago):
            o.string("album", album)
            o.string("file", file)
            o.string("note", note)
            o.number("ago_s", ago)
        case .captures(let album): o.string("album", album)
        case .track(let since, let until):
            o.time("since", since)
            o.time("until", until)
        case .plan(let area, let species, let count, let at, let maxDistance, let seed):
            o.string("area", area)
            o.string("species", species)
            o.integer("count", Int64(count))
            o.coordinate("at", at)
            o.number("max_distance", maxDistance)
            o.key("seed") { $0.append(contentsOf: String(seed).utf8) }
        case .species(let query): if !query.isEmpty { o.string("query", query) }
        case .layout(let camera, let options, let at, let panorama): o.layout(camera, options, at: at, panorama: panorama)
        case let .round(stops, at): o.round(stops, at: at)
        case .addTrail(let t):
            o.string("trail", t.id)
            o.string("name", t.name)
            o.key("checkpoints") { out in
                var w = JSONWriter(appendingTo: out)
                w.array(t.checkpoints) { w, c in
                    if let a = c.action { w.object { $0.member("region", c.region); $0.member("action", a.rawValue) } } else { w.value(c.region) }
                }
                out = w.bytes
            }
            if !t.requires.isEmpty { o.strings("requires", t.requires) }
            o.string("project", t.project)
        case .trails, .stopTrail, .crew: break
        case let .journal(before, limit): o.journal(before: before, limit: limit)
        case .removeTrail(let id), .startTrail(let id): o.string("trail", id)
        }
        return o.finished()
    }

    /// `[a,b,…]`, each item written by `each`.
    static func appendList<T>(_ items: [T], to out: inout [UInt8], _ each: (T, inout [UInt8]) -> Void) {
        JSONWriter.appendArray(items, to: &out, each)
    }

    /// An ISO 8601 time as `parse` takes it (`2026-05-01T08:00:00Z`, or a date), checked as the
    /// daemon checks it: a client that reads a time from its user refuses it with the daemon's
    /// own words (a typed command cannot carry a time that is not one).
    public static func time(_ text: String, key: String) throws(CommandError) -> UTCTime {
        guard text.utf8.count <= 64, let t = UTCTime(iso8601: text) else {
            throw CommandError("\"\(key)\" must be an ISO 8601 time such as 2026-05-01T08:00:00Z, or a date such as 2026-05-01")
        }
        return t
    }
}

/// The numbers and times of a command, written so that they read back exactly.
public enum WireNumber {
    /// A whole number below 2⁵³ as an integer (`30`), any other finite number in its shortest
    /// form that reads back as the same Double (`40.1031`, `1e-07`); `null` when not finite.
    public static func append(_ v: Double, to out: inout [UInt8]) {
        guard v.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        out.append(contentsOf: text(v).utf8)
    }

    /// The text `append` writes, for a finite `v`.
    public static func text(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 9_007_199_254_740_992, !(v == 0 && v.sign == .minus) { return String(Int64(v)) }
        return v.description
    }

    /// `"2026-05-01T08:00:00.000Z"`, with six more digits before the `Z` when the time is not a
    /// whole millisecond.
    public static func appendTime(_ t: UTCTime, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        t.appendISO8601(to: &out)
        let below = t.nanosOfDay % 1_000_000
        if below != 0 {
            out.removeLast()  // the Z
            let digits = String(below)
            out.append(contentsOf: (String(repeating: "0", count: 6 - digits.count) + digits + "Z").utf8)
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// A command's object, member by member, from `{"cmd":…`.
struct CommandObject {
    private var w = JSONWriter()

    init(cmd: String) {
        w.beginObject()
        w.member("cmd", cmd)
    }

    mutating func finished() -> [UInt8] {
        w.endObject()
        return w.bytes
    }

    /// `"key":` then what `value` writes.
    mutating func key(_ key: String, _ value: (inout [UInt8]) -> Void) {
        w.member(key, raw: value)
    }

    mutating func string(_ k: String, _ s: String?) {
        guard let s else { return }
        key(k) { JSONBytes.appendString(s, to: &$0) }
    }

    mutating func strings(_ k: String, _ list: [String]?) {
        guard let list else { return }
        key(k) { out in Command.appendList(list, to: &out) { JSONBytes.appendString($0, to: &$1) } }
    }

    mutating func number(_ k: String, _ v: Double?) {
        guard let v else { return }
        key(k) { WireNumber.append(v, to: &$0) }
    }

    mutating func integer(_ k: String, _ n: Int64?) {
        guard let n else { return }
        key(k) { $0.append(contentsOf: String(n).utf8) }
    }

    mutating func bool(_ k: String, _ b: Bool) {
        key(k) { $0.append(contentsOf: (b ? "true" : "false").utf8) }
    }

    mutating func null(_ k: String) {
        key(k) { $0.append(contentsOf: "null".utf8) }
    }

    mutating func time(_ k: String, _ t: UTCTime?) {
        guard let t else { return }
        key(k) { WireNumber.appendTime(t, to: &$0) }
    }

    /// `[latitude, longitude]`, as `at` is given.
    mutating func coordinate(_ k: String, _ c: Coordinate?) {
        guard let c else { return }
        pair(k, c.latitude, c.longitude)
    }

    mutating func pair(_ k: String, _ a: Double, _ b: Double) {
        key(k) { out in
            out.append(UInt8(ascii: "["))
            WireNumber.append(a, to: &out)
            out.append(UInt8(ascii: ","))
            WireNumber.append(b, to: &out)
            out.append(UInt8(ascii: "]"))
        }
    }

    /// `round`'s stops (named regions, a kind, or points) and `at`.
    mutating func round(_ stops: RoundStops, at: Coordinate?) {
        switch stops {
        case .regions(let ids): strings("regions", ids)
        case let .kind(kind, due):
            string("kind", kind.rawValue)
            if due { bool("due", true) }
        case .points(let points):
            key("points") { out in
                Command.appendList(points, to: &out) { c, out in
                    out.append(UInt8(ascii: "["))
                    WireNumber.append(c.latitude, to: &out)
                    out.append(UInt8(ascii: ","))
                    WireNumber.append(c.longitude, to: &out)
                    out.append(UInt8(ascii: "]"))
                }
            }
        }
        coordinate("at", at)
    }

    /// `journal`'s page: `before` when given, and `limit`.
    mutating func journal(before: Int64?, limit: Int) {
        integer("before", before)
        integer("limit", Int64(limit))
    }

    mutating func subscribe(_ s: Subscribe) {
        strings("kinds", s.filter.kinds?.sorted())
        strings("regions", s.filter.regions?.sorted())
        strings("types", s.filter.types?.sorted())
        integer("since", s.since)
        integer("part", s.part)
        if s.filter.baseRegions { bool("base_regions", true) }
        if s.timing { bool("timing", true) }
        if s.positions { bool("positions", true) }
        string("journal", s.journal)
    }

    mutating func shortRegion(_ s: ShortRegion) {
        string("kind", s.kind.rawValue)
        string("id", s.id)
        string("name", s.name)
        integer("interval_days", s.intervalDays.map(Int64.init))
        time("last_watered", s.lastWatered)
        string("species", s.species)
        number("radius_m", s.radius)
        coordinate("at", s.at)
        string("note", s.note)
        number("ago_s", s.ago)
    }

    mutating func update(_ id: String, _ u: RegionUpdate) {
        string("region", id)
        string("name", u.name)
        number("radius_m", u.radius)
        integer("interval_days", u.intervalDays.map(Int64.init))
        if u.species == [] { null("species") } else { strings("species", u.species) }
        switch u.lastWatered {
        case .none: break
        case .some(.none): null("last_watered")
        case .some(.some(let t)): time("last_watered", t)
        }
        switch u.note {
        case .none: break
        case .some(.none): null("note")
        case .some(.some(let n)): string("note", n)
        }
    }

    mutating func layout(_ camera: Camera, _ options: LayoutOptions, at: Coordinate?, panorama: Bool) {
        number("heading", camera.heading)
        number("pitch", camera.pitch)
        pair("fov", camera.horizontalFOV, camera.verticalFOV)
        pair("screen", camera.screenWidth, camera.screenHeight)
        pair("box", options.boxWidth, options.boxHeight)
        if !options.sizes.isEmpty {
            key("sizes") { out in
                out.append(UInt8(ascii: "{"))
                for (k, id) in options.sizes.keys.sorted().enumerated() {
                    if k > 0 { out.append(UInt8(ascii: ",")) }
                    let size = options.sizes[id]!
                    JSONBytes.appendString(id, to: &out)
                    out.append(contentsOf: ":[".utf8)
                    WireNumber.append(size.width, to: &out)
                    out.append(UInt8(ascii: ","))
                    WireNumber.append(size.height, to: &out)
                    out.append(UInt8(ascii: "]"))
                }
                out.append(UInt8(ascii: "}"))
            }
        }
        switch options.offset {
        case .none: string("offset", "none")
        case .automatic: string("offset", "automatic")
        case .manual(let threshold, let pixelsPerMetre):
            string("offset", "manual:\(WireNumber.text(threshold)):\(WireNumber.text(pixelsPerMetre))")
        }
        number("max_distance", options.maxDistance)
        integer("max_visible", Int64(options.maxVisible))
        integer("max_levels", options.maxLevels.map(Int64.init))
        bool("clamp", options.clampToScreen)
        string("projection", camera.projection.rawValue)
        coordinate("at", at)
        bool("panorama", panorama)
    }
}

/// A region as the GeoJSON Feature `add_region` and `add_regions` take, every number and time
/// in full (`Region.appendFeature`, the daemon's, rounds to 1e-9 degree and to the millisecond):
/// the daemon reads back the very region.
enum RegionFeature {
    static func append(_ r: Region, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"type":"Feature","geometry":"#.utf8)
        appendGeometry(r.shape, to: &out)
        out.append(contentsOf: #","properties":"#.utf8)
        var w = JSONWriter()
        w.beginObject()
        func member(_ key: String, _ value: (inout [UInt8]) -> Void) { w.member(key, raw: value) }
        func string(_ key: String, _ s: String?) { if let s { member(key) { JSONBytes.appendString(s, to: &$0) } } }
        func number(_ key: String, _ v: Double?) { if let v { member(key) { WireNumber.append(v, to: &$0) } } }
        string("id", r.id.isEmpty ? nil : r.id)  // none: the daemon gives one
        string("kind", r.kind.rawValue)
        string("name", r.name)
        if case let .circle(_, radius) = r.shape { number("radius_m", radius) }
        if r.kind == .plant {
            number("interval_days", r.intervalDays.map(Double.init))
            if let t = r.lastWatered { member("last_watered") { WireNumber.appendTime(t, to: &$0) } }
            if let one = r.species.first { member("species") { JSONBytes.appendString(one, to: &$0) } }
        }
        if r.kind == .reforestation {
            member("species") { out in Command.appendList(r.species, to: &out) { JSONBytes.appendString($0, to: &$1) } }
        }
        number("priority", r.priority)
        string("note", r.note)
        string("project", r.project)
        w.endObject()
        out.append(contentsOf: w.bytes)
        out.append(UInt8(ascii: "}"))
    }

    /// A Point (a circle's centre), a Polygon or a MultiPolygon, rings closed.
    static func appendGeometry(_ shape: Shape, to out: inout [UInt8]) {
        switch shape {
        case let .circle(center, _):
            out.append(contentsOf: #"{"type":"Point","coordinates":"#.utf8)
            appendPosition(center, to: &out)
        case let .polygons(parts):
            out.append(contentsOf: (parts.count == 1 ? #"{"type":"Polygon","coordinates":"# : #"{"type":"MultiPolygon","coordinates":"#).utf8)
            if parts.count == 1 { appendRings(parts[0], to: &out) } else { JSONWriter.appendArray(parts, to: &out, appendRings) }
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A polygon's rings, each closed (its first position again at the end).
    static func appendRings(_ polygon: Polygons.Polygon, to out: inout [UInt8]) {
        JSONWriter.appendArray(polygon, to: &out) { ring, out in JSONWriter.appendArray(ring.closed, to: &out, appendPosition) }
    }

    /// `[longitude, latitude]`.
    static func appendPosition(_ c: Coordinate, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        WireNumber.append(c.longitude, to: &out)
        out.append(UInt8(ascii: ","))
        WireNumber.append(c.latitude, to: &out)
        out.append(UInt8(ascii: "]"))
    }
}
