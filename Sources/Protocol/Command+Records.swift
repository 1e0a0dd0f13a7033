import Geo
import JSON
import Regions

/// The grammar of the commands that change regions and records.
extension Command {
    /// `add_region`: `{"feature":{…}}`, or the short form for a plant or an album.
    static func addRegion(_ o: Members, doc: JSONDocument) throws(CommandError) -> Command {
        if let feature = o["feature"] {
            try allowed(["feature"], in: o, cmd: "add_region")
            var counted = 0
            if let problem = GeometryLimits.standard.problem(feature: feature, counted: &counted) {
                throw CommandError("the feature is not taken: \(problem); split it into several regions")
            }
            do {
                return .addRegion(.feature(try RegionFile.feature(feature, in: doc, source: "add_region", idOptional: true)))
            } catch {
                throw CommandError("the feature is not a region: " + error.issues.map(\.message).joined(separator: "; "))
            }
        }
        try allowed(["kind", "id", "name", "interval_days", "last_watered", "species", "radius_m", "at", "note", "feature", "ago_s"], in: o, cmd: "add_region")
        guard let k = o["kind"] else {
            throw CommandError("missing \"kind\": \"plant\" or \"album\" (or send a GeoJSON Feature as \"feature\")")
        }
        guard let name = k.string, let kind = RegionKind(rawValue: name) else { throw CommandError("\"kind\" must be \"plant\" or \"album\"") }
        guard kind != .reforestation else {
            throw CommandError("a reforestation area is a polygon with its species: send it as a GeoJSON Feature, {\"cmd\":\"add_region\",\"feature\":{…}}")
        }
        guard let title = try text(o, "name") else { throw CommandError("missing \"name\": what to call the \(kind.rawValue)") }
        var short = ShortRegion(kind: kind, id: try string(o, "id"), name: title, at: try coordinate(o), note: try text(o, "note"))
        if let id = short.id { try checkID(id) }
        short.ago = try ago(o)
        if let v = o["radius_m"] {
            guard let r = v.number, Region.radiusLimits.contains(r) else {
                throw CommandError("\"radius_m\" must be a number of metres from \(Wording.number(Region.radiusLimits.lowerBound)) to \(Wording.number(Region.radiusLimits.upperBound))")
            }
            short.radius = r
        }
        switch kind {
        case .plant:
            guard let v = o["interval_days"] else {
                throw CommandError("missing \"interval_days\": a plant is watered every 1 to 365 days")
            }
            short.intervalDays = try intervalDays(v)
            short.lastWatered = try time(o, "last_watered")
            if let v = o["species"], !v.isNull {
                guard v.string != nil else { throw CommandError("\"species\": a plant's species is one name, a string (e.g. \"Olea europaea\")") }
                short.species = try text(o, "species")
            }
        default:
            for key in ["interval_days", "last_watered", "species"] where o[key] != nil {
                throw CommandError("\"\(key)\" is for plants; an album takes name, radius_m, at, note")
            }
        }
        return .addRegion(.short(short))
    }

    /// Features one `add_regions` may carry.
    static let maxFeatures = 10_000

    /// `add_regions`: `{"features":[Feature, …]}`, each checked as a regions file's; every
    /// problem of every feature is told. Within `GeometryLimits` (counted before any is built).
    static func addRegions(_ o: Members, doc: JSONDocument) throws(CommandError) -> Command {
        guard case let .array(features)? = o["features"], !features.isEmpty else {
            throw CommandError("\"features\" must be a non-empty list of GeoJSON Features")
        }
        guard features.count <= maxFeatures else {
            throw CommandError("\(features.count) features, over the limit of \(maxFeatures) in one add_regions: send them in several")
        }
        var counted = 0
        for (k, f) in features.enumerated() {
            if let problem = GeometryLimits.standard.problem(feature: f, counted: &counted) {
                throw CommandError("nothing added: feature \(k): \(problem); split it, or send the features in several add_regions")
            }
        }
        var regions: [Region] = []
        var problems: [String] = []
        for (k, f) in features.enumerated() {
            do {
                regions.append(try RegionFile.feature(f, in: doc, source: "add_regions", idOptional: true))
            } catch {
                problems += error.issues.map { "feature \(k)\($0.id.map { " (id \"\(TextExcerpt.short($0))\")" } ?? ""): \($0.message)" }
            }
        }
        guard problems.isEmpty else { throw CommandError("nothing added: " + problems.joined(separator: "; ")) }
        return .addRegions(regions)
    }

