import Geo
import JSON

/// The region events' JSON, one writer for the engine's events and for those derived from a
/// `base_layer` record's rows (`Store.page`): a subscriber cannot tell them apart.
extension JournalEntry {
    /// `region_added` / `region_updated`: `feature` is the region's whole GeoJSON Feature.
    public static func region(_ type: String, id: String, kind: String, layer: String, time: UTCTime,
                              feature body: (inout [UInt8]) -> Void) -> JournalEntry {
        var json: [UInt8] = []
        head(&json, type: type, id: id, kind: kind, layer: layer, time: time)
        json.append(contentsOf: #","feature":"#.utf8)
        body(&json)
        json.append(UInt8(ascii: "}"))
        return JournalEntry(time: time, type: type, region: id, kind: kind, json: json)
    }

    /// `region_removed`: whether the monitor was inside it (no `exit` follows) and, for a
    /// user-layer plant, its last watering (`.none`: not said).
    public static func regionRemoved(id: String, kind: String, layer: String, inside: Bool?, lastWatered: UTCTime?? = .none,
                                     time: UTCTime) -> JournalEntry {
        var json: [UInt8] = []
        head(&json, type: "region_removed", id: id, kind: kind, layer: layer, time: time)
        if let inside { json.append(contentsOf: #","inside":\#(inside)"#.utf8) }
        switch lastWatered {
        case .none: break
        case .some(.none): json.append(contentsOf: #","last_watered":null"#.utf8)
        case .some(.some(let t)): json.append(contentsOf: #","last_watered":"\#(t.iso8601)""#.utf8)
        }
        json.append(UInt8(ascii: "}"))
        return JournalEntry(time: time, type: "region_removed", region: id, kind: kind, json: json)
    }

    static func head(_ json: inout [UInt8], type: String, id: String, kind: String, layer: String, time: UTCTime) {
        json.append(contentsOf: #"{"time":""#.utf8)
        time.appendISO8601(to: &json)
        json.append(contentsOf: #"","type":"#.utf8)
        JSONBytes.appendString(type, to: &json)
        json.append(contentsOf: #","region":"#.utf8)
        JSONBytes.appendString(id, to: &json)
        json.append(contentsOf: #","kind":"#.utf8)
        JSONBytes.appendString(kind, to: &json)
        json.append(contentsOf: #","layer":"#.utf8)
        JSONBytes.appendString(layer, to: &json)
    }
}
