import Foundation
import Geo
import IntegrationSupport
import Loading
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension Daemon {
    /// The daemon SIGKILLed at 10 random points of the walk and started again each time, while
    /// `treeline subscribe --since 0` runs throughout: it ends with exactly replay's events, each
    /// once, in order, numbered 1… without a gap.
    ///
    /// gpsd keeps nothing for a client that is gone, so the fixes of the dead time would be lost
    /// to any client; the feeder stands in for a receiver whose last 200 lines are offered again
    /// after each restart (paused meanwhile). The daemon must drop what it had already used (by
    /// time, from its stored state) and make up nothing: no enter again, no seq again.
    @Test func killedTenTimesItLosesAndRepeatsNothing() async throws {
        let expected = try replayed(walk, regions: sampleRegions)
        try await withGPSD(log: walk, linesPerTick: 4, tick: 0.008) { feeder, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try await daemon.start()
            let subscriber = try TreelineProcess(["subscribe", "--since", "0", "--socket", daemon.socket])
            var rng = SystemRandomNumberGenerator()
            let points = (0..<10).map { _ in Int.random(in: feeder.count / 20...feeder.count * 19 / 20, using: &rng) }.sorted()
            print("killing treelined at lines \(points) of \(feeder.count)")
            for point in points {
                try await waitFor(within: 60) { feeder.served >= point }
                try await killAndRestart(daemon, feeder: feeder)
            }
            try await waitFor(within: 60) { feeder.served >= feeder.count }
            let all = await subscriber.lines(count: Int(announcedSeqs) + expected.count + 1, idle: 5)
            let stderr = subscriber.interrupt()
            let lines = all.filter { !isRegionEvent($0) }
            #expect(all.count - lines.count == Int(announcedSeqs), "the files' regions announced once, at the first start")
            let got = lines.compactMap(withoutSeq)
            #expect(got.count == lines.count, "only EVENT lines: \(lines)")
            #expect(firstDifference(got.map(\.event), expected) == nil, "subscriber's stderr: \(stderr)\nlog: \(daemon.logText.suffix(3000))")
            #expect(got.map(\.seq) == seqs(expected.count))
            #expect(stderr.contains("reconnecting"), "the subscriber saw the restarts: \(stderr)")
        }
    }

    /// 100 subscribers, 10 of which never read: the 90 get every event, in order; each of the 10
    /// is cut off with a final `lagged` ERROR naming the last seq it was sent, and can resume from
    /// there. Prints the latency from the daemon receiving a fix to a client reading its event.
    @Test func ninetyReadersGetEverythingWhileTenStall() async throws {
        // A plant circle (4 m) on every third fix of the walk, due for watering: ~3 events each.
        var fixes: [Coordinate] = []
        _ = try LogFile(path: walk.path).replay { f in if let c = f.coordinate, f.mode >= .twoD { fixes.append(c) } }
        var features: [[String: Any]] = []
        for (k, c) in fixes.enumerated() where k % 3 == 0 {
            features.append(["type": "Feature",
                             "properties": ["id": "p\(k)", "kind": "plant", "name": "plant \(k)", "radius_m": 4,
                                            "interval_days": 1, "last_watered": "2000-01-01T00:00:00Z"],
                             "geometry": ["type": "Point", "coordinates": [c.longitude, c.latitude]]])
        }
        let announced = announcedSeqs  // the files' record, before any fix's event
        let regions = FileManager.default.temporaryDirectory.appendingPathComponent("treeline-plants-\(getpid()).geojson")
        try JSONSerialization.data(withJSONObject: ["type": "FeatureCollection", "features": features]).write(to: regions)
        defer { try? FileManager.default.removeItem(at: regions) }
        let monitor = "  hysteresis_m: 0.5\n  accuracy_factor: 0\n  dwell_s: 0\n"

        // About 4 lines an epoch: 50 epochs a second, 50 times a receiver's pace.
        try await withGPSD(log: walk, linesPerTick: 4, tick: 0.02) { feeder, gpsd in
            feeder.pause()
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: [regions], monitor: monitor, arguments: ["--queue-limit", "100"])
            defer { daemon.finish() }
            let expected = try replayed(walk, regions: [regions], monitor: ["--config", daemon.config.path])
            #expect(expected.count > 1000, "enough events to fill a stalled client's buffers: \(expected.count)")
            try await daemon.start()

            let stalled = try (0..<10).map { _ in
                let (c, _) = try daemon.client()
                c.send(#"{"cmd":"subscribe"}"# + "\n")
                return c
            }
            let results = Mutex<[[(seq: Int64, event: String, latency: Double)]]>(Array(repeating: [], count: 90))
            let ready = Atomic<Int>(0)
            let threads = (0..<90).map { k in
                let t = Thread {
                    guard let (c, _) = try? daemon.client() else { return }
                    _ = c.ask(#"{"cmd":"subscribe","timing":true}"#)
                    ready.add(1, ordering: .relaxed)
                    var mine: [(Int64, String, Double)] = []
                    while mine.count < expected.count, let line = c.line(timeout: 30) {
                        let now = Double(monotonicNanos())
                        guard let (seq, event) = withoutSeq(line) else { continue }
                        let received = line.range(of: #""received_ns":"#).flatMap { r in
                            Double(line[r.upperBound...].prefix { $0.isNumber })
                        } ?? .nan
                        mine.append((seq, event, (now - received) / 1e6))
                    }
                    results.withLock { $0[k] = mine.map { (seq: $0.0, event: $0.1, latency: $0.2) } }
                }
                t.start()
                return t
            }
            try await waitFor(within: 20) { ready.load(ordering: .relaxed) == 90 }
            feeder.resume()
            try await waitFor(within: 120) { results.withLock { $0.allSatisfy { $0.count == expected.count } } }
            _ = threads
            let all = results.withLock { $0 }
            for (k, r) in all.enumerated() {
                let difference = firstDifference(r.map(\.event), expected)
                #expect(difference == nil, "reader \(k): \(difference ?? "")")
                #expect(r.map(\.seq) == seqs(r.count, after: announced), "reader \(k): seqs \(r.first?.seq ?? -1)…\(r.last?.seq ?? -1)")
            }
            let latencies = all.flatMap { $0.map(\.latency) }.filter(\.isFinite).sorted()
            if !latencies.isEmpty {
                let p = { (q: Double) in latencies[min(latencies.count - 1, Int(q * Double(latencies.count)))] }
                let commit = json(try daemon.client().0.ask(#"{"cmd":"state"}"#))["commit_ms"] as? [String: Any] ?? [:]
                print(String(format: "fix received → event read, %d events × 90 readers (10 stalled): p50 %.2f ms, p99 %.2f ms, max %.2f ms; the daemon's commits: mean %.2f ms, max %.2f ms",
                             expected.count, p(0.5), p(0.99), latencies.last!,
                             (commit["mean"] as? NSNumber)?.doubleValue ?? .nan, (commit["max"] as? NSNumber)?.doubleValue ?? .nan))
            }
            // Each stalled client: consecutive events, then the lagged ERROR with the last seq.
            for c in stalled {
                var seqs: [Int64] = []
                var last: [String: Any] = [:]
                while let line = c.line(timeout: 2) {
                    if let (seq, _) = withoutSeq(line) { seqs.append(seq) } else { last = json(line) }
                }
                #expect(last["class"] as? String == "ERROR" && last["lagged"] as? Bool == true, "\(last)")
                #expect((last["seq"] as? NSNumber)?.int64Value == seqs.last, "\(last) after \(seqs.last ?? -1)")
                #expect(seqs.isEmpty || seqs == Array(seqs[0]...(seqs[0] + Int64(seqs.count) - 1)), "no gap before the cut")
                #expect(seqs.count < expected.count)
            }
            // And resuming from the ERROR's seq gives the rest.
            let (r, _) = try daemon.client()
            _ = r.ask(#"{"cmd":"subscribe","since":\#(announced + Int64(expected.count) - 5)}"#)
            #expect((0..<5).compactMap { _ in withoutSeq(r.line() ?? "")?.seq } == Array((announced + Int64(expected.count) - 4)...(announced + Int64(expected.count))))
            #expect(json(try daemon.client().0.ask(#"{"cmd":"state"}"#))["class"] as? String == "STATE")
        }
    }
}

func monotonicNanos() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}
