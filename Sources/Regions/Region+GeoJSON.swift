import Geo
import JSON
/// A region written back as the GeoJSON Feature a regions file holds, in WGS84: what `RegionFile`
/// reads gives the same region again (coordinates to 1e-9 degree, a tenth of a millimetre).
///
/// One writer for everything that hands regions out (the journal's `region_added`, `regions`
/// with geometry, `export`), so a subscriber, an export and the database see the same bytes for
/// the same region: the daemon compares these bytes to tell a changed region from an unchanged one.
extension Region {
    /// `{"type":"Feature","geometry":…,"properties":{…}}`. `lastWatered`, when given, replaces
    /// the region's own (the monitor's, which waterings have moved on).
    public func appendFeature(to out: inout [UInt8], lastWatered: UTCTime?? = nil) {
        out.append(contentsOf: #"{"type":"Feature","geometry":"#.utf8)
        appendGeometry(to: &out)
        out.append(contentsOf: #","properties":{"id":"#.utf8)
        JSONBytes.appendString(id, to: &out)
        out.append(contentsOf: #","kind":"#.utf8)
        JSONBytes.appendString(kind.rawValue, to: &out)
        out.append(contentsOf: #","name":"#.utf8)
        JSONBytes.appendString(name, to: &out)
        if case let .circle(_, radius) = shape {
            out.append(contentsOf: #","radius_m":"#.utf8)
            Self.appendNumber(radius, to: &out)
        }
        if kind == .plant {
            if let intervalDays {
                out.append(contentsOf: #","interval_days":"#.utf8)
                JSONBytes.appendInt(intervalDays, to: &out)
            }
            if let watered = lastWatered ?? self.lastWatered {
                out.append(contentsOf: #","last_watered":""#.utf8)
                watered.appendISO8601(to: &out)
                out.append(UInt8(ascii: "\""))
            }
            if let one = species.first {
                out.append(contentsOf: #","species":"#.utf8)
                JSONBytes.appendString(one, to: &out)
            }
        }
        if kind == .reforestation {
            out.append(contentsOf: #","species":["#.utf8)
            for (k, s) in species.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                JSONBytes.appendString(s, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        if let priority {
            out.append(contentsOf: #","priority":"#.utf8)
            Self.appendNumber(priority, to: &out)
        }
        for (key, value) in [("note", note), ("project", project)] {
            guard let value else { continue }
            out.append(contentsOf: ",\"\(key)\":".utf8)
            JSONBytes.appendString(value, to: &out)
        }
        out.append(contentsOf: "}}".utf8)
    }

    /// The Feature as a String (the database keeps it as text).
    public var featureJSON: String {
        var out: [UInt8] = []
        appendFeature(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The GeoJSON geometry: a Point (a circle's centre; its radius is a property), a Polygon, or
    /// a MultiPolygon; rings closed, as RFC 7946 wants.
    /// `decimals`: of each position's degrees (9 by default: the regions file's own; fewer
    /// for a map that cannot show them, `RegionsInForce.regionsReply`).
    public func appendGeometry(to out: inout [UInt8], decimals: Int = 9) {
        switch shape {
        case let .circle(center, _):
            out.append(contentsOf: #"{"type":"Point","coordinates":"#.utf8)
            Self.appendPosition(center, to: &out, decimals: decimals)
            out.append(UInt8(ascii: "}"))
        case let .polygons(parts):
            out.append(contentsOf: (parts.count == 1 ? #"{"type":"Polygon","coordinates":"# : #"{"type":"MultiPolygon","coordinates":["#).utf8)
            for (p, rings) in parts.enumerated() {
                if p > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendArray(rings, to: &out) { ring, out in
                    JSONWriter.appendArray(ring.closed, to: &out) { Self.appendPosition($0, to: &$1, decimals: decimals) }
                }
            }
            out.append(contentsOf: (parts.count == 1 ? "}" : "]}").utf8)
        }
    }

    static func appendPosition(_ c: Coordinate, to out: inout [UInt8], decimals: Int = 9) {
        out.append(UInt8(ascii: "["))
        Self.appendNumber(c.longitude, to: &out, decimals: decimals)
        out.append(UInt8(ascii: ","))
        Self.appendNumber(c.latitude, to: &out, decimals: decimals)
        out.append(UInt8(ascii: "]"))
    }

    /// A number without trailing zeros (30 rather than 30.000000000).
    static func appendNumber(_ v: Double, to out: inout [UInt8], decimals: Int = 6) {
        NumberText.appendTrimmed(v, decimals: decimals, to: &out)
    }
}
