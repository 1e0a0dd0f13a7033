import Geo
import Protocol
import Regions
import Testing

/// `ago_s`: an action done while the phone could not reach the board says how long ago it was
/// done, in seconds of the phone's own stopwatch (never its clock), from 0 to a week; the board
/// records it at its own time minus that, where its track says it was.
@Suite struct AgoRequests {
    func parse(_ line: String) throws -> Command { try Command.parse(Array(line.utf8)) }

    func refusal(_ line: String) -> String? {
        do throws(CommandError) {
            _ = try Command.parse(Array(line.utf8))
            return nil
        } catch {
            return error.message
        }
    }

    @Test func theFourActionsTakeIt() throws {
        #expect(try parse(#"{"cmd":"water","plant":"p","ago_s":90.5}"#) == .water(plant: "p", ago: 90.5))
        #expect(try parse(#"{"cmd":"capture","album":"a","ago_s":0}"#) == .capture(album: "a", file: nil, note: nil, ago: 0))
        #expect(try parse(#"{"cmd":"plant","species":"Quercus robur","ago_s":604800}"#)
            == .plant(species: "Quercus robur", area: nil, at: nil, project: nil, planted: nil, ago: 604_800))
        var short = ShortRegion(kind: .plant, name: "Fig", intervalDays: 4)
        short.at = Coordinate(latitude: 40.1, longitude: -8.2)
        short.ago = 12
        #expect(try parse(#"{"cmd":"add_region","kind":"plant","name":"Fig","interval_days":4,"at":[40.1,-8.2],"ago_s":12}"#) == .addRegion(.short(short)))
        // Without it, as before.
        #expect(try parse(#"{"cmd":"water","plant":"p"}"#) == .water(plant: "p"))
        #expect(try parse(#"{"cmd":"water","plant":"p","ago_s":null}"#) == .water(plant: "p"))
    }

    @Test func outOfRangeOrNotANumberIsRefusedWithTheRange() {
        for bad in ["-1", "604800.5", "1e300", "\"60\"", "true", "[1]"] {
            let message = refusal(#"{"cmd":"water","plant":"p","ago_s":"# + bad + "}")
            #expect(message?.contains("\"ago_s\" must be a number of seconds from 0 to 604800") == true, "\(bad): \(message ?? "taken")")
        }
        // Only the actions take it: undo_water and reads do not.
        #expect(refusal(#"{"cmd":"undo_water","plant":"p","ago_s":5}"#)?.contains("ago_s") == true)
        #expect(refusal(#"{"cmd":"state","ago_s":5}"#)?.contains("ago_s") == true)
    }

    @Test func itComesBackAsItWasSent() throws {
        var short = ShortRegion(kind: .album, name: "Beach")
        short.ago = 3.25
        for c: Command in [.water(plant: "p", ago: 1.5), .capture(album: "a", file: "f.jpg", note: "n", ago: 600),
                           .plant(species: "s", area: "x", at: nil, project: nil, planted: nil, ago: 0.1), .addRegion(.short(short))] {
            let back = try Command.parse(c.json)
            #expect(back == c, "\(String(decoding: c.json, as: UTF8.self))")
        }
    }

    @Test func onlyChangesCountAsChanges() throws {
        #expect(try parse(#"{"cmd":"water","plant":"p"}"#).isChange)
        #expect(try parse(#"{"cmd":"capture","album":"a"}"#).isChange)
        #expect(try !parse(#"{"cmd":"state"}"#).isChange)
        #expect(try !parse(#"{"cmd":"regions","geometry":true}"#).isChange)
    }
}
