import JSON
import Regions

extension SpeciesCatalog {
    /// `{"class":"SPECIES","species":[…]}`: the species answering `query` (empty: all), best
    /// first, each with the reforestation areas of `regions` that allow it.
    public func reply(query: String, regions: RegionSet) -> [UInt8] {
        JSONWriter.object { o in
            o.member("class", "SPECIES")
            o.member("species") { w in
                w.array(search(query)) { w, found in
                    found.0.write(match: found.1, areas: areas(allowing: found.0, in: regions), to: &w)
                }
            }
        }
    }
}
