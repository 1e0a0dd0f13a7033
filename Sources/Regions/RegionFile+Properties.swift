import Geo
import JSON

/// A feature's `properties`: everything a region is but its shape (a Point's `radius_m` is read
/// with its geometry). Each reader reports its own problems, in the order the properties are
/// documented in `RegionFile`.
extension RegionFile {
    /// What a feature's properties say of its region.
    struct FeatureProperties {
        var id = ""
        var kind: RegionKind?
        var name = ""
        var intervalDays: Int?
        var lastWatered: UTCTime?
        var species: [String] = []
        var priority: Double?
        var note: String?
        var project: String?
    }

    /// Reads `properties` (a JSON object). Once the id is known, `context` names it in the issues
    /// that follow. The kind-specific properties are read only for `.full` requirements.
    static func properties(_ properties: JSONValue, requirements: Requirements, idOptional: Bool,
                           context: inout FeatureContext, issues: inout [RegionIssue]) -> FeatureProperties {
        var p = FeatureProperties()
        p.id = id(properties, idOptional: idOptional, context: context, issues: &issues)
        if !p.id.isEmpty { context.id = p.id }
        p.kind = kind(properties, context: context, issues: &issues)
        p.name = name(properties, id: p.id, context: context, issues: &issues)
        let rules = requirements == .full
        if p.kind == .plant, rules {
            p.intervalDays = intervalDays(properties, context: context, issues: &issues)
            p.lastWatered = lastWatered(properties, context: context, issues: &issues)
            p.species = plantSpecies(properties, context: context, issues: &issues)
        }
        if p.kind == .reforestation, rules {
            p.species = species(properties, context: context, issues: &issues)
        }
        p.priority = priority(properties, context: context, issues: &issues)
        p.note = text("note", of: properties, context: context, issues: &issues)
        p.project = text("project", of: properties, context: context, issues: &issues)
        return p
    }

    /// `id`: a non-empty plain string; "" when missing (allowed with `idOptional`) or refused.
    static func id(_ properties: JSONValue, idOptional: Bool, context: FeatureContext, issues: inout [RegionIssue]) -> String {
        switch properties["id"] {
        case let .string(s)? where !s.isEmpty:
            if let problem = PlainText.problem(s, field: "properties.id") { issues.append(context.issue(problem)) } else { return s }
        case nil: if !idOptional { issues.append(context.issue("properties.id is missing")) }
        default: issues.append(context.issue("properties.id must be a non-empty string"))
        }
        return ""
    }

    /// `kind`: reforestation, plant or album.
    static func kind(_ properties: JSONValue, context: FeatureContext, issues: inout [RegionIssue]) -> RegionKind? {
        switch properties["kind"] {
        case let .string(s)?:
            let kind = RegionKind(rawValue: s)
            if kind == nil { issues.append(context.issue("unknown kind \"\(TextExcerpt.short(s))\" (expected reforestation, plant or album)")) }
            return kind
        case nil: issues.append(context.issue("properties.kind is missing (reforestation, plant or album)"))
        default: issues.append(context.issue("properties.kind must be a string (reforestation, plant or album)"))
        }
        return nil
    }

    /// `name`, the id when there is none.
    static func name(_ properties: JSONValue, id: String, context: FeatureContext, issues: inout [RegionIssue]) -> String {
        var name = id
        if let n = properties["name"] {
            if let s = n.string { name = s } else { issues.append(context.issue("properties.name must be a string")) }
            if let problem = PlainText.problem(name, field: "properties.name") { issues.append(context.issue(problem)) }
        }
        return name
    }

    /// A plant's `interval_days`: required, whole days within `Region.intervalLimits`.
    static func intervalDays(_ properties: JSONValue, context: FeatureContext, issues: inout [RegionIssue]) -> Int? {
        let limits = Region.intervalLimits
        guard let v = properties["interval_days"]?.number else {
            issues.append(context.issue("a plant needs interval_days (\(limits.lowerBound) to \(limits.upperBound))"))
            return nil
        }
        if v == v.rounded(), Double(limits.lowerBound) <= v, v <= Double(limits.upperBound) { return Int(v) }
        issues.append(context.issue("interval_days must be a whole number of days from \(limits.lowerBound) to \(limits.upperBound), not \(Wording.number(v))"))
        return nil
    }

    /// A plant's `last_watered`: an ISO 8601 time, or nil (absent or null: never watered, due now).
    static func lastWatered(_ properties: JSONValue, context: FeatureContext, issues: inout [RegionIssue]) -> UTCTime? {
        switch properties["last_watered"] {
        case nil, .null?: return nil  // never watered: due now
        case let .string(s)?:
            let time = UTCTime(iso8601: s)
            if time == nil { issues.append(context.issue("last_watered \"\(TextExcerpt.short(s))\" is not an ISO 8601 date or time (e.g. 2026-04-20T08:00:00Z)")) }
            return time
        default:
            issues.append(context.issue("last_watered must be an ISO 8601 string (e.g. 2026-04-20T08:00:00Z), or absent for a plant never watered"))
            return nil
        }
    }

    /// A reforestation area's `species`: a non-empty list of plain names.
    static func species(_ properties: JSONValue, context: FeatureContext, issues: inout [RegionIssue]) -> [String] {
        guard case let .array(items)? = properties["species"], !items.isEmpty, items.allSatisfy({ $0.string != nil }) else {
            issues.append(context.issue("a reforestation area needs species: a non-empty list of species names"))
            return []
        }
        let species = items.compactMap { $0.string }
        if let problem = species.lazy.compactMap({ PlainText.problem($0, field: "properties.species") }).first {
            issues.append(context.issue(problem))
        }
        return species
    }

    /// A plant's `species`: one plain name (a list of one is taken too, as `update_region` takes
    /// it), or none.
    static func plantSpecies(_ properties: JSONValue, context: FeatureContext, issues: inout [RegionIssue]) -> [String] {
        guard var v = properties["species"], !v.isNull else { return [] }
        if case let .array(items) = v, items.count == 1 { v = items[0] }
        guard let s = v.string, !s.isEmpty else {
            issues.append(context.issue("a plant's species is one name, a string (e.g. \"Olea europaea\")"))
            return []
        }
        if let problem = PlainText.problem(s, field: "properties.species") {
            issues.append(context.issue(problem))
            return []
        }
        return [s]
    }

    /// `priority`: any number.
    static func priority(_ properties: JSONValue, context: FeatureContext, issues: inout [RegionIssue]) -> Double? {
        guard let p = properties["priority"] else { return nil }
        if let v = p.number { return v }
        issues.append(context.issue("priority must be a number"))
        return nil
    }

    /// An optional text (`note`, `project`): plain, at most `Region.maxTextBytes`; empty is none.
    static func text(_ key: String, of properties: JSONValue, context: FeatureContext, issues: inout [RegionIssue]) -> String? {
        switch properties[key] {
        case nil, .null?: return nil
        case let .string(s)? where s.utf8.count <= Region.maxTextBytes:
            if let problem = PlainText.problem(s, field: "properties.\(key)") { issues.append(context.issue(problem)); return nil }
            return s.isEmpty ? nil : s
        case .string?: issues.append(context.issue("\(key) is over \(Region.maxTextBytes) bytes")); return nil
        default: issues.append(context.issue("\(key) must be a string")); return nil
        }
    }
}
