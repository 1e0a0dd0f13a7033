import Geo
import JSON
import Regions

extension Species {
    /// `{"latin":…,"common":…,"spacing_m":…,"min_height_m":…,"max_height_m":…,"match":…,"areas":[…]}`:
    /// a search's answer, as `treeline species --json` prints it and the socket's `species` gives it.
    /// `areas` (the reforestation areas allowing it) only when known.
    public func appendJSON(match: SpeciesCatalog.Match, areas: [String]?, to out: inout [UInt8]) {
        var w = JSONWriter()
        write(match: match, areas: areas, to: &w)
        out.append(contentsOf: w.bytes)
    }

    /// The same object, written by `w`.
    public func write(match: SpeciesCatalog.Match, areas: [String]?, to w: inout JSONWriter) {
        w.object { o in
            o.member("latin", latin)
            o.member("common", common)
            // Metres as a person writes them: 2.5, 3 (not 3.0).
            for (key, v) in [("spacing_m", spacing), ("min_height_m", minHeight), ("max_height_m", maxHeight)] {
                o.member(key, raw: { $0.append(contentsOf: Wording.number(v).utf8) })
            }
            o.member("match", String(describing: match))
            if let areas { o.member("areas") { $0.array(areas) { $0.value($1) } } }
        }
    }
}

extension SpeciesCatalog {
    /// The reforestation areas of `set` whose `species` list names `species` (by either name).
    /// `areas(allowing:in:)` for every species at once, by Latin name: one pass over the
    /// regions, each species name looked up in the catalog once.
    public func areasBySpecies(in set: RegionSet) -> [String: [String]] {
        var latinOf: [String: String?] = [:]
        var out: [String: [String]] = [:]
        for r in set.regions where r.kind == .reforestation {
            for name in r.species {
                let latin: String?
                if let known = latinOf[name] { latin = known } else {
                    latin = named(name)?.latin
                    latinOf[name] = latin
                }
                // An area naming a species twice (two of its names) is listed once.
                if let latin, out[latin]?.last != r.id { out[latin, default: []].append(r.id) }
            }
        }
        return out
    }

    public func areas(allowing species: Species, in set: RegionSet) -> [String] {
        set.regions.filter { r in
            r.kind == .reforestation && r.species.contains { named($0)?.latin == species.latin }
        }.map(\.id)
    }
}
