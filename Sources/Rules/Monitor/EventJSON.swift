import Geo
import JSON
import Regions

extension RegionEvent {
    /// One JSON object (no newline): `time`, `type`, `region` (id), `kind`, `name`, `lat`, `lon`,
    /// `distance_m` (signed, positive inside), `error_m`, and where they apply `initial`,
    /// `transit`, and `species` (planting_allowed).
    public func appendJSON(to out: inout [UInt8], regions: RegionSet) {
        let r = regions.regions[region]
        out.append(contentsOf: "{\"time\":\"".utf8)
        time.appendISO8601(to: &out)
        out.append(contentsOf: "\",\"type\":".utf8)
        JSONBytes.appendString(type.rawValue, to: &out)
        out.append(contentsOf: ",\"region\":".utf8)
        JSONBytes.appendString(r.id, to: &out)
        out.append(contentsOf: ",\"kind\":".utf8)
        JSONBytes.appendString(r.kind.rawValue, to: &out)
        out.append(contentsOf: ",\"name\":".utf8)
        JSONBytes.appendString(r.name, to: &out)
        out.append(contentsOf: ",\"lat\":".utf8)
        JSONBytes.appendFixed(coordinate.latitude, decimals: 7, to: &out)
        out.append(contentsOf: ",\"lon\":".utf8)
        JSONBytes.appendFixed(coordinate.longitude, decimals: 7, to: &out)
        out.append(contentsOf: ",\"distance_m\":".utf8)
        JSONBytes.appendFixed(distance, decimals: 2, to: &out)
        out.append(contentsOf: ",\"error_m\":".utf8)
        JSONBytes.appendFixed(error, decimals: 2, to: &out)
        if initial { out.append(contentsOf: ",\"initial\":true".utf8) }
        if transit { out.append(contentsOf: ",\"transit\":true".utf8) }
        if type == .plantingAllowed {
            out.append(contentsOf: ",\"species\":[".utf8)
            for (k, s) in r.species.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                JSONBytes.appendString(s, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
    }
}
