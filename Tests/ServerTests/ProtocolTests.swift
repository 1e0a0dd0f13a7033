import NIOCore
import NIOEmbedded
import Server
import Geo
import Store
import Testing
import Protocol

@Suite struct LineFraming {
    func lines(_ chunks: [String], maximum: Int = 64 * 1024) throws -> [ClientLine] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(LineFramer(maximum: maximum)))
        for c in chunks { try channel.writeInbound(ByteBuffer(string: c)) }
        var out: [ClientLine] = []
        while let l = try channel.readInbound(as: ClientLine.self) { out.append(l) }
        _ = try? channel.finish()
        return out
    }

    @Test func splitsAcrossChunksAndDropsCR() throws {
        #expect(try lines(["{\"cmd\":", "\"state\"}\r\n{\"cmd\":\"regions\"}\n", "partial"])
            == [.line(ByteBuffer(string: #"{"cmd":"state"}"#)), .line(ByteBuffer(string: #"{"cmd":"regions"}"#))])
    }

    @Test func aLineOverTheLimitIsReportedOnceAndTheNextLineStillComes() throws {
        let long = String(repeating: "x", count: 100)
        // In one piece, and in pieces that pass the limit before the newline comes.
        #expect(try lines([long + "\nok\n"], maximum: 64) == [.tooLong(100), .line(ByteBuffer(string: "ok"))])
        #expect(try lines([String(long.prefix(70)), String(long.dropFirst(70)) + "\n", "ok\n"], maximum: 64)
            == [.tooLong(100), .line(ByteBuffer(string: "ok"))])
        #expect(try lines([String(repeating: "y", count: 64) + "\n"], maximum: 64) == [.line(ByteBuffer(string: String(repeating: "y", count: 64)))])
    }
}

/// The message a request line is refused with; nil when it parses.
func parseError(_ line: String) -> String? {
    do {
        _ = try Command.parse(Array(line.utf8))
        return nil
    } catch {
        return error.message
    }
}

@Suite struct Requests {
    func error(_ line: String) -> String? { parseError(line) }

    @Test func commands() throws {
        #expect(try Command.parse(Array(#"{"cmd":"state"}"#.utf8)) == .state)
        #expect(try Command.parse(Array(#"{"cmd":"regions"}"#.utf8)) == .regions(geometry: false))
        #expect(try Command.parse(Array(#"{"cmd":"water","plant":"plant-7"}"#.utf8)) == .water(plant: "plant-7"))
        #expect(try Command.parse(Array(#"{"cmd":"subscribe","kinds":["plant","album"],"since":1000}"#.utf8))
            == .subscribe(Subscribe(filter: EventFilter(kinds: ["plant", "album"]), since: 1000)))
        #expect(try Command.parse(Array(#"{"cmd":"can_plant","at":[40.1,-8.2]}"#.utf8))
            == .canPlant(species: nil, area: nil, at: Coordinate(latitude: 40.1, longitude: -8.2)))
        #expect(try Command.parse(Array(#"{"cmd":"plan","area":"ref","species":"oak","count":5,"seed":9}"#.utf8))
            == .plan(area: "ref", species: "oak", count: 5, at: nil, maxDistance: nil, seed: 9))
        #expect(try Command.parse(Array(#"{"cmd":"subscribe","types":["enter"],"regions":["a"],"timing":true}"#.utf8))
            == .subscribe(Subscribe(filter: EventFilter(regions: ["a"], types: ["enter"]), timing: true)))
        #expect(try Command.parse(Array(#"{"cmd":"subscribe","positions":true}"#.utf8)) == .subscribe(Subscribe(positions: true)))
        #expect(try Command.parse(Array(#"{"cmd":"subscribe","since":4,"journal":"0123abcd"}"#.utf8)) == .subscribe(Subscribe(since: 4, journal: "0123abcd")))
        #expect(try Command.parse(Array(#"{"cmd":"subscribe","journal":null}"#.utf8)) == .subscribe(Subscribe()))
        #expect(try Command.parse(Array(#"{"cmd":"species","query":"oak"}"#.utf8)) == .species(query: "oak"))
    }

    @Test func badInputSaysWhatIsWrong() {
        #expect(error("hello")?.hasPrefix("not JSON") == true)
        #expect(error("[1,2]")?.hasPrefix("not a JSON object") == true)
        #expect(error(#"{"command":"state"}"#)?.hasPrefix("missing \"cmd\"") == true)
        #expect(error(#"{"cmd":"foo"}"#) == "unknown cmd 'foo': one of \(Command.commands.joined(separator: ", "))")
        #expect(error(#"{"cmd":7}"#) == "\"cmd\" must be a string")
        #expect(error(#"{"cmd":"subscribe","since":"12"}"#)?.hasPrefix("\"since\" must be a whole number") == true)
        #expect(error(#"{"cmd":"subscribe","since":-1}"#)?.hasPrefix("\"since\" must be a whole number") == true)
        #expect(error(#"{"cmd":"subscribe","since":1.5}"#)?.hasPrefix("\"since\" must be a whole number") == true)
        #expect(error(#"{"cmd":"subscribe","since":true}"#)?.hasPrefix("\"since\" must be a whole number") == true)
        #expect(error(#"{"cmd":"subscribe","kinds":"plant"}"#) == "\"kinds\" must be a list of strings")
        #expect(error(#"{"cmd":"subscribe","kinds":["tree"]}"#) == "\"kinds\": unknown 'tree': one of album, layer, plant, reforestation, trail")
        #expect(error(#"{"cmd":"subscribe","types":["entered"]}"#)?.hasPrefix("\"types\": unknown 'entered'") == true)
        #expect(error(#"{"cmd":"subscribe","sinse":3}"#)?.hasPrefix("unknown key \"sinse\" for cmd 'subscribe'") == true)
        for bad in [#""journal":7"#, #""journal":"""#, #""journal":["a"]"#, "\"journal\":\"\(String(repeating: "a", count: 65))\""] {
            #expect(error(#"{"cmd":"subscribe",\#(bad)}"#)?.hasPrefix("\"journal\" must be the journal's name as STATE or SUBSCRIBED gave it (1 to 64 bytes)") == true, "\(bad)")
        }
        #expect(error(#"{"cmd":"water"}"#)?.hasPrefix("missing \"plant\"") == true)
        #expect(error(#"{"cmd":"water","plant":7}"#) == "\"plant\" must be a plant's id (a string)")
        #expect(error(#"{"cmd":"state","verbose":true}"#) == "unknown key \"verbose\" for cmd 'state'")
        #expect(error(#"{"cmd":"plant"}"#)?.hasPrefix("missing \"species\"") == true)
        #expect(error(#"{"cmd":"plant","species":"oak","at":[91,0]}"#) == "\"at\" must be [latitude, longitude] in decimal degrees")
        #expect(error(#"{"cmd":"plan","area":"a","species":"oak","count":2.5}"#) == "\"count\" must be a whole number from 1 to 10000")
        #expect(error(#"{"cmd":"plan","area":"a","species":"oak","count":2,"max_distance":-1}"#) == "\"max_distance\" must be a number of metres above 0")
    }
}
