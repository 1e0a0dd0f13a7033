import Foundation
import Geo
import JSON
import Protocol
import MQTT
import Testing

/// The crew's book: every message from `owntracks/+/+` is hostile until checked; what passes is
/// shown with its age by the board's clock, at most 200 members.
@Suite struct CrewBookTests {
    let own = "owntracks/board-a/treeline"
    let now: Int64 = 1_777_626_000
    let second: UInt64 = 1_000_000_000

    func location(lat: Double = 40.1, lon: Double = -8.23, tst: Int64? = nil, extra: String = "") -> [UInt8] {
        Array(#"{"_type":"location","lat":\#(lat),"lon":\#(lon),"tst":\#(tst ?? now - 4)\#(extra)}"#.utf8)
    }

    func members(_ book: CrewBook, at t: UInt64) throws -> [[String: Any]] {
        try #require(try object(book.reply(now: t))["members"] as? [[String: Any]])
    }

    @Test func aLocationIsShownWithItsAgeAndTheBoardItselfNever() throws {
        var book = CrewBook(own: own)
        #expect(book.take(topic: "owntracks/board-b/treeline", payload: location(extra: #","acc":12,"tid":"bb","vel":4,"cog":90"#), received: 10 * second, boardSeconds: now) == .updated)
        #expect(book.take(topic: own, payload: location(), received: 10 * second, boardSeconds: now) == .ignored)
        #expect(book.take(topic: "owntracks/alice/phone", payload: location(lat: 40.2, tst: now + 30), received: 11 * second, boardSeconds: now) == .updated)
        let list = try members(book, at: 17 * second)
        #expect(list.map { $0["name"] as? String } == ["alice phone", "board-b"])
        let b = list[1]
        #expect(b["user"] as? String == "board-b" && b["device"] as? String == "treeline" && b["tid"] as? String == "bb")
        #expect(b["lat"] as? Double == 40.1 && b["lon"] as? Double == -8.23 && b["acc"] as? Int == 12 && b["vel"] as? Int == 4 && b["cog"] as? Int == 90)
        #expect(b["tst"] as? Int == Int(now - 4))
        // 4 s old when it came, 7 s since.
        #expect(b["age_s"] as? Int == 11)
        // A clock ahead of the board's is not a negative age.
        #expect(list[0]["age_s"] as? Int == 6)
        // Before the board has a time of its own, the age counts from arrival.
        var early = CrewBook(own: own)
        _ = early.take(topic: "owntracks/c/treeline", payload: location(), received: 0, boardSeconds: nil)
        #expect(try members(early, at: 3 * second)[0]["age_s"] as? Int == 3)
    }

    @Test func aClearedRetainedLocationRemovesItsMember() throws {
        var book = CrewBook(own: own)
        _ = book.take(topic: "owntracks/b/treeline", payload: location(), received: 0, boardSeconds: now)
        #expect(book.take(topic: "owntracks/b/treeline", payload: [], received: second, boardSeconds: now) == .removed)
        #expect(book.take(topic: "owntracks/b/treeline", payload: [], received: second, boardSeconds: now) == .ignored)
        #expect(try members(book, at: second).isEmpty)
    }

    /// Each refusal says why; nothing refused is kept; other `_type`s are not locations.
    @Test func hostileMessagesAreRefused() throws {
        var book = CrewBook(own: own)
        let t = "owntracks/x/treeline"
        let refused: [(String, [UInt8])] = [
            ("owntracks/a/b/c", location()),
            ("owntracks//treeline", location()),
            ("owntracks/" + String(repeating: "u", count: 65) + "/d", location()),
            ("owntracks/a\u{1}b/d", location()),
            (t, location(lat: 90.5)),
            (t, location(lon: -180.01)),
            (t, Array(#"{"_type":"location","lat":"40","lon":-8,"tst":1777626000}"#.utf8)),
            (t, location(tst: 100)),
            (t, location(tst: now + 86_401)),
            (t, Array(#"{"_type":"location","lat":40,"lon":-8,"tst":1777626000.5}"#.utf8)),
            (t, Array("not json".utf8)),
            (t, Array("[1]".utf8)),
            (t, Array(#"{"_type":"location","lat":40,"lon":-8,"tst":1777626000,"pad":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 4_100) + Array(#""}"#.utf8)),
        ]
        for (topic, payload) in refused {
            guard case .refused(let why) = book.take(topic: topic, payload: payload, received: 0, boardSeconds: now) else {
                Issue.record("taken: \(topic.prefix(80)) \(String(decoding: payload.prefix(80), as: UTF8.self))")
                continue
            }
            #expect(!why.isEmpty)
        }
        #expect(book.take(topic: t, payload: Array(#"{"_type":"waypoints","waypoints":[]}"#.utf8), received: 0, boardSeconds: now) == .ignored)
        #expect(book.members.isEmpty)
        // Odd optional fields are dropped, the position kept.
        #expect(book.take(topic: t, payload: location(extra: #","acc":-3,"vel":1e9,"cog":361,"tid":"<img src=x onerror=alert(1)>""#), received: 0, boardSeconds: now) == .updated)
        let m = try #require(book.members[t])
        #expect(m.accuracy == nil && m.velocity == nil && m.course == nil && m.tid == nil)
        // A name is text: the page shows it as such.
        #expect(book.take(topic: "owntracks/<img src=x onerror=alert(1)>/treeline", payload: location(), received: 0, boardSeconds: now) == .updated)
        #expect(try members(book, at: 0).contains { $0["name"] as? String == "<img src=x onerror=alert(1)>" })
    }

    /// A late or replayed location never moves a member back in time.
    @Test func anOlderLocationIsIgnored() throws {
        var book = CrewBook(own: own)
        #expect(book.take(topic: "owntracks/b/treeline", payload: location(lat: 40.2, tst: now), received: 0, boardSeconds: now) == .updated)
        #expect(book.take(topic: "owntracks/b/treeline", payload: location(lat: 40.1, tst: now - 60), received: second, boardSeconds: now) == .ignored)
        #expect(book.members["owntracks/b/treeline"]?.coordinate.latitude == 40.2)
        #expect(book.take(topic: "owntracks/b/treeline", payload: location(lat: 40.3, tst: now), received: second, boardSeconds: now) == .updated)
    }

    /// One user (a board may publish only under its own name) holds at most 8 devices: made-up
    /// devices push out that user's own oldest, never another member.
    @Test func oneUserCannotPushTheCrewOut() throws {
        var book = CrewBook(own: own)
        _ = book.take(topic: "owntracks/alice/phone", payload: location(), received: 0, boardSeconds: now)
        for i in 0..<500 {
            _ = book.take(topic: "owntracks/evil/d\(i)", payload: location(), received: UInt64(i + 1) * second, boardSeconds: now)
        }
        #expect(book.members.count == 1 + CrewBook.perUser)
        #expect(book.members["owntracks/alice/phone"] != nil && book.members["owntracks/evil/d499"] != nil && book.members["owntracks/evil/d491"] == nil)
    }

    /// 200 members at most: the 201st pushes out the one heard from longest ago; an update of a
    /// member already there pushes out nobody.
    @Test func atMost200MembersTheOldestGoes() throws {
        var book = CrewBook(own: own)
        for i in 0..<CrewBook.capacity {
            #expect(book.take(topic: "owntracks/u\(i)/treeline", payload: location(), received: UInt64(i + 1) * second, boardSeconds: now) == .updated)
        }
        _ = book.take(topic: "owntracks/u0/treeline", payload: location(lat: 40.3), received: 500 * second, boardSeconds: now)
        #expect(book.members.count == 200)
        _ = book.take(topic: "owntracks/new/treeline", payload: location(), received: 501 * second, boardSeconds: now)
        #expect(book.members.count == 200)
        #expect(book.members["owntracks/u1/treeline"] == nil, "u1 was heard from longest ago")
        #expect(book.members["owntracks/u0/treeline"]?.coordinate.latitude == 40.3 && book.members["owntracks/new/treeline"] != nil)
    }
}

/// OwnTracks' payloads as HA's OwnTracks integration reads them.
@Suite struct OwnTracksPayloads {
    @Test func theTrackerIDComesFromTheBoardsName() {
        #expect(OwnTracks.defaultTID("board-7") == "b7")
        #expect(OwnTracks.defaultTID("board-12") == "b2")
        #expect(OwnTracks.defaultTID("x") == "x")
        #expect(OwnTracks.defaultTID("--") == "-")
    }

    /// A transition's `desc` is what HA looks its zone up by (`zone.<slug of desc>`): the bridge
    /// passes the zone's name, and it goes out as it is.
    @Test func aTransitionCarriesTheZonesName() throws {
        let p = OwnTracks.Position(time: UTCTime(nanoseconds: 1_777_626_023 * UTCTime.nanosPerSecond), coordinate: Coordinate(latitude: 40.1, longitude: -8.2), accuracy: 0.2)
        let t = try object(OwnTracks.transition(entering: false, region: ("album-1", "board-7 treeline - Viewpoint"), created: UTCTime(nanoseconds: 0), at: p, tid: "b7"))
        #expect(t["_type"] as? String == "transition" && t["event"] as? String == "leave" && t["desc"] as? String == "board-7 treeline - Viewpoint")
        #expect(t["rid"] as? String == "album-1" && t["acc"] as? Int == 1 && t["tst"] as? Int == 1_777_626_023 && t["t"] as? String == "c")
        let w = try object(OwnTracks.waypoints([.init(id: "album-1", name: "Viewpoint", center: p.coordinate, radius: 150.4, created: p.time)]))
        let list = try #require(w["waypoints"] as? [[String: Any]])
        #expect(list.count == 1 && list[0]["desc"] as? String == "Viewpoint" && list[0]["rad"] as? Int == 150 && list[0]["rid"] as? String == "album-1")
    }
}

/// `CREW` read back by the typed protocol (as `treeline crew` reads it): the same members.
@Suite struct CrewReplyDecoding {
    @Test func theTypedReplyReadsWhatTheBookWrites() throws {
        var book = CrewBook(own: nil)
        _ = book.take(topic: "owntracks/board-b/treeline", payload: Array(#"{"_type":"location","lat":40.1,"lon":-8.2,"tst":1777626000,"acc":3,"tid":"bb"}"#.utf8),
                      received: 0, boardSeconds: 1_777_626_002)
        _ = book.take(topic: "owntracks/alice/phone", payload: Array(#"{"_type":"location","lat":40.2,"lon":-8.1,"tst":1777626000,"vel":5,"cog":270}"#.utf8),
                      received: 0, boardSeconds: 1_777_626_002)
        let reply = try CrewReply(try JSONDocument.parse(book.reply(now: 3_000_000_000)).root)
        #expect(reply.members.map(\.name) == ["alice phone", "board-b"])
        let b = reply.members[1]
        #expect(b.user == "board-b" && b.device == "treeline" && b.tid == "bb" && b.at == Coordinate(latitude: 40.1, longitude: -8.2))
        #expect(b.accuracy == 3 && b.velocity == nil && b.course == nil && b.age == 5)
        #expect(reply.members[0].velocity == 5 && reply.members[0].course == 270 && reply.members[0].accuracy == nil)
    }
}
