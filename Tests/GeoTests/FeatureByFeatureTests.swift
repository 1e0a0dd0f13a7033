@testable import Geo
import Testing
import TestSupport
@testable import Regions

/// A regions file is read feature by feature (each parsed on its own, across the cores, and let
/// go), not as one JSON tree. Nothing a user sees may differ from reading the whole document:
/// the regions, every issue and its wording, the line and column of a syntax error.
@Suite struct FeatureByFeature {
    static let square = closed([(-9.14, 38.70), (-9.13, 38.70), (-9.13, 38.71), (-9.14, 38.71)])

    /// Regions, or issues as the user reads them.
    static func outcome(_ text: String, crs: String? = nil, whole: Bool) -> Result<[Region], RegionFileError> {
        Array(text.utf8).withUnsafeBufferPointer { b in
            Result { () throws(RegionFileError) in
                whole ? try RegionFile.parseWhole(b, file: "f.geojson", crs: crs, requirements: .full, parallel: true)
                    : try RegionFile.parse(b, file: "f.geojson", crs: crs)
            }
        }
    }

    static func same(_ text: String, crs: String? = nil) -> Bool {
        switch (outcome(text, crs: crs, whole: false), outcome(text, crs: crs, whole: true)) {
        case let (.success(a), .success(b)): return a == b
        case let (.failure(a), .failure(b)): return a.issues.map(\.description) == b.issues.map(\.description)
        default: return false
        }
    }

