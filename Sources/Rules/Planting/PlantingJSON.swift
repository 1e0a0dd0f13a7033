import Geo
import JSON

extension PlantingVerdict {
    /// The verdict's fields, for a JSON object already opened (each after a comma):
    /// `"allowed"`, and where known `"area"`, `"species"`, `"spacing_m"`, `"nearest_tree"`,
    /// `"nearest_m"`, `"reason"`.
    public func appendJSONFields(species: String?, to out: inout [UInt8]) {
        out.append(contentsOf: #","allowed":"#.utf8)
        out.append(contentsOf: (allowed ? "true" : "false").utf8)
        if let area {
            out.append(contentsOf: #","area":"#.utf8)
            JSONBytes.appendString(area, to: &out)
        }
        if let species {
            out.append(contentsOf: #","species":"#.utf8)
            JSONBytes.appendString(species, to: &out)
        }
        if let spacing {
            out.append(contentsOf: #","spacing_m":"#.utf8)
            JSONBytes.appendFixed(spacing, decimals: 2, to: &out)
        }
        if let (tree, metres) = nearest {
            out.append(contentsOf: #","nearest_tree":"#.utf8)
            out.append(contentsOf: String(tree.id).utf8)
            out.append(contentsOf: #","nearest_m":"#.utf8)
            JSONBytes.appendFixed(metres, decimals: 2, to: &out)
        }
        if let refusal {
            out.append(contentsOf: #","reason":"#.utf8)
            JSONBytes.appendString(refusal.message, to: &out)
        }
    }
}

extension PlantedTree {
    /// The tree's record, for a JSON object already opened: `"id"`, `"area"`, `"species"`, and
    /// where known `"planted"`, `"project"` (the socket's TREES and `treeline trees`' GeoJSON
    /// properties; the position is each one's own).
    public func appendJSONFields(to out: inout [UInt8]) {
        out.append(contentsOf: #""id":\#(id),"area":"#.utf8)
        JSONBytes.appendString(area, to: &out)
        out.append(contentsOf: #","species":"#.utf8)
        JSONBytes.appendString(species, to: &out)
        if let planted {
            out.append(contentsOf: #","planted":""#.utf8)
            planted.appendISO8601(to: &out)
            out.append(UInt8(ascii: "\""))
        }
        if let project {
            out.append(contentsOf: #","project":"#.utf8)
            JSONBytes.appendString(project, to: &out)
        }
    }
}
