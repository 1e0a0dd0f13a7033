import Geo
import JSON
import Regions

extension Species {
    /// `{"latin":…,"common":…,"spacing_m":…,"min_height_m":…,"max_height_m":…,"match":…,"areas":[…]}`:
    /// a search's answer, as `treeline species --json` prints it and the socket's `species` gives it.
    /// `areas` (the reforestation areas allowing it) only when known.
    public func appendJSON(match: SpeciesCatalog.Match, areas: [String]?, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"latin":"#.utf8)
        JSONBytes.appendString(latin, to: &out)
        out.append(contentsOf: #","common":"#.utf8)
        JSONBytes.appendString(common, to: &out)
        out.append(contentsOf: ",\"spacing_m\":\(Wording.number(spacing)),\"min_height_m\":\(Wording.number(minHeight)),\"max_height_m\":\(Wording.number(maxHeight))".utf8)
        out.append(contentsOf: #","match":"#.utf8)
        JSONBytes.appendString(String(describing: match), to: &out)
        if let areas {
            out.append(contentsOf: #","areas":["#.utf8)
            for (k, a) in areas.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                JSONBytes.appendString(a, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
    }
}

extension SpeciesCatalog {
    /// The reforestation areas of `set` whose `species` list names `species` (by either name).
    public func areas(allowing species: Species, in set: RegionSet) -> [String] {
        set.regions.filter { r in
            r.kind == .reforestation && r.species.contains { named($0)?.latin == species.latin }
        }.map(\.id)
    }
}
