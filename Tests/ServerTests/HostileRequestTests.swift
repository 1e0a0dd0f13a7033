import Server
import Store
import Testing
import Protocol

/// Requests that Foundation's parser accepted and that now get a clear error.
@Suite struct HostileRequests {
    func error(_ bytes: [UInt8]) -> String? {
        do {
            _ = try Command.parse(bytes)
            return nil
        } catch {
            return error.message
        }
    }

    func error(_ line: String) -> String? { error(Array(line.utf8)) }

    @Test func strictJSONOnly() {
        #expect(error(#"{"cmd":"state",}"#)?.hasPrefix("not JSON (expected a member name in quotes, found '}', at byte 16)") == true)
        #expect(error("\u{FEFF}" + #"{"cmd":"state"}"#)?.hasPrefix("not JSON") == true, "a byte-order mark")
        let units: [UInt8] = Array(#"{"cmd":"state"}"#.utf16).flatMap { (u: UInt16) -> [UInt8] in [UInt8(u & 0xFF), UInt8(u >> 8)] }
        let utf16: [UInt8] = [0xFF, 0xFE] + units
        #expect(error(utf16)?.hasPrefix("not JSON") == true)
        #expect(error(#"{"cmd":"water","plant":"a","plant":"b"}"#)?.hasPrefix("not JSON (duplicate member \"plant\"") == true)
        #expect(error(#"{"cmd":"layout","heading":1e400,"fov":[60,45],"screen":[1280,720]}"#)?.hasPrefix("not JSON (number 1e400 is out of range") == true)
    }

    @Test func aSubscriptionThatCouldNeverDeliverIsRefused() {
        #expect(error(#"{"cmd":"subscribe","kinds":[]}"#) == "\"kinds\" is empty, so no event would ever match: leave it out to get every one")
        #expect(error(#"{"cmd":"subscribe","regions":[]}"#)?.hasPrefix("\"regions\" is empty") == true)
        #expect(error(#"{"cmd":"subscribe","types":[]}"#)?.hasPrefix("\"types\" is empty") == true)
    }

    @Test func aHugeSinceSaysWhatIsWrong() {
        #expect(error(#"{"cmd":"subscribe","since":9223372036854775807}"#)
            == "\"since\" is too large: seqs go up to 9007199254740992; send the last seq you received")
        #expect(error(#"{"cmd":"subscribe","since":1.5}"#)?.hasPrefix("\"since\" must be a whole number") == true)
        #expect(throws: Never.self) { try Command.parse(Array(#"{"cmd":"subscribe","since":9007199254740992}"#.utf8)) }
    }

    @Test func messagesQuoteAtMost80Characters() {
        let long = String(repeating: "x", count: 100_000)
        let m = error(#"{"cmd":"\#(long)"}"#)
        #expect(m == "unknown cmd '\(String(repeating: "x", count: 80))…': one of \(Command.commands.joined(separator: ", "))")
        #expect((error(#"{"cmd":"state","\#(long)":1}"#)?.count ?? 0) < 200)
    }
}
