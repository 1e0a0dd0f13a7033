import Geo
import JSON
import Regions

extension Command {
    /// `regions` without a view: every region in force, geometry or not (what the CLI asks).
    public static func regions(geometry: Bool) -> Command { .regions(RegionsQuery(geometry: geometry)) }

    /// The longest id `ids` takes, in bytes.
    static let maxRegionIDBytes = 200

    /// `regions`' keys: `geometry`, `bbox` ([west, south, east, north]), `zoom` (0…24), `limit`
    /// (1…10,000) and `ids` (1…1,000 region ids). Every number bounded, each refusal saying
    /// what to send instead.
    static func regionsQuery(_ o: Members) throws(CommandError) -> RegionsQuery {
        var q = RegionsQuery()
        if let v = o["geometry"] {
            guard let b = boolean(v) else { throw CommandError("\"geometry\" must be true or false") }
            q.geometry = b
        }
        if let v = o["bbox"], !v.isNull {
            let what = "\"bbox\" must be [west, south, east, north] in decimal degrees (west > east: across the antimeridian)"
            guard case let .array(a) = v, a.count == 4 else { throw CommandError(what) }
            var n: [Double] = []
            for x in a {
                guard let d = x.number else { throw CommandError(what) }
                n.append(d)
            }
            let box = RegionsQuery.BBox(west: n[0], south: n[1], east: n[2], north: n[3])
            if let problem = box.problem { throw CommandError("\"bbox\": \(problem); send [west, south, east, north] in decimal degrees") }
            q.bbox = box
        }
        if let v = o["zoom"], !v.isNull {
            guard let z = integer(v), z >= 0, z <= Int64(RingSimplifier.maxZoom) else {
                throw CommandError("\"zoom\" must be a whole number from 0 to \(RingSimplifier.maxZoom): the map's zoom, to thin outlines to a pixel")
            }
            q.zoom = Int(z)
        }
        if let v = o["limit"], !v.isNull {
            guard let n = integer(v), n >= 1, n <= Int64(RegionsQuery.maxLimit) else {
                throw CommandError("\"limit\" must be a whole number from 1 to \(RegionsQuery.maxLimit): ask for a smaller view (\"bbox\") for fewer regions")
            }
            q.limit = Int(n)
        }
        if let v = o["ids"], !v.isNull { q.ids = try regionIDs(v) }
        return q
    }

    /// `"ids":["a","b"]`: 1 to `RegionsQuery.maxIDs` region ids, plain text, each once kept.
    static func regionIDs(_ v: JSONValue) throws(CommandError) -> [String] {
        guard case let .array(items) = v else { throw CommandError("\"ids\" must be a list of region ids (strings)") }
        guard !items.isEmpty else { throw CommandError("\"ids\" is empty: leave it out for every region, or name at least one") }
        guard items.count <= RegionsQuery.maxIDs else {
            throw CommandError("\"ids\": at most \(RegionsQuery.maxIDs) ids (\(items.count) given): ask in several requests, or for a view (\"bbox\")")
        }
        var ids: [String] = []
        ids.reserveCapacity(items.count)
        var seen: Set<String> = []
        for item in items {
            guard let s = item.string, !s.isEmpty, s.utf8.count <= maxRegionIDBytes else {
                throw CommandError("\"ids\" must hold region ids: non-empty strings of at most \(maxRegionIDBytes) bytes")
            }
            if let problem = PlainText.problem(s, field: "an id in \"ids\"") { throw CommandError(problem) }
            if seen.insert(s).inserted { ids.append(s) }
        }
        return ids
    }
}

extension CommandObject {
    /// `regions`' keys, as `Command.regionsQuery` reads them.
    mutating func regionsQuery(_ q: RegionsQuery) {
        if q.geometry { bool("geometry", true) }
        if let b = q.bbox {
            key("bbox") { out in Command.appendList([b.west, b.south, b.east, b.north], to: &out) { WireNumber.append($0, to: &$1) } }
        }
        if let z = q.zoom { integer("zoom", Int64(z)) }
        if let n = q.limit { integer("limit", Int64(n)) }
        if let ids = q.ids { strings("ids", ids) }
    }
}
