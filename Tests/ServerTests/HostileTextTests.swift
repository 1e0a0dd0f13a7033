import Geo
import Server
import Testing
import JSON
import Regions

/// Names, notes, ids and species with control or text-direction characters are refused at every
/// entry (a command, a feature, a regions file); a message that quotes them escapes them.
@Suite struct HostileText {
    func error(_ line: String) -> String? { parseError(line) }

    /// What sets a terminal's title and clears its screen, as JSON escapes.
    static let evil = #"evil\u001b]0;pwned\u0007\u001b[2J"#

    static let unsafe = [#"\u0000"#, #"\u001b"#, #"\u0007"#, #"\u000a"#, #"\u0009"#, #"\u007f"#, #"\u0080"#, #"\u009b"#,
                         #"\u202e"#, #"\u202a"#, #"\u2066"#, #"\u2069"#]

    @Test func everyTextFieldOfEveryCommandRefusesThem() {
        for u in Self.unsafe {
            let bad = "a\(u)b"
            let lines = [
                #"{"cmd":"add_region","kind":"plant","name":"\#(bad)","interval_days":3}"#,
                #"{"cmd":"add_region","kind":"album","name":"Beach","note":"\#(bad)"}"#,
                #"{"cmd":"add_region","kind":"album","name":"Beach","id":"\#(bad)"}"#,
                #"{"cmd":"update_region","region":"p1","name":"\#(bad)"}"#,
                #"{"cmd":"update_region","region":"p1","note":"\#(bad)"}"#,
                #"{"cmd":"update_region","region":"p1","species":["\#(bad)"]}"#,
                #"{"cmd":"water","plant":"\#(bad)"}"#,
                #"{"cmd":"plant","species":"\#(bad)"}"#,
                #"{"cmd":"plant","species":"Quercus suber","project":"\#(bad)"}"#,
                #"{"cmd":"capture","album":"a1","note":"\#(bad)"}"#,
                #"{"cmd":"species","query":"\#(bad)"}"#,
                #"{"cmd":"subscribe","regions":["\#(bad)"]}"#,
                #"{"cmd":"add_region","feature":{"type":"Feature","properties":{"id":"x","kind":"album","name":"\#(bad)"},"geometry":{"type":"Point","coordinates":[-8.2,40.1]}}}"#,
                #"{"cmd":"add_regions","features":[{"type":"Feature","properties":{"id":"x","kind":"album","name":"ok","note":"\#(bad)"},"geometry":{"type":"Point","coordinates":[-8.2,40.1]}}]}"#,
            ]
            for line in lines {
                let m = error(line)
                #expect(m?.contains("control or text-direction character") == true, "\(line): \(m ?? "accepted")")
                #expect(m.map { PlainText.firstUnsafe(in: $0) == nil } ?? true, "the message itself is plain: \(m ?? "")")
            }
        }
        let m = error(#"{"cmd":"add_region","kind":"plant","name":"\#(Self.evil)","interval_days":3}"#)
        #expect(m == #""name" holds \u{1B}, a control or text-direction character: names, notes, ids and species are plain text (no escapes, tabs or line breaks)"#)
    }

    @Test func plainTextOfEveryScriptStillPasses() {
        for name in ["Sobreiro do Castelo", "Ελιά", "桜の木", "شجرة", "עץ", "Ñandú 🌳", "a‍b", "x\u{200F}y"] {
            #expect(error(#"{"cmd":"add_region","kind":"plant","name":"\#(name)","interval_days":3}"#) == nil, "\(name)")
        }
    }

    /// A regions file (and so a fleet's collection) refuses them too, naming the feature.
    @Test func regionsFilesRefuseThem() {
        let text = #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"id":"p1","kind":"album","name":"\#(Self.evil)"},"geometry":{"type":"Point","coordinates":[-8.2,40.1]}}]}"#
        do {
            _ = try RegionFile.parse(Array(text.utf8), file: "fleet.geojson")
            Issue.record("accepted")
        } catch {
            #expect(error.description.contains("properties.name holds \\u{1B}"), "\(error.description)")
            #expect(PlainText.forTerminal(error.description) == error.description, "no control but its line breaks")
        }
    }

    /// JSON written by the daemon escapes C1 controls and bidi overrides as well as C0: a log or a
    /// terminal that shows it raw is not driven by it.
    @Test func writtenJSONEscapesThem() {
        var out: [UInt8] = []
        JSONBytes.appendString("a\u{1B}b\u{9B}c\u{7F}d\u{202E}e\u{2066}f\u{2028}g é 🌳", to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #""a\u001bb\u009bc\u007fd\u202ee\u2066f\#u{2028}g é 🌳""#)
        // And it reads back as the same text.
        let doc = try? JSONDocument.parse(out)
        #expect(doc?.root.string == "a\u{1B}b\u{9B}c\u{7F}d\u{202E}e\u{2066}f\u{2028}g é 🌳")
    }

    @Test func quotedTextIsEscaped() {
        #expect(TextExcerpt.short("no plant 'evil\u{1B}[2J'") == #"no plant 'evil\u{1B}[2J'"#)
        #expect(PlainText.forTerminal("a\tb\nc\u{1B}d\u{9B}") == "a\tb\nc\\u{1B}d\\u{9B}")
        #expect(error(#"{"cmd":"\#(Self.evil)"}"#).map { PlainText.firstUnsafe(in: $0) == nil } == true)
    }

    /// A polygon of many holes in one line: refused before a ring is built (1,100 identical holes
    /// held the engine 13 s, 3,000 over HTTP more than a minute).
    @Test func aPolygonOfManyHolesIsRefusedAtOnce() {
        let outer = "[[-8.3,40],[-8.1,40],[-8.1,40.2],[-8.3,40.2],[-8.3,40]]", hole = "[[-8.2,40.1],[-8.199,40.1],[-8.199,40.101],[-8.2,40.1]]"
        let rings = ([outer] + Array(repeating: hole, count: 1_100)).joined(separator: ",")
        let feature = #"{"type":"Feature","properties":{"kind":"album","name":"holes"},"geometry":{"type":"Polygon","coordinates":[\#(rings)]}}"#
        #expect(error(#"{"cmd":"add_region","feature":\#(feature)}"#)
            == "the feature is not taken: a polygon of 1101 rings, over the limit of 64 rings per polygon (its outer ring and 63 holes); split it into several regions")
        #expect(error(#"{"cmd":"add_regions","features":[\#(feature)]}"#)?.hasPrefix("nothing added: feature 0: a polygon of 1101 rings") == true)
        let many = Array(repeating: #"{"type":"Feature","properties":{"kind":"album","name":"a"},"geometry":{"type":"Point","coordinates":[-8.2,40.1]}}"#, count: 10_001)
        #expect(error(#"{"cmd":"add_regions","features":[\#(many.joined(separator: ","))]}"#)?.hasPrefix("10001 features, over the limit of 10000") == true)
    }

    /// The layout request that froze the daemon, over the socket or MQTT: refused at once.
    @Test func theFreezingLayoutIsRefused() {
        #expect(error(#"{"cmd":"layout","panorama":true,"at":[40.1012,-8.2391],"fov":[1e-300,1e-300],"screen":[1e300,1e300]}"#)
            == "the screen must be 1 to 16384 pixels wide and tall")
        #expect(error(#"{"cmd":"layout","heading":0,"fov":[60,45],"screen":[360,640],"box":[1e-300,1e-300]}"#)
            == "the box must be 1 to 16384 pixels wide and tall")
        #expect(error(#"{"cmd":"layout","heading":0,"fov":[60,45],"screen":[360,640],"max_visible":1e15}"#)
            == "the number of active POIs must be 1 to 10000")
        #expect(error(#"{"cmd":"layout","heading":0,"fov":[60,45],"screen":[360,640],"max_levels":20000}"#)
            == "the level cap must be 0 to 10000")
        #expect(error(#"{"cmd":"layout","heading":0,"fov":[60,45],"screen":[360,640],"max_distance":1e300}"#)
            == "the maximum distance must be 0 (no limit) to 20038000 metres")
        #expect(error(#"{"cmd":"layout","heading":1e300,"fov":[60,45],"screen":[360,640]}"#)
            == "the heading must be degrees clockwise from true north, from -360 to 720")
        #expect(error(#"{"cmd":"layout","heading":0,"fov":[60,45],"screen":[360,640],"offset":"manual:0:1e300"}"#)?.hasPrefix("a manual offset needs") == true)
    }
}
