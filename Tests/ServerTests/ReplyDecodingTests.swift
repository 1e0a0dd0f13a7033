import Foundation
import Geo
import JSON
import Protocol
import Testing

/// The typed replies read what the daemon sends: every reply of `protocol.golden` of a class a
/// client reads, and the refusals.
@Suite struct ReplyDecoding {
    /// The golden file's replies (`< ` lines) and refusals (`! ` lines), as lines from the daemon.
    static func golden() throws -> (replies: [ReplyLine], refusals: [ReplyLine]) {
        // Times of the wall clock are blanked in the file: any time (or number) stands for them here.
        let text = try String(contentsOf: CommandEncoding.goldenFolder.appendingPathComponent("protocol.golden"), encoding: .utf8)
            .replacingOccurrences(of: #""<clock>""#, with: #""2026-05-04T09:00:04.000Z""#).replacingOccurrences(of: "<clock>", with: "0")
        let lines = text.split(separator: "\n")
        func taken(_ prefix: String) -> [ReplyLine] {
            lines.filter { $0.hasPrefix(prefix) }.map { ReplyLine(Array($0.dropFirst(prefix.count).utf8)) }
        }
        return (taken("< "), taken("! "))
    }

    static let readers: [String: @Sendable (JSONValue) throws(ReplyError) -> Any] = [
        "REGIONS": { (v) throws(ReplyError) in try RegionsReply(v) }, "EXPORT": { (v) throws(ReplyError) in try ExportReply(v) },
        "TREES": { (v) throws(ReplyError) in try TreesReply(v) }, "TREE_REMOVED": { (v) throws(ReplyError) in try TreeRemovedReply(v) },
        "CAPTURE": { (v) throws(ReplyError) in try CaptureReply(v) }, "CAPTURES": { (v) throws(ReplyError) in try CapturesReply(v) },
        "TRACK": { (v) throws(ReplyError) in try TrackReply(v) }, "EVENT": { (v) throws(ReplyError) in try EventReply(v) },
        "PLANT": { (v) throws(ReplyError) in try PlantReply(v) }, "CAN_PLANT": { (v) throws(ReplyError) in try PlantReply(v) },
        "ROUND": { (v) throws(ReplyError) in try RoundReply(v) }, "TRAILS": { (v) throws(ReplyError) in try TrailsReply(v) },
    ]

    @Test func everyGoldenReplyOfAClassAClientReadsIsRead() throws {
        let (replies, refusals) = try Self.golden()
        var read: Set<String> = []
        for r in replies {
            // (STATE is blanked in the file: its commit timings are not JSON there.)
            guard let name = r.className, let reader = Self.readers[name] else { continue }
            #expect(throws: Never.self, "\(r.text)") { _ = try reader(r.value) }
            read.insert(name)
        }
        #expect(read == Set(Self.readers.keys))
        #expect(!refusals.isEmpty)
        for r in refusals {
            let e = try r.decoded(as: ErrorReply.self)
            #expect(!e.message.isEmpty && !e.lagged && e.prunedThrough == nil)
        }
    }

    func reply<R: DaemonReply>(_ class: String, _ type: R.Type) throws -> R {
        let line = try #require(try Self.golden().replies.first { $0.className == `class` })
        return try line.decoded(as: R.self)
    }

    @Test func theFieldsAreTheDaemons() throws {
        let regions = try reply("REGIONS", RegionsReply.self).regions
        #expect(regions.map(\.id) == ["plant-a", "album-a", "area-a"])
        #expect(regions[0].kind == "plant" && regions[0].layer == "base" && regions[0].inside && regions[0].distance == 29.1)
        #expect(regions[0].radius == 30 && regions[0].intervalDays == 3 && regions[0].due == true && regions[0].lastWatered == nil)
        #expect(regions[2].species == ["Quercus robur", "Pinus pinaster"] && regions[2].radius == nil)

        let export = try reply("EXPORT", ExportReply.self).features
        #expect(export.map(\.id) == ["plant-a", "album-a", "area-a"] && export[2].kind == "reforestation" && export[2].project == nil)
        // Coordinates as plain arrays of numbers, standing on their own.
        guard case .array(let rings)? = export[2].geometry?["coordinates"], case .array(let ring) = rings[0], case .array(let p) = ring[0] else {
            Issue.record("the polygon's coordinates")
            return
        }
        #expect(p.compactMap(\.number) == [-8.242, 40.099] && ring.count == 5)

        let trees = try reply("TREES", TreesReply.self).trees
        #expect(trees.map(\.id) == [1, 2] && trees[0].project == "spring" && trees[1].project == nil)
        #expect(trees[0].planted == UTCTime(iso8601: "2026-05-01T09:00:10Z") && trees[1].coordinate == Coordinate(latitude: 40.1005, longitude: -8.2405))

        let capture = try reply("CAPTURE", CaptureReply.self)
        #expect(capture.recorded && capture.capture?.id == 1 && capture.capture?.file == "20260501-090005-1a2b3c4d.jpg" && capture.capture?.error == 3)

        let track = try reply("TRACK", TrackReply.self).points
        #expect(track == [TrackPoint(time: UTCTime(iso8601: "2026-05-01T09:00:00Z")!, coordinate: Coordinate(latitude: 40.1, longitude: -8.24), error: 3)])

        let round = try reply("ROUND", RoundReply.self)
        #expect(round.exact && round.legs.map(\.region) == ["album-a", "plant-1", "terrace", "x1"] && round.length == 150.9)
        #expect(round.legs[0].name == "View" && round.legs[0].distance == 136.7 && round.legs[0].bearing == 60.8)
        #expect(round.from == Coordinate(latitude: 40.0995, longitude: -8.2415))
        let points = try #require(try Self.golden().replies.first { $0.className == "ROUND" && $0.text.contains(#""point":"#) }).decoded(as: RoundReply.self)
        #expect(points.legs.map(\.point) == [1, 0, 2] && points.legs.allSatisfy { $0.region == nil })

        let trails = try reply("TRAILS", TrailsReply.self)
        #expect(trails.active == nil && trails.trails.map(\.id) == ["level-1", "level-2"])
        #expect(trails.trails[0].checkpoints.map(\.region) == ["plant-a", "album-a"] && trails.trails[0].checkpoints[0].action == "water")
        #expect(trails.trails[0].completed == UTCTime(iso8601: "2026-05-01T09:00:04Z") && !trails.trails[1].locked && trails.trails[1].requires == ["level-1"])
        let running = try #require(try Self.golden().replies.first { $0.className == "TRAILS" && !$0.text.contains(#""active":null"#) }).decoded(as: TrailsReply.self)
        #expect(running.active?.trail == "level-2" && running.active?.next == 0 && running.active?.of == 2 && running.active?.nextRegion == "x1")

        let refused = try #require(try Self.golden().replies.first { $0.text.contains(#""allowed":false"#) && $0.className == "PLANT" })
        let verdict = try refused.decoded(as: PlantReply.self)
        #expect(!verdict.allowed && verdict.tree == nil && verdict.reason == "1.1 m from tree #1 but the spacing is 5 m")
    }

    @Test func subscriberLinesAndHello() throws {
        let hello = try ReplyLine(Array(#"{"class":"HELLO","version":"0.7.0","seq":29}"#.utf8)).decoded(as: Hello.self)
        #expect(hello.version == "0.7.0" && hello.seq == 29)
        let lagged = try ReplyLine(Array(#"{"class":"ERROR","lagged":true,"seq":12,"message":"you were not reading: resubscribe with since 12"}"#.utf8))
            .decoded(as: ErrorReply.self)
        #expect(lagged.lagged && lagged.seq == 12)
        let pruned = try ReplyLine(Subscribe.prunedLine(since: 0, pruned: 40)!).decoded(as: ErrorReply.self)
        #expect(pruned.prunedThrough == 40 && !pruned.lagged)
        let subscribed = try ReplyLine(Subscribe.subscribedLine(since: 7, journal: "5f0c")).decoded(as: Subscribed.self)
        #expect(subscribed.since == 7 && subscribed.journal == "5f0c")
        #expect(try ReplyLine(Array(#"{"class":"SUBSCRIBED","since":3}"#.utf8)).decoded(as: Subscribed.self).journal == nil, "a board that names no journal")
    }

    @Test func aReplyThatIsNotTheOneAskedForSaysWhy() throws {
        func problem<R: DaemonReply>(_ text: String, _ type: R.Type) -> String? {
            do {
                _ = try ReplyLine(Array(text.utf8)).decoded(as: R.self)
                return nil
            } catch { return error.message }
        }
        #expect(problem("not json", Hello.self) == "expected a HELLO reply, not null")
        #expect(problem(#"{"class":"STATE"}"#, TreesReply.self) == "expected a TREES reply, not a STATE")
        #expect(problem(#"{"class":"TREES","trees":[{"id":1}]}"#, TreesReply.self) == #"TREES trees[0]: "area" is missing"#)
        #expect(problem(#"{"class":"TREES","trees":[{"id":1.5}]}"#, TreesReply.self) == #"TREES trees[0]: "id" must be a whole number"#)
        #expect(problem(#"{"class":"CAPTURES","captures":{}}"#, CapturesReply.self) == #"CAPTURES: "captures" must be a list"#)
    }
}