    static let a = polygonFeature("a", [square]), b = circleFeature("b", lon: -9.1, lat: 38.7, radius: 40)
    /// Properties whose strings hold brackets, quotes and escapes, which the scan for a
    /// feature's end must step over.
    static let tricky = polygonFeature("c\\\"]}", [square], extra: #","note":"a ] } [ { \\\" \\\\","project":"\u00e9\\u00e9","tags":[[1,{"x":[]}],"]"]"#)

    /// Texts that are read alike either way, valid or not, each problem at its place.
    static let texts: [String] = [
        // Valid, in several shapes: members in any order, the crs after the features, space
        // everywhere, no features, extra members.
        #"{"type":"FeatureCollection","features":[\#(a),\#(b),\#(tricky)]}"#,
        #"{ "features" : [ \#(a) ,  \#(b) ] , "name":"x", "type" : "FeatureCollection" }"#,
        #"{"type":"FeatureCollection","features":[\#(a)],"crs":"EPSG:4326"}"#,
        #"{"type":"FeatureCollection","features":[]}"#,
        "\n\t{\r\n\"type\":\"FeatureCollection\",\n\"features\":[\n\(a)\n,\n\(b)\n]\n}\n",
        #"{"type":"FeatureCollection","bbox":[1,2,3,4],"features":[\#(b)],"x":{"features":[1]}}"#,
        // Syntax errors in a feature, between features, after them, at the top.
        #"{"type":"FeatureCollection","features":[\#(a),{"type":"Feature",,},\#(b)]}"#,
        #"{"type":"FeatureCollection","features":[\#(a) \#(b)]}"#,
        #"{"type":"FeatureCollection","features":[\#(a),]}"#,
        #"{"type":"FeatureCollection","features":[\#(a)]} x"#,
        #"{"type":"FeatureCollection","features":[\#(a),{"type":"Feature","properties":{"id":"q]"#,
        #"{"type":"FeatureCollection","features":[\#(a),{"type":"Feature"]]}"#,
        #"{"type":"FeatureCollection","features":[\#(a),{"type":"Feature","properties":{"id":"d","id":"e"}}]}"#,
        #"{"type":"FeatureCollection","features":[\#(a),{"type":"Feature","geometry":{"coordinates":[1.0.0]}}]}"#,
        #"{"type":"FeatureCollection","features":[\#(a),"\#u{01}"]}"#,
        #"{"type":"FeatureCollection","features":[\#(a)],"features":[\#(b)]}"#,
        #"{"type":"FeatureCollection","type":"FeatureCollection","features":[\#(a)]}"#,
        // Nesting: a feature at the limit passes, one level more is refused, as in one document.
        #"{"type":"FeatureCollection","features":[\#(a),{"type":"Feature","deep":\#(String(repeating: "[", count: 509))\#(String(repeating: "]", count: 509))}]}"#,
        #"{"type":"FeatureCollection","features":[\#(a),{"type":"Feature","deep":\#(String(repeating: "[", count: 510))\#(String(repeating: "]", count: 510))}]}"#,
        // Not a FeatureCollection, or its features not an array.
        #"[1,2]"#, #"{"type":"Feature","features":[]}"#, #"{"type":"FeatureCollection","features":{}}"#, #"{"type":"FeatureCollection"}"#, "",
        // Problems of features and of the crs, with or without a syntax error too.
        #"{"type":"FeatureCollection","features":[\#(a),{"type":"Feature","properties":{"id":"a","kind":"tree"},"geometry":null},\#(polygonFeature("a", [square]))]}"#,
        #"{"type":"FeatureCollection","crs":"EPSG:999999","features":[\#(a)]}"#,
        #"{"type":"FeatureCollection","features":[\#(a),{,}],"crs":{"type":"name"}}"#,
        #"{"type":"FeatureCollection","features":[\#(a)],"crs":{"type":"name"}}"#,
    ]

    @Test(arguments: texts.indices) func readAsTheWholeDocument(_ k: Int) {
        #expect(Self.same(Self.texts[k]), "text \(k): \(Self.texts[k].prefix(300))")
    }

    /// The cases above do fail where they should, and where: a syntax error keeps its line and
    /// column, counted in the whole text.
    @Test func errorsKeepTheirPlace() throws {
        let text = "{\"type\":\"FeatureCollection\",\"features\":[\n\(Self.a),\n\(Self.b),\n  {\"type\":\"Feature\",,}]}"
        guard case let .failure(e) = Self.outcome(text, whole: false) else { Issue.record("a syntax error read as valid"); return }
        #expect(e.issues.count == 1 && e.issues[0].line == 4 && e.issues[0].column == 21 && e.issues[0].message.hasPrefix("not JSON"))
        #expect((try? Self.outcome(#"{"type":"FeatureCollection","features":[\#(Self.a),\#(Self.tricky)]}"#, whole: false).get())?.count == 2)
        let valid = try Self.outcome(Self.texts[2], whole: false).get()
        #expect(valid.count == 1 && valid[0].id == "a")
    }

    /// Handed over a block at a time: every region once, in order, as one parse gives them; a
    /// file with a problem throws the same issues after its blocks.
    @Test func blocksHandOverEveryRegionOnce() throws {
        var rng = SplitMix64(seed: 0xB10C)
        func features(_ n: Int, brokenAt: Int? = nil) -> [String] {
            (0..<n).map { k in
                let lon = -9.14 + rng.uniform(-0.05, 0.05), lat = 38.7 + rng.uniform(-0.05, 0.05)
                if k == brokenAt { return circleFeature("x\(k)", lon: lon, lat: lat, radius: -1) }
                return circleFeature("c\(k)", lon: lon, lat: lat, radius: rng.uniform(5, 300))
            }
        }
        let text = collection(features(9_000))
        var blocks: [[Region]] = []
        try text.withUnsafeBufferPointer { b throws(RegionFileError) in try RegionFile.forEachBlock(b, file: "f") { blocks.append($0) } }
        #expect(blocks.map(\.count) == [Cores.block, Cores.block, 9_000 - 2 * Cores.block])
        #expect(Array(blocks.joined()) == (try RegionFile.parse(text, file: "f")))

        let broken = collection(features(5_000, brokenAt: 4_500))
        var handed = 0
        let streamed = broken.withUnsafeBufferPointer { b in
            Result { () throws(RegionFileError) in try RegionFile.forEachBlock(b, file: "f") { handed += $0.count } }
        }
        guard case let .failure(e) = streamed else { Issue.record("a radius of -1 read as valid"); return }
        do { _ = try RegionFile.parse(broken, file: "f"); Issue.record("parse took a radius of -1") } catch {
            #expect(error.issues.map(\.description) == e.issues.map(\.description))
            #expect(error.issues.count == 1 && error.issues[0].feature == 4_500)
        }
        #expect(handed == Cores.block, "the block before the problem was handed over; the caller discards it")
    }
}