    /// `update_region`: the region and at least one change.
    static func updateRegion(_ o: Members) throws(CommandError) -> Command {
        let id = try regionID(o)
        var u = RegionUpdate()
        u.name = try text(o, "name")
        if let v = o["radius_m"] {
            guard let r = v.number, Region.radiusLimits.contains(r) else {
                throw CommandError("\"radius_m\" must be a number of metres from \(Wording.number(Region.radiusLimits.lowerBound)) to \(Wording.number(Region.radiusLimits.upperBound))")
            }
            u.radius = r
        }
        if let v = o["interval_days"] { u.intervalDays = try intervalDays(v) }
        if let v = o["species"] {
            // An area's list, or a plant's one name; null: a plant's species no longer said.
            if v.isNull {
                u.species = []
            } else if let one = v.string, !one.isEmpty {
                u.species = [one]
            } else {
                guard case let .array(items) = v, !items.isEmpty, items.allSatisfy({ ($0.string ?? "").isEmpty == false }) else {
                    throw CommandError("\"species\" must be a non-empty list of species names (an area's), or one name (a plant's)")
                }
                u.species = items.compactMap(\.string)
            }
            if let problem = u.species!.lazy.compactMap({ PlainText.problem($0, field: "\"species\"") }).first { throw CommandError(problem) }
            if u.species!.contains(where: { $0.utf8.count > Region.maxTextBytes }) { throw CommandError("\"species\": a name is over \(Region.maxTextBytes) bytes") }
        }
        if let v = o["last_watered"] { u.lastWatered = v.isNull ? .some(nil) : try time(o, "last_watered") }
        if let v = o["note"] { u.note = v.isNull ? .some(nil) : try text(o, "note") }
        guard u != RegionUpdate() else {
            throw CommandError("nothing to change: give one or more of name, radius_m, interval_days, species, last_watered, note")
        }
        return .updateRegion(id: id, u)
    }

    /// `"region":"id"`.
    static func regionID(_ o: Members) throws(CommandError) -> String {
        guard let id = try string(o, "region") else { throw CommandError("missing \"region\": the region's id (treeline state --regions lists them)") }
        return id
    }

    /// Ids name regions in messages, URLs and MQTT topics: printable, no spaces or slashes.
    public static func checkID(_ id: String) throws(CommandError) {
        guard id.utf8.count <= 128, id.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || $0.properties.numericType != nil || "-_.:".unicodeScalars.contains($0) }) else {
            throw CommandError("\"id\" '\(TextExcerpt.short(id))' must be at most 128 letters, digits, '-', '_', '.' or ':' (it names the region in topics and URLs)")
        }
    }

    static func intervalDays(_ v: JSONValue) throws(CommandError) -> Int {
        let limits = Region.intervalLimits
        guard let n = integer(v), Int64(limits.lowerBound) <= n, n <= Int64(limits.upperBound) else {
            throw CommandError("\"interval_days\" must be a whole number of days from \(limits.lowerBound) to \(limits.upperBound) (a cactus wants about 40)")
        }
        return Int(n)
    }

    /// A free text (name, note, file, project): non-empty, at most `Region.maxTextBytes`.
    static func text(_ o: Members, _ key: String) throws(CommandError) -> String? {
        guard let s = try string(o, key) else { return nil }
        guard s.utf8.count <= Region.maxTextBytes else { throw CommandError("\"\(key)\" is over \(Region.maxTextBytes) bytes") }
        return s
    }

    /// An ISO 8601 time (`2026-05-01T08:00:00Z`, or a date).
    static func time(_ o: Members, _ key: String) throws(CommandError) -> UTCTime? {
        guard let v = o[key], !v.isNull else { return nil }
        guard let s = v.string, s.utf8.count <= 64, let t = UTCTime(iso8601: s) else {
            throw CommandError("\"\(key)\" must be an ISO 8601 time such as 2026-05-01T08:00:00Z, or a date such as 2026-05-01")
        }
        return t
    }
}
