import Geo
import JSON
/// The top level of a GeoJSON FeatureCollection, read without reading its features: the root's
/// other members parsed, each feature only delimited (where it starts and ends in the text), so
/// that features can then be parsed one by one, across the cores, and let go.
///
/// `nil` when the text is not plainly a FeatureCollection (not an object, a duplicate member, a
/// `type` other than "FeatureCollection", `features` not an array) or a syntax error shows at the
/// top level: the caller then reads it as one document, which words the problem. A feature's own
/// syntax is not checked here (only its strings and brackets are followed to find its end); it
/// is when the feature is parsed.
struct FeatureCollectionScan {
    /// The root object with `features` left out.
    let root: JSONValue
    /// Each feature's place in the text.
    let features: [Range<Int>]

    /// `done(range)` is told of each stretch of the features' text once it is scanned.
    init?(_ bytes: UnsafeBufferPointer<UInt8>, done: (Range<Int>) -> Void = { _ in }) {
        var p = JSONParser(bytes: bytes)
        var members: [(key: String, value: JSONValue)] = []
        var names: Set<String> = []  // past 16 members (see `JSONParser.contains`)
        var features: [Range<Int>]?
        do throws(JSONParser.Failure) {
            try p.expect(UInt8(ascii: "{"), "'{'")
            p.depth = 1
            p.skipSpace()
            if p.i < p.end, bytes[p.i] == UInt8(ascii: "}") { return nil }  // no features
            while true {
                p.skipSpace()
                guard p.i < p.end, bytes[p.i] == UInt8(ascii: "\"") else { return nil }
                let key = try p.string()
                guard key != "features" || features == nil, !JSONParser.contains(members, key, &names) else { return nil }
                try p.expect(UInt8(ascii: ":"), "':'")
                p.skipSpace()
                if key == "features" {
                    guard p.i < p.end, bytes[p.i] == UInt8(ascii: "[") else { return nil }
                    features = try Self.elements(&p, done: done)
                } else {
                    members.append((key, try p.value(key: key)))
                }
                p.skipSpace()
                guard p.i < p.end else { return nil }
                if bytes[p.i] == UInt8(ascii: ",") { p.i += 1; continue }
                guard bytes[p.i] == UInt8(ascii: "}") else { return nil }
                p.i += 1
                break
            }
            p.skipSpace()
            guard p.i == p.end else { return nil }
        } catch {
            return nil
        }
        let root = JSONValue.object(members)
        guard let features, root["type"]?.string == "FeatureCollection" else { return nil }
        self.root = root
        self.features = features
    }

    /// The elements of the array at `p.i`, each from its first byte to its last (space trimmed).
    private static func elements(_ p: inout JSONParser, done: (Range<Int>) -> Void) throws(JSONParser.Failure) -> [Range<Int>] {
        p.i += 1
        var scanned = p.i
        var out: [Range<Int>] = []
        p.skipSpace()
        if p.i < p.end, p.bytes[p.i] == UInt8(ascii: "]") { p.i += 1; return out }
        while true {
            p.skipSpace()
            let start = p.i
            try skipValue(&p)
            var last = p.i
            while last > start, Self.isSpace(p.bytes[last - 1]) { last -= 1 }
            guard last > start else { throw p.error("an empty element") }
            out.append(start..<last)
            if p.i - scanned >= Self.stretch {
                done(scanned..<p.i)
                scanned = p.i
            }
            guard p.i < p.end else { throw p.error("unexpected end of file inside an array") }
            if p.bytes[p.i] == UInt8(ascii: ",") { p.i += 1; continue }
            if p.bytes[p.i] == UInt8(ascii: "]") { p.i += 1; return out }
            throw p.error("expected ',' or ']' in an array")
        }
    }

    /// Text scanned between calls to `done`.
    static let stretch = 1 << 22

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

    /// Moves past one value, stopping at the ',' or ']' after it: strings (with their escapes)
    /// and brackets are followed, nothing else is looked at.
    private static func skipValue(_ p: inout JSONParser) throws(JSONParser.Failure) {
        let bytes = p.bytes, end = p.end
        var i = p.i, depth = 0
        defer { p.i = i }
        while i < end {
            switch bytes[i] {
            case UInt8(ascii: "\""):
                i += 1
                while i < end, bytes[i] != UInt8(ascii: "\"") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
                guard i < end else { throw p.error("unterminated string") }
                i += 1
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                i += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if depth == 0 { return }
                depth -= 1
                i += 1
            case UInt8(ascii: ","):
                if depth == 0 { return }
                i += 1
            default:
                i += 1
            }
        }
        throw p.error("unexpected end of file")
    }
}
