import Foundation
import IntegrationSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension Daemon {
    /// 1,000 commands in one write on one connection, far past the 16 a connection may have
    /// waiting (the daemon stops reading while they do, and reads on as answers go out): every
    /// answer comes back, in order, each once, each the answer to its own command. Four kinds in
    /// turn, each answer naming its command: `add_region` (an album `Pipe k`, its seq the next),
    /// `state` (the seq of the adds before it), `water` of a plant that is not there (its id in
    /// the refusal) and `can_plant` at a latitude of its own (echoed). Then one more `state`:
    /// the next line is its answer, nothing stray before it; and the journal holds the albums in
    /// the order they were sent.
    @Test func athousandCommandsInOneWriteAreEachAnsweredOnceInOrder() async throws {
        let daemon = try DaemonProcess(gpsdPort: NMEAFeeder.freePort(), regions: sampleRegions)
        defer { daemon.finish() }
        try await daemon.start()
        let (c, hello) = try daemon.client()
        let base = (hello["seq"] as? NSNumber)?.int64Value ?? -1
        #expect(base == announcedSeqs)
        let count = 1_000
        func latitude(_ k: Int) -> String { String(format: "40.1%05d", k) }
        var lines: [String] = []
        for k in 0..<count {
            switch k % 4 {
            case 0: lines.append(#"{"cmd":"add_region","kind":"album","name":"Pipe \#(k)","at":[40.1,-8.2]}"#)
            case 1: lines.append(#"{"cmd":"state"}"#)
            case 2: lines.append(#"{"cmd":"water","plant":"no-such-plant-\#(k)"}"#)
            default: lines.append(#"{"cmd":"can_plant","species":"Quercus robur","at":[\#(latitude(k)),-8.2365]}"#)
            }
        }
        let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        // One send(2) of all of it (on another thread: the daemon reads only as the answers drain).
        let writer = Thread { c.send(bytes) }
        writer.start()
        var answers: [String] = []
        while answers.count < count, let line = c.line(timeout: 20) { answers.append(line) }
        while !writer.isFinished { usleep(1_000) }
        #expect(answers.count == count, "\(answers.count) answers to \(count) commands")

        var adds: Int64 = 0
        var wrong: [String] = []
        for (k, line) in answers.enumerated() {
            let a = json(line)
            let ok: Bool
            switch k % 4 {
            case 0:
                adds += 1
                ok = a["class"] as? String == "EVENT" && a["type"] as? String == "region_added" && regionName(a) == "Pipe \(k)"
                    && (a["seq"] as? NSNumber)?.int64Value == base + adds
            case 1:
                ok = a["class"] as? String == "STATE" && (a["seq"] as? NSNumber)?.int64Value == base + adds
            case 2:
                ok = a["class"] as? String == "ERROR" && (a["message"] as? String)?.contains("no region 'no-such-plant-\(k)'") == true
            default:
                ok = a["class"] as? String == "CAN_PLANT" && line.contains(#""lat":\#(latitude(k))0,"#)
            }
            if !ok { wrong.append("answer \(k) (to \(lines[k])): \(line.prefix(300))") }
        }
        #expect(wrong.isEmpty, "\(wrong.count) answers not their command's, the first: \(wrong.first ?? "")")

        // Nothing stray: the next line is the answer to the next command.
        let after = json(c.ask(#"{"cmd":"state"}"#))
        #expect(after["class"] as? String == "STATE" && (after["seq"] as? NSNumber)?.int64Value == base + adds, "\(after)")
        // The journal: the albums in the order sent, each once (read to the last, then a marker).
        let (s, _) = try daemon.client()
        _ = s.ask(#"{"cmd":"subscribe","since":\#(base)}"#)
        var names: [String] = []
        var end = Int64.max
        while let line = s.line(timeout: 10) {
            let e = json(line)
            guard let seq = (e["seq"] as? NSNumber)?.int64Value else { continue }
            if seq >= end { break }
            names.append(regionName(e) ?? "?")
            if seq >= base + adds, end == .max { end = Self.marker(daemon.socket) }
        }
        let sent = stride(from: 0, to: count, by: 4).map { "Pipe \($0)" }
        #expect(names == sent, "\(names.count) albums journaled, first difference at \(Array(zip(names, sent)).firstIndex { $0 != $1 } ?? min(names.count, sent.count))")
    }
}
