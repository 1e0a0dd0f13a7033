import JSON
/// Writes a recorded track as a file other tools open: GPX 1.1 (GPS software, OpenStreetMap
/// editors) or a GeoJSON Feature (web maps, GIS).
///
/// Bytes, not Strings, built without Foundation formatters like the rest of Treeline's output, so
/// a day's track of some 40,000 points is written in one pass with no per-point allocation.
/// Coordinates have 7 decimals (about a centimetre), times are ISO 8601 UTC with milliseconds.
///
/// Points whose coordinate is not a valid WGS84 position (`Coordinate.isValid`) are left out of
/// both formats: neither has a way to write them, and the monitor never uses such a fix.
public enum TrackWriter {
    /// GPX 1.1, valid against TopoGrafix's schema (Tests/Fixtures/gpx/gpx.xsd): a `metadata` with
    /// `name` and the first point's `time` (not the wall clock, so the same track gives the same
    /// file), then one `trk` named `name` with one `trkseg` holding a `trkpt` with its `time` per
    /// point. An empty track is one `trk` with an empty `trkseg`, which the schema allows.
    ///
    /// The horizontal error is not written: GPX has no element for metres of error (`hdop` is a
    /// dilution of precision, a ratio), and an extension would need a schema of its own.
    /// `name` and `creator` are escaped for XML; characters XML 1.0 cannot carry at all (control
    /// characters other than tab, line feed and carriage return) become U+FFFD.
    public static func gpx(_ points: [TrackPoint], name: String, creator: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512 + points.count * 96)
        out.append(contentsOf: "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n".utf8)
        out.append(contentsOf: "<gpx version=\"1.1\" creator=\"".utf8)
        appendXMLEscaped(creator, to: &out)
        out.append(contentsOf: """
            " xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">

            """.utf8)
        out.append(contentsOf: "  <metadata>\n    <name>".utf8)
        appendXMLEscaped(name, to: &out)
        out.append(contentsOf: "</name>\n".utf8)
        if let first = points.first(where: { $0.coordinate.isValid }) {
            out.append(contentsOf: "    <time>".utf8)
            first.time.appendISO8601(to: &out)
            out.append(contentsOf: "</time>\n".utf8)
        }
        out.append(contentsOf: "  </metadata>\n  <trk>\n    <name>".utf8)
        appendXMLEscaped(name, to: &out)
        out.append(contentsOf: "</name>\n    <trkseg>\n".utf8)
        for p in points where p.coordinate.isValid {
            out.append(contentsOf: "      <trkpt lat=\"".utf8)
            JSONBytes.appendFixed(p.coordinate.latitude, decimals: 7, to: &out)
            out.append(contentsOf: "\" lon=\"".utf8)
            JSONBytes.appendFixed(gpxLongitude(p.coordinate.longitude), decimals: 7, to: &out)
            out.append(contentsOf: "\"><time>".utf8)
            p.time.appendISO8601(to: &out)
            out.append(contentsOf: "</time></trkpt>\n".utf8)
        }
        out.append(contentsOf: "    </trkseg>\n  </trk>\n</gpx>\n".utf8)
        return out
    }

    /// A GeoJSON (RFC 7946) Feature: `geometry` a LineString of `[lon, lat]` positions, and
    /// `properties` `{"name": name, "times": [ISO 8601 per position], "points": count}`.
    ///
    /// A LineString needs two positions or more (RFC 7946, 3.1.4), so a track of one point is a
    /// Point geometry and an empty track has `"geometry": null` (an unlocated Feature, 3.2); `times`
    /// and `points` say the same in every case. A track crossing the antimeridian is not cut there
    /// (RFC 7946, 3.1.9): a walking board does not cross it.
    public static func geoJSON(_ points: [TrackPoint], name: String) -> [UInt8] {
        var count = 0
        for p in points where p.coordinate.isValid { count += 1 }
        var out: [UInt8] = []
        out.reserveCapacity(128 + count * 56)
        out.append(contentsOf: "{\"type\":\"Feature\",\"geometry\":".utf8)
        switch count {
        case 0:
            out.append(contentsOf: "null".utf8)
        case 1:
            out.append(contentsOf: "{\"type\":\"Point\",\"coordinates\":".utf8)
            for p in points where p.coordinate.isValid { appendPosition(p.coordinate, to: &out) }
            out.append(UInt8(ascii: "}"))
        default:
            out.append(contentsOf: "{\"type\":\"LineString\",\"coordinates\":[".utf8)
            var first = true
            for p in points where p.coordinate.isValid {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                appendPosition(p.coordinate, to: &out)
            }
            out.append(contentsOf: "]}".utf8)
        }
        out.append(contentsOf: ",\"properties\":{\"name\":".utf8)
        JSONBytes.appendString(name, to: &out)
        out.append(contentsOf: ",\"times\":[".utf8)
        var first = true
        for p in points where p.coordinate.isValid {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(UInt8(ascii: "\""))
            p.time.appendISO8601(to: &out)
            out.append(UInt8(ascii: "\""))
        }
        out.append(contentsOf: "],\"points\":".utf8)
        JSONBytes.appendInt(count, to: &out)
        out.append(contentsOf: "}}\n".utf8)
        return out
    }

    /// `[lon, lat]`, RFC 7946's order.
    private static func appendPosition(_ c: Coordinate, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        JSONBytes.appendFixed(c.longitude, decimals: 7, to: &out)
        out.append(UInt8(ascii: ","))
        JSONBytes.appendFixed(c.latitude, decimals: 7, to: &out)
        out.append(UInt8(ascii: "]"))
    }

    /// GPX's longitude is in [-180, 180): 180° (or what rounds to it at 7 decimals) is written as
    /// the same meridian, -180°.
    private static func gpxLongitude(_ lon: Double) -> Double {
        lon >= 179.999_999_95 ? lon - 360 : lon
    }

    /// `s` as XML character data or an attribute value: `& < > " '` as entities, tab, line feed
    /// and carriage return as character references (an attribute value would otherwise turn them
    /// into spaces), and what XML 1.0 cannot carry (other C0 controls, U+FFFE, U+FFFF) as U+FFFD.
    static func appendXMLEscaped(_ s: String, to out: inout [UInt8]) {
        for u in s.unicodeScalars {
            switch u.value {
            case 0x26: out.append(contentsOf: "&amp;".utf8)
            case 0x3C: out.append(contentsOf: "&lt;".utf8)
            case 0x3E: out.append(contentsOf: "&gt;".utf8)
            case 0x22: out.append(contentsOf: "&quot;".utf8)
            case 0x27: out.append(contentsOf: "&apos;".utf8)
            case 0x09: out.append(contentsOf: "&#9;".utf8)
            case 0x0A: out.append(contentsOf: "&#10;".utf8)
            case 0x0D: out.append(contentsOf: "&#13;".utf8)
            case 0..<0x20, 0xFFFE, 0xFFFF: out.append(contentsOf: [0xEF, 0xBF, 0xBD])
            default: UTF8.encode(u) { out.append($0) }
            }
        }
    }
}
