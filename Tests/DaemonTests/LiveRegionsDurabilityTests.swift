import Foundation
import IntegrationSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension Daemon {
    /// 650 `add_region` / `remove_region` calls while the daemon is SIGKILLed at random moments:
    /// after each restart every answered change is there, an unanswered one is wholly there
    /// (region and event) or wholly absent. The journal, read from seq 0 (657 events and more:
    /// past the catch-up's page of 256 twice), is seq 1 to the last, each once and in order, each
    /// answered change's event as its answer said, and it rebuilds the user layer in its order.
    @Test func killedDuringSixHundredFiftyRegionChangesItKeepsEveryAnsweredOne() async throws {
        // No gpsd: changes placed with "at" need no fix.
        let daemon = try DaemonProcess(gpsdPort: NMEAFeeder.freePort(), regions: sampleRegions)
        defer { daemon.finish() }
        try await daemon.start()
        var present = Set<String>(), absent = Set<String>(), unknown = Set<String>()
        var added: [String] = []
        var kills = 0
        var rng = SystemRandomNumberGenerator()
        var client = try daemon.client().0
        var k = 0
        var killedLast = false
        /// The answered changes' events, by seq, as the answers gave them.
        var answered: [Int64: String] = [:]
        let calls = 650
        while k < calls {
            // Every fourth call removes the plant added two calls before; the others add one.
            let request: String, id: String, adding: Bool
            if k % 4 == 3, let victim = added.last {
                (id, adding) = (victim, false)
                request = #"{"cmd":"remove_region","region":"\#(id)"}"#
            } else {
                (id, adding) = ("p\(k)", true)
                request = #"{"cmd":"add_region","kind":"plant","id":"\#(id)","name":"Plant \#(k)","interval_days":3,"at":[40.10\#(k % 10),-8.23\#(k % 7)]}"#
            }
            // A SIGKILL now and then, from another thread, some microseconds into a call.
            let killer: Thread?
            if Int.random(in: 0..<60, using: &rng) == 0 {
                let delay = UInt32.random(in: 0...3_000, using: &rng)
                let pid = daemon.pid ?? 0
                killer = Thread { usleep(delay); kill(pid, SIGKILL) }
                killer?.start()
            } else {
                killer = nil
            }
            let line = client.ask(request, timeout: 5)
            let reply = line.map { json($0) }
            if let killer { while !killer.isFinished { usleep(500) } }
            killedLast = killer != nil
            if let reply, reply["class"] as? String == "EVENT" {
                if let seq = (reply["seq"] as? NSNumber)?.int64Value { answered[seq] = line }
                if adding { present.insert(id); added.append(id) } else { present.remove(id); absent.insert(id); added.removeAll { $0 == id } }
                unknown.remove(id)
            } else if let reply, reply["class"] as? String == "ERROR" {
                // Only after a kill can a change be refused: its first try was saved unanswered.
                #expect(unknown.contains(id), "refused: \(reply)")
            } else {
                // Unanswered: the daemon died. Either outcome is allowed; the restart tells.
                unknown.insert(id)
                if adding { added.append(id) } else { added.removeAll { $0 == id } }
                kills += 1
                daemon.kill9()
                try await daemon.start()
                client = try daemon.client().0
                let inForce = Set((json(client.ask(#"{"cmd":"regions"}"#))["regions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
                let sure = present.subtracting(unknown)
                #expect(sure.isSubset(of: inForce), "answered adds after kill \(kills): missing \(sure.subtracting(inForce).sorted())")
                #expect(absent.subtracting(unknown).isDisjoint(with: inForce), "answered removals after kill \(kills): back \(absent.intersection(inForce))")
                // The unanswered call is settled now, as the daemon says: wholly done or not at all.
                for u in unknown {
                    if inForce.contains(u) { present.insert(u); absent.remove(u) } else { present.remove(u); absent.insert(u) }
                }
                unknown.removeAll()
                added = added.filter { inForce.contains($0) }
            }
            k += 1
        }
        #expect(kills >= 3, "the daemon was killed \(kills) times")
        // A SIGKILL that landed just after the last answer: the end is read after a restart too.
        if killedLast {
            daemon.kill9()
            try await daemon.start()
        }

        // The end: the user layer is what the answers say, and the journal's region events,
        // read from seq 0 to the last (then a marker, whose event must come next), rebuild it
        // in the daemon's order with every seq once.
        let (c, _) = try daemon.client()
        let regions = json(c.ask(#"{"cmd":"regions"}"#))["regions"] as? [[String: Any]] ?? []
        let user = regions.filter { $0["layer"] as? String == "user" }.compactMap { $0["id"] as? String }
        #expect(Set(user) == present, "in force: \(Set(user).symmetricDifference(present))")
        let last = (json(c.ask(#"{"cmd":"state"}"#))["seq"] as? NSNumber)?.int64Value ?? -1
        #expect(last > 600, "past the socket's page of 256 twice: \(last) events")
        _ = c.ask(#"{"cmd":"subscribe","since":0}"#)
        var seqs: [Int64] = []
        var journal: [Int64: String] = [:]
        var rebuilt: [String] = []
        var end = Int64.max
        while let line = c.line(timeout: 10) {
            let e = json(line)
            guard let seq = (e["seq"] as? NSNumber)?.int64Value, let id = e["region"] as? String else { continue }
            seqs.append(seq)
            journal[seq] = line
            if seq >= end { break }
            if seq >= last, end == .max { end = Self.marker(daemon.socket, name: "End of the changes") }
            guard seq <= last, e["layer"] as? String == "user" else { continue }
            if e["type"] as? String == "region_added" {
                #expect(!rebuilt.contains(id), "\(id) added twice")
                rebuilt.append(id)
            }
            if e["type"] as? String == "region_removed" { rebuilt.removeAll { $0 == id } }
        }
        #expect(end == last + 1, "the marker follows the last change")
        #expect(seqs == Array(1...(last + 1)), "every seq once, in order, to the marker: \(seqs.count) events, first difference at \(Array(zip(seqs, 1...(last + 1))).firstIndex { $0 != $1 } ?? seqs.count)")
        #expect(rebuilt == user, "the journal rebuilds the user layer in the daemon's order: \(rebuilt.count) vs \(user.count), first difference at \(Array(zip(rebuilt, user)).firstIndex { $0 != $1 } ?? -1)")
        // Each answered change is in the journal under the seq its answer gave, as it was answered.
        var unlike: [Int64] = []
        for (seq, reply) in answered where reply != journal[seq] { unlike.append(seq) }
        #expect(unlike.isEmpty, "\(unlike.count) of \(answered.count) answers unlike their journal events, e.g. seq \(unlike.min() ?? 0): \(unlike.min().map { "\(answered[$0] ?? "") vs \(journal[$0] ?? "none")" } ?? "")")
        #expect(answered.count > calls / 2, "\(answered.count) answered changes")
        print("\(calls) region changes, \(kills) SIGKILLs, \(user.count) plants left, \(seqs.count) events")
    }
}
