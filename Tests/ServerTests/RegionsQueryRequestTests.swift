import Foundation
import Geo
import Protocol
import Regions
import Testing

/// `regions`' view keys (`bbox`, `zoom`, `limit`, `ids`): what they parse to, what they come
/// back as, and the refusals, each naming what to send.
@Suite struct RegionsQueryRequests {
    func parse(_ line: String) throws -> Command { try Command.parse(Array(line.utf8)) }

    @Test func aViewParsesAndComesBack() throws {
        let view = try parse(#"{"cmd":"regions","geometry":true,"bbox":[-9.2,38.6,-9.0,38.8],"zoom":15,"limit":500}"#)
        #expect(view == .regions(RegionsQuery(geometry: true, bbox: .init(west: -9.2, south: 38.6, east: -9.0, north: 38.8), zoom: 15, limit: 500)))
        let named = try parse(#"{"cmd":"regions","ids":["a","b","a"]}"#)
        #expect(named == .regions(RegionsQuery(ids: ["a", "b"])))
        // Across the antimeridian: west > east.
        #expect(try parse(#"{"cmd":"regions","bbox":[179,-1,-179,1]}"#) == .regions(RegionsQuery(bbox: .init(west: 179, south: -1, east: -179, north: 1))))
        for c in [view, named, Command.regions(geometry: false), .regions(RegionsQuery(bbox: .init(west: -180, south: -90, east: 180, north: 90), zoom: 0, limit: 1))] {
            let bytes = c.json
            #expect(try Command.parse(bytes) == c, "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(String(decoding: Command.regions(geometry: false).json, as: UTF8.self) == #"{"cmd":"regions"}"#)
    }

    @Test func everyNumberIsBounded() {
        let cases: [(String, String)] = [
            (#"{"cmd":"regions","bbox":[1,2,3]}"#, "\"bbox\" must be [west, south, east, north]"),
            (#"{"cmd":"regions","bbox":"1,2,3,4"}"#, "\"bbox\" must be [west, south, east, north]"),
            (#"{"cmd":"regions","bbox":[0,50,1,40]}"#, "\"bbox\": south is north of north"),
            (#"{"cmd":"regions","bbox":[0,-91,1,40]}"#, "\"bbox\": south and north must be latitudes"),
            (#"{"cmd":"regions","bbox":[-200,0,1,40]}"#, "\"bbox\": west and east must be longitudes"),
            (#"{"cmd":"regions","bbox":[0,0,1,1e999]}"#, "not JSON"),
            (#"{"cmd":"regions","zoom":25}"#, "\"zoom\" must be a whole number from 0 to 24"),
            (#"{"cmd":"regions","zoom":1.5}"#, "\"zoom\" must be a whole number from 0 to 24"),
            (#"{"cmd":"regions","limit":0}"#, "\"limit\" must be a whole number from 1 to 10000"),
            (#"{"cmd":"regions","limit":10001}"#, "\"limit\" must be a whole number from 1 to 10000"),
            (#"{"cmd":"regions","ids":[]}"#, "\"ids\" is empty"),
            (#"{"cmd":"regions","ids":["a",7]}"#, "\"ids\" must hold region ids"),
            (#"{"cmd":"regions","ids":"a"}"#, "\"ids\" must be a list"),
            (#"{"cmd":"regions","ids":["a\u0007"]}"#, "an id in \"ids\""),
            (#"{"cmd":"regions","box":[0,0,1,1]}"#, "unknown key \"box\""),
        ]
        for (line, start) in cases {
            let message = parseError(line)
            #expect(message?.contains(start) == true, "\(line): \(message ?? "accepted")")
        }
        let many = "[" + (0...RegionsQuery.maxIDs).map { "\"r\($0)\"" }.joined(separator: ",") + "]"
        #expect(parseError(#"{"cmd":"regions","ids":"# + many + "}")?.contains("at most 1000 ids") == true)
        let long = String(repeating: "x", count: 201)
        #expect(parseError(#"{"cmd":"regions","ids":[""# + long + #""]}"#)?.contains("at most 200 bytes") == true)
    }
}

/// `journal`: paging back through the journal, bounded.
@Suite struct JournalRequests {
    @Test func pagesParseAndComeBack() throws {
        #expect(try Command.parse(Array(#"{"cmd":"journal"}"#.utf8)) == .journal(before: nil, limit: Command.journalPage))
        let c = try Command.parse(Array(#"{"cmd":"journal","before":1200,"limit":50}"#.utf8))
        #expect(c == .journal(before: 1200, limit: 50))
        #expect(try Command.parse(c.json) == c)
        #expect(c.name == "journal" && Command.commands.contains("journal"))
    }

    @Test func refusals() {
        #expect(parseError(#"{"cmd":"journal","before":0}"#)?.hasPrefix("\"before\" must be a whole number ≥ 1") == true)
        #expect(parseError(#"{"cmd":"journal","before":1.5}"#)?.hasPrefix("\"before\" must be a whole number ≥ 1") == true)
        #expect(parseError(#"{"cmd":"journal","limit":0}"#)?.hasPrefix("\"limit\" must be a whole number from 1 to 1000") == true)
        #expect(parseError(#"{"cmd":"journal","limit":1001}"#)?.hasPrefix("\"limit\" must be a whole number from 1 to 1000") == true)
        #expect(parseError(#"{"cmd":"journal","since":3}"#)?.hasPrefix("unknown key \"since\"") == true)
    }
}
