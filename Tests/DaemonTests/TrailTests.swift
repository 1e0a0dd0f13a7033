import Foundation
import Geo
import IntegrationSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension Daemon {
    /// A trail followed by the walk through a real gpsd, the daemon SIGKILLed at three random
    /// points and started again each time, while `treeline subscribe --since 0 --kinds trail`
    /// runs throughout: the trail's events arrive in the order the walk makes them, each once,
    /// and `treeline trails` ends with the trail completed.
    ///
    /// The walk enters ref-encosta, album-miradouro, plant-medronheiro, plant-carvalho,
    /// plant-sobreiro (passing through it between two fixes), ref-vale, then album-ribeira while
    /// still inside ref-vale. The trail asks for album-miradouro, plant-carvalho, plant-sobreiro,
    /// album-ribeira, ref-vale: ref-vale comes before album-ribeira, out of order; once
    /// album-ribeira is reached, the walker is inside ref-vale, so it is reached at once.
    @Test func aTrailFollowedByTheWalkGivesItsEventsOnceAcrossKills() async throws {
        let checkpoints = ["album-miradouro:capture", "plant-carvalho:water", "plant-sobreiro:water", "album-ribeira", "ref-vale:plant"]
        let expected = [
            "trail_added album-miradouro", "trail_started album-miradouro #0",
            "checkpoint_reached album-miradouro #0", "checkpoint_reached plant-carvalho #1", "checkpoint_reached plant-sobreiro #2",
            "checkpoint_out_of_order ref-vale #4", "checkpoint_reached album-ribeira #3", "checkpoint_reached ref-vale #4",
            "trail_completed ref-vale",
        ]
        try await withGPSD(log: walk, linesPerTick: 4, tick: 0.008) { feeder, gpsd in
            // A few fixes first: a trail starts where the walker stands.
            feeder.pause(atLine: 60)
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try await daemon.start()
            let (c, _) = try daemon.client()
            try await waitFor(within: 30) { json(c.ask(#"{"cmd":"state"}"#))["last_fix"] is [String: Any] }
            let socket = ["--socket", daemon.socket]
            let early = try TreelineProcess.run(["trails", "start", "nope"] + socket)
            #expect(early.status != 0)
            let add = try TreelineProcess.run(["trails", "add", "walk", "--name", "The walk"] + checkpoints.flatMap { ["--checkpoint", $0] } + socket)
            #expect(add.status == 0, "\(add.stdout)")
            let start = try TreelineProcess.run(["trails", "start", "walk"] + socket)
            #expect(start.status == 0 && start.stdout.contains("album-miradouro"), "\(start.stdout)")
            let subscriber = try TreelineProcess(["subscribe", "--since", "0", "--kinds", "trail"] + socket)

            var rng = SystemRandomNumberGenerator()
            let points = (0..<3).map { _ in Int.random(in: feeder.count / 4...feeder.count * 9 / 10, using: &rng) }.sorted()
            print("killing treelined at lines \(points) of \(feeder.count)")
            feeder.resume()
            for point in points {
                try await waitFor(within: 60) { feeder.served >= point }
                try await killAndRestart(daemon, feeder: feeder)
            }
            try await waitFor(within: 60) { feeder.served >= feeder.count }
            let lines = await subscriber.lines(count: expected.count, idle: 5)
            let stderr = subscriber.interrupt()
            let events = lines.map { json($0) }
            let got = events.map { e in "\(e["type"] as? String ?? "?") \(e["region"] as? String ?? "?")" + ((e["index"] as? Int).map { " #\($0)" } ?? "") }
            #expect(got == expected, "subscriber's stderr: \(stderr)\nlog: \(daemon.logText.suffix(3000))")
            let seqs = events.compactMap { ($0["seq"] as? NSNumber)?.int64Value }
            #expect(seqs.count == events.count && seqs == seqs.sorted() && Set(seqs).count == seqs.count, "each once, in order: \(seqs)")

            // The completion: the time from the start to the last checkpoint, and a distance
            // at least the straight line between them.
            let started = try #require(events.first { $0["type"] as? String == "trail_started" })
            let done = try #require(events.last)
            let t0 = try #require(UTCTime(iso8601: started["time"] as? String ?? "")), t1 = try #require(UTCTime(iso8601: done["time"] as? String ?? ""))
            #expect(abs((done["took_s"] as? Double ?? -1) - Double(t1.nanoseconds - t0.nanoseconds) / 1e9) < 0.06)
            let a = Coordinate(latitude: started["lat"] as? Double ?? 0, longitude: started["lon"] as? Double ?? 0)
            let b = Coordinate(latitude: done["lat"] as? Double ?? 0, longitude: done["lon"] as? Double ?? 0)
            let walked = done["walked_m"] as? Double ?? 0
            #expect(walked >= Geodesic.wgs84.distance(a, b) && walked < 5_000, "walked \(walked) m")
            #expect(done["out_of_order"] as? Int == 1)
            print("trail completed: \(done["took_s"] ?? "?") s, \(walked) m walked, across \(points.count) kills")

            // After a restart the last fix is from before it: a trail does not start there.
            #expect(try TreelineProcess.run(["trails", "add", "again", "--checkpoint", "plant-carvalho"] + socket).status == 0)
            feeder.pause()
            #expect(daemon.terminate()?.status == 0)
            try await daemon.start()
            let stale = try treeline(["trails", "start", "again"] + socket)
            #expect(stale.status != 0 && stale.stderr.contains("no fix since treelined started"), "\(stale.stderr)")

            let trails = try TreelineProcess.run(["trails", "--json"] + socket)
            let reply = json(trails.stdout)
            #expect(reply["active"] is NSNull, "\(trails.stdout)")
            let walkTrail = (reply["trails"] as? [[String: Any]])?.first
            #expect(walkTrail?["completed"] as? String == done["time"] as? String)
            let table = try TreelineProcess.run(["trails"] + socket)
            #expect(table.stdout.contains("completed") && table.stdout.contains("album-miradouro:capture → plant-carvalho:water"), "\(table.stdout)")
        }
    }

    /// `treeline round` on the sample's plants from a point: the shortest order (three stops,
    /// checked against every order here), saved as a trail whose checkpoints are that order.
    @Test func aRoundIsTheShortestOrderAndSavesAsATrail() async throws {
        try await withGPSD(log: walk) { _, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try await daemon.start()
            let socket = ["--socket", daemon.socket]
            let at = "38.7075,-9.1340"
            let r = try TreelineProcess.run(["round", "--kind", "plant", "--at", at, "--json"] + socket)
            #expect(r.status == 0, "\(r.stdout)")
            let reply = json(r.stdout)
            let legs = reply["legs"] as? [[String: Any]] ?? []
            let order = legs.compactMap { $0["region"] as? String }
            #expect(Set(order) == ["plant-carvalho", "plant-medronheiro", "plant-sobreiro"])
            // Every order of the three, measured here.
            let centres = Dictionary(uniqueKeysWithValues: legs.compactMap { l -> (String, Coordinate)? in
                guard let id = l["region"] as? String, let p = l["at"] as? [Double] else { return nil }
                return (id, Coordinate(latitude: p[0], longitude: p[1]))
            })
            let start = Coordinate(latitude: 38.7075, longitude: -9.1340)
            func length(_ o: [String]) -> Double {
                var here = start, total = 0.0
                for id in o { total += Geodesic.wgs84.distance(here, centres[id]!); here = centres[id]! }
                return total
            }
            let ids = Array(centres.keys)
            let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]].map { $0.map { ids[$0] } }
            let best = orders.map(length).min()!
            #expect(abs((reply["length_m"] as? Double ?? 0) - best) < 0.06 && abs(length(order) - best) < 1e-6)

            let saved = try TreelineProcess.run(["round", "--kind", "plant", "--at", at, "--save-as", "watering", "--name", "Watering"] + socket)
            #expect(saved.status == 0 && saved.stdout.contains("saved as trail 'watering' (3 checkpoints)"), "\(saved.stdout)")
            let trails = json(try TreelineProcess.run(["trails", "--json"] + socket).stdout)["trails"] as? [[String: Any]] ?? []
            let checkpoints = (trails.first?["checkpoints"] as? [[String: Any]] ?? []).map { "\($0["region"] ?? ""):\($0["action"] ?? "")" }
            #expect(checkpoints == order.map { "\($0):water" })
            let refused = try TreelineProcess.run(["round", "--regions", "plant-carvalho,nope"] + socket)
            #expect(refused.status != 0)
            // Saved from regions of several kinds: each checkpoint with what its region is for.
            let mixed = try treeline(["round", "--regions", "plant-carvalho,album-ribeira,ref-vale", "--save-as", "mixed"] + socket)
            #expect(mixed.status == 0, "\(mixed.stderr)")
            let all = json(try TreelineProcess.run(["trails", "--json"] + socket).stdout)["trails"] as? [[String: Any]] ?? []
            let actions = Dictionary(uniqueKeysWithValues: ((all.last?["checkpoints"] as? [[String: Any]]) ?? []).map { ($0["region"] as? String ?? "", $0["action"] as? String ?? "") })
            #expect(actions == ["plant-carvalho": "water", "album-ribeira": "capture", "ref-vale": "plant"], "\(all)")
            // A region of the trail under way cannot be removed: its id never comes back, and the
            // trail could not be completed. Once the trail is stopped, it can.
            let (c, _) = try daemon.client()
            try await waitFor(within: 30) { json(c.ask(#"{"cmd":"state"}"#))["last_fix"] is [String: Any] }
            #expect(json(c.ask(#"{"cmd":"add_region","kind":"plant","id":"fig","name":"Fig","interval_days":3,"at":[38.71,-9.13]}"#))["type"] as? String == "region_added")
            #expect(json(c.ask(#"{"cmd":"add_trail","trail":"figs","checkpoints":["plant-carvalho","fig"]}"#))["type"] as? String == "trail_added")
            #expect(json(c.ask(#"{"cmd":"start_trail","trail":"figs"}"#))["type"] as? String == "trail_started")
            let kept = json(c.ask(#"{"cmd":"remove_region","region":"fig"}"#))
            #expect(kept["message"] as? String == "trail 'figs', under way, passes through 'fig': stop it first (stop_trail)", "\(kept)")
            #expect(json(c.ask(#"{"cmd":"stop_trail"}"#))["type"] as? String == "trail_stopped")
            #expect(json(c.ask(#"{"cmd":"remove_region","region":"fig"}"#))["type"] as? String == "region_removed")
            let missing = (json(c.ask(#"{"cmd":"trails"}"#))["trails"] as? [[String: Any]] ?? []).first { $0["id"] as? String == "figs" }
            #expect(missing?["missing"] as? [String] == ["fig"])
            // An id may hold ':': what follows the last one is an action only if it is one.
            let colon = try treeline(["trails", "add", "colons", "--checkpoint", "urn:oak", "--checkpoint", "plant-carvalho", "--checkpoint", "urn:oak:water"] + socket)
            #expect(colon.stderr.contains("no region 'urn:oak' is in force"), "\(colon.stderr)")
        }
    }

    /// Two long rounds sent at once (200 stops each: seconds in this debug build) compute one
    /// after the other through the engine's gate for heavy reads, so a thread stays free: all
    /// the while `state` is answered within a second. Without the gate both of the pool's
    /// threads (2 cores) would compute rounds and `state` would wait for them.
    @Test func longRoundsLeaveTheDaemonAnswering() async throws {
        let daemon = try DaemonProcess(gpsdPort: NMEAFeeder.freePort(), regions: sampleRegions)
        defer { daemon.finish() }
        try await daemon.start()
        var random = SystemRandomNumberGenerator()
        let points = (0..<200).map { _ in "[\(38.70 + Double.random(in: 0..<0.018, using: &random)),\(-9.15 + Double.random(in: 0..<0.023, using: &random))]" }
        let round = #"{"cmd":"round","at":[38.7,-9.15],"points":["# + points.joined(separator: ",") + "]}"
        let clients = try (0..<2).map { _ in try daemon.client().0 }
        let started = Date()
        for c in clients { c.send(round + "\n") }
        let (probe, _) = try daemon.client()
        var slowest = 0.0, asked = 0
        var answers: [String] = []
        while answers.count < clients.count, Date().timeIntervalSince(started) < 300 {
            let t0 = Date()
            #expect(json(probe.ask(#"{"cmd":"state"}"#))["class"] as? String == "STATE")
            slowest = max(slowest, Date().timeIntervalSince(t0))
            asked += 1
            for c in clients where answers.count < clients.count { if let line = c.line(timeout: 0.1) { answers.append(line) } }
        }
        #expect(answers.count == 2 && answers.allSatisfy { json($0)["class"] as? String == "ROUND" }, "\(answers.map { $0.prefix(200) })")
        #expect(slowest < 1, "state waited \(slowest) s while two rounds computed")
        print("two rounds of 200 stops: \(Date().timeIntervalSince(started)) s; \(asked) state requests meanwhile, the slowest answered in \(slowest) s")
    }
}

