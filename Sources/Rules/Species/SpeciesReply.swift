import JSON
import Regions

extension SpeciesCatalog {
    /// `{"class":"SPECIES","species":[…]}`: the species answering `query` (empty: all), best
    /// first, each with the reforestation areas of `regions` that allow it.
    public func reply(query: String, regions: RegionSet) -> [UInt8] {
        let found = search(query)
        // The areas of every species in one pass over the regions (not one pass per species:
        // 100,000 regions and the whole catalog took seconds).
        let areas = found.isEmpty ? [:] : areasBySpecies(in: regions)
        return JSONWriter.object { o in
            o.member("class", "SPECIES")
            o.member("species") { w in
                w.array(found) { w, found in
                    found.0.write(match: found.1, areas: areas[found.0.latin] ?? [], to: &w)
                }
            }
        }
    }
}
