import Geo
import JSON

extension PlantingVerdict {
    /// The verdict's members, in an object being written: `"allowed"`, and where known `"area"`,
    /// `"species"`, `"spacing_m"`, `"nearest_tree"`, `"nearest_m"`, `"reason"`.
    public func writeMembers(species: String?, to o: inout JSONWriter) {
        o.member("allowed", allowed)
        o.member("area", ifPresent: area)
        o.member("species", ifPresent: species)
        if let spacing { o.member("spacing_m", spacing, decimals: 2) }
        if let (tree, metres) = nearest {
            o.member("nearest_tree", tree.id)
            o.member("nearest_m", metres, decimals: 2)
        }
        o.member("reason", ifPresent: refusal?.message)
    }

    /// `{"class":CLS,"lat":…,"lon":…[,"tree":N],…}`: the answer to `can_plant` (`CAN_PLANT`) and
    /// `plant` (`PLANT`, with the tree's number when it was recorded).
    public func reply(class cls: String, tree: PlantedTree?, species: String?, at c: Coordinate) -> [UInt8] {
        JSONWriter.object { o in
            o.member("class", cls)
            o.member("lat", c.latitude, decimals: 7)
            o.member("lon", c.longitude, decimals: 7)
            if let tree { o.member("tree", tree.id) }
            writeMembers(species: species, to: &o)
        }
    }
}

extension PlantedTree {
    /// The tree's record, in an object being written: `"id"`, `"area"`, `"species"`, and where
    /// known `"planted"`, `"project"` (the socket's TREES and `treeline trees`' GeoJSON
    /// properties).
    public func writeMembers(to o: inout JSONWriter) {
        o.member("id", id)
        o.member("area", area)
        o.member("species", species)
        if let planted { o.member("planted", planted.iso8601) }
        o.member("project", ifPresent: project)
    }
}

extension PlanResult {
    /// `{"class":"PLAN",…}`: the spots placed for `species` in `area`, and why fewer than asked.
    public func reply(area: String, species: Species) -> [UInt8] {
        JSONWriter.object { o in
            o.member("class", "PLAN")
            o.member("area", area)
            o.member("species", species.latin)
            o.member("spacing_m", species.spacing, decimals: 2)
            o.member("asked", requested)
            o.member("placed", positions.count)
            o.member("trees") { w in
                w.array(positions) { w, p in
                    w.object { o in
                        o.member("lat", p.latitude, decimals: 7)
                        o.member("lon", p.longitude, decimals: 7)
                    }
                }
            }
            o.member("reason", ifPresent: reason)
        }
    }
}
