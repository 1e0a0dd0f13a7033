import Foundation
import IntegrationSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension Daemon {
    /// 200 `add_region` / `remove_region` calls while the daemon is SIGKILLed at random moments:
    /// after each restart every answered change is there, an unanswered one is wholly there
    /// (region and event) or wholly absent, and no seq is given twice.
    @Test func killedDuringTwoHundredRegionChangesItKeepsEveryAnsweredOne() async throws {
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
        while k < 200 {
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
            if Int.random(in: 0..<20, using: &rng) == 0 {
                let delay = UInt32.random(in: 0...3_000, using: &rng)
                let pid = daemon.pid ?? 0
                killer = Thread { usleep(delay); kill(pid, SIGKILL) }
                killer?.start()
            } else {
                killer = nil
            }
            let reply = client.ask(request, timeout: 5).map { json($0) }
            if let killer { while !killer.isFinished { usleep(500) } }
            killedLast = killer != nil
            if let reply, reply["class"] as? String == "EVENT" {
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
        // read from seq 0, rebuild it with every seq once.
        let (c, _) = try daemon.client()
        let regions = json(c.ask(#"{"cmd":"regions"}"#))["regions"] as? [[String: Any]] ?? []
        let user = Set(regions.filter { $0["layer"] as? String == "user" }.compactMap { $0["id"] as? String })
        #expect(user == present, "in force: \(user.symmetricDifference(present))")
        _ = c.ask(#"{"cmd":"subscribe","since":0}"#)
        var seqs: [Int64] = []
        var rebuilt = Set<String>()
        while let line = c.line(timeout: 2) {
            let e = json(line)
            guard let seq = (e["seq"] as? NSNumber)?.int64Value, let id = e["region"] as? String else { continue }
            seqs.append(seq)
            if e["layer"] as? String == "user" {
                if e["type"] as? String == "region_added" {
                    #expect(!rebuilt.contains(id), "\(id) added twice")
                    rebuilt.insert(id)
                }
                if e["type"] as? String == "region_removed" { rebuilt.remove(id) }
            }
        }
        #expect(Set(seqs).count == seqs.count && seqs == seqs.sorted(), "every seq once, in order")
        #expect(rebuilt == user, "the journal and the regions agree: \(rebuilt.symmetricDifference(user))")
        print("200 region changes, \(kills) SIGKILLs, \(user.count) plants left, \(seqs.count) events")
    }
}
