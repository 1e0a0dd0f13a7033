import Foundation
import IntegrationSupport
import Geo
import GPSD
import Loading
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The gpsd client against a real gpsd (Debian's 3.22), fed NMEA logs by `NMEAFeeder`. One at a
/// time: each test starts and kills processes of its own.
@Suite(.serialized) struct GPSDIntegration {
    static let walk = repository.appendingPathComponent("Data/walk.nmea")
    static let corpus = repository.appendingPathComponent("Tests/ConformanceTests/gpsd-3.22")

    /// Fixes from replaying `log`, as `treeline replay --fixes` prints them.
    static func replayed(_ log: URL) throws -> [Fix] {
        var fixes: [Fix] = []
        _ = try LogFile(path: log.path).replay { fixes.append($0) }
        return fixes
    }

    /// Reads fixes until nothing has come for `idle` seconds after the first (which may take up to
    /// 20 s: connecting, gpsd opening its source, on a loaded machine).
    static func fixes(from client: GPSDClient, idle: Double) async -> [Fix] {
        let (box, reader) = Collected.reading(client)
        defer { reader.cancel() }
        var first = Patience()
        while box.fixes.isEmpty, first.waited <= 20 { await first.nap(0.05) }
        var count = box.fixes.count
        var quiet = Patience()
        while quiet.waited <= idle {
            await quiet.nap(0.05)
            if box.fixes.count != count { (count, quiet) = (box.fixes.count, Patience()) }
        }
        return box.fixes
    }

    /// The walk, and corpus logs of other receivers (u-blox F9P, Quectel, SiRF V, SkyTraq, NL-551E,
    /// and one from the April 2019 week rollover).
    @Test(arguments: ["walk.nmea", "ublox-zed-f9p-nmea.log", "quectelLC79D-1.log", "sirfstarv-nmea.log", "skytraq-fix.log",
                      "nl551e.log", "april6_2019.log"])
    func fixesEqualReplay(log name: String) async throws {
        let log = name == "walk.nmea" ? Self.walk : Self.corpus.appendingPathComponent(name)
        let expected = try Self.replayed(log)
        let dated = expected.filter { $0.time != nil }
        try await withGPSD(log: log) { _, gpsd in
            let client = GPSDClient(port: gpsd.port, silence: 30)
            // Read until the feed has been quiet for 3 s. What is compared is what the client
            // gives (and `watch --fixes` prints): gpsd's repeats of an epoch must not show.
            let live = await Self.fixes(from: client, idle: 3).filter { $0.time != nil }
            // Same count, times and positions. The walk gives every fix (also the outage's
            // no-fix epochs); the corpus logs are compared on their positions, as gpsd's own
            // regression files are.
            let want = name == "walk.nmea" ? dated : dated.filter(\.hasPosition)
            let have = name == "walk.nmea" ? live : live.filter(\.hasPosition)
            #expect(have.count == want.count, "\(name): \(have.count) live fixes, \(want.count) replayed")
            var mismatches: [String] = []
            for (a, b) in zip(have, want) {
                // gpsd 3.22 moves dates before 2017 forward by 1024 weeks (its own .chk files show it); Treeline does not.
                let shift: Int64 = 619_315_200 * 1_000_000_000
                let sameTime = a.time == b.time || a.time.map { t in b.time.map { t.nanoseconds - $0.nanoseconds == shift } ?? false } ?? false
                let same = sameTime && a.mode == b.mode
                    && a.coordinate.map { c in b.coordinate.map { abs(c.latitude - $0.latitude) < 1e-9 && abs(c.longitude - $0.longitude) < 1e-9 } ?? false } ?? (b.coordinate == nil)
                    if !same { mismatches.append("live \(a.time?.iso8601 ?? "-") \(a.coordinate.map { "\($0)" } ?? "-") replay \(b.time?.iso8601 ?? "-") \(b.coordinate.map { "\($0)" } ?? "-")") }
            }
            #expect(mismatches.isEmpty, "\(name): \(mismatches.count) differ, first: \(mismatches.first ?? "")")
            // The error estimate comes from GST as in replay (whether gpsd sends it before or after
            // the TPV): the monitor sees the same margins.
            let errors = zip(have, want).filter { a, b in
                switch (a.horizontalError, b.horizontalError) {
                case (nil, nil): return false
                case let (x?, y?): return abs(x - y) > 1e-6
                default: return true
                }
            }
            #expect(errors.isEmpty, "\(name): \(errors.count) error estimates differ, first: \(errors.first.map { "\($0.0.horizontalError as Any) vs \($0.1.horizontalError as Any) at \($0.1.time?.iso8601 ?? "-")" } ?? "")")
        }
    }

    /// The last fix of a stream is printed: gpsd goes quiet when the feed ends, and Ctrl-C comes
    /// 1 s later. Logs without GST (a fix waits 0.25 s for one) from three receivers.
    @Test(arguments: ["nl551e.log", "sirfstarv-nmea.log", "quectelLC79D-1.log"])
    func watchPrintsTheLastFixBeforeCtrlC(log name: String) async throws {
        let log = Self.corpus.appendingPathComponent(name)
        // Compared on positions, as `fixesEqualReplay` compares corpus logs.
        let expected = try Self.replayed(log).filter { $0.time != nil && $0.hasPosition }
        try await withGPSD(log: log) { feeder, gpsd in
            let watch = try TreelineProcess(["watch", "--port", String(gpsd.port), "--fixes"])
            var waited = Patience()
            while feeder.served < feeder.count, waited.waited < 30 { await waited.nap(0.05) }
            try await Task.sleep(for: .seconds(1))
            let stderr = watch.interrupt()
            let lines = await watch.lines(count: Int.max, idle: 0)
            #expect(watch.status == 0, "stderr: \(stderr)")
            let times = lines.map { json($0) }.filter { $0["lat"] != nil }.compactMap { $0["time"] as? String }
            #expect(times.count == expected.count, "\(name): \(times.count) of replay's \(expected.count) fixes; stderr: \(stderr)")
            // gpsd 3.22 moves dates before 2017 forward by 1024 weeks: compare the time of day.
            #expect(times.last.map { String($0.suffix(13)) } == expected.last?.time.map { String($0.iso8601.suffix(13)) }, "\(name): the last fix")
        }
    }

    @Test func watchEventsEqualReplayEvents() async throws {
        let regions = ["--regions", repository.appendingPathComponent("Data/regions.geojson").path,
                       "--regions", repository.appendingPathComponent("Data/regions-pt-tm06.geojson").path]
        let replay = try TreelineProcess.run(["replay", Self.walk.path] + regions)
        let expected = replay.stdout.split(separator: "\n").map(String.init)
        #expect(expected.count == 28)
        try await withGPSD(log: Self.walk) { _, gpsd in
            let watch = try TreelineProcess(["watch", "--port", String(gpsd.port)] + regions)
            let lines = await watch.lines(count: expected.count, idle: 5)
            let stderr = watch.interrupt()
            #expect(lines == expected)
            #expect(watch.status == 0, "stderr: \(stderr)")
            #expect(stderr.contains("connected to gpsd at 127.0.0.1:\(gpsd.port)"))
            #expect(stderr.contains("events: capture_allowed 2"), "the summary after Ctrl-C: \(stderr)")
        }
    }

    /// gpsd killed mid-stream (SIGKILL) and started again on the same port, ten times: the client
    /// is back, with a fix, within 3 s each time, and the fixes go on from where they were.
    @Test func reconnectsWhenGpsdComesBack() async throws {
        try await withGPSD(log: Self.walk, linesPerTick: 4, tick: 0.02) { feeder, gpsd in
            let client = GPSDClient(port: gpsd.port, silence: 30)
            let (box, reader) = Collected.reading(client)
            defer { reader.cancel() }
            var delays: [Double] = []
            for _ in 0..<10 {
                try await box.waitForFixes(box.fixes.count + 5, within: 10)
                let lastTime = box.fixes.last?.time
                let disconnections = box.disconnections
                gpsd.kill()
                // The fix in hand comes out before the news of the disconnection: count from there.
                try await box.waitFor(within: 5) { box.disconnections > disconnections }
                let before = box.fixes.count
                let restarted = Date()
                try await gpsd.start()
                try await box.waitForFixes(before + 1, within: 10)
                delays.append(Date().timeIntervalSince(restarted))
                if let t = box.fixes[before].time, let lastTime { #expect(t > lastTime, "fixes go on after a restart") }
            }
            let sorted = delays.sorted()
            print("gpsd restart to first fix over \(delays.count) tries: median \(String(format: "%.3f", sorted[sorted.count / 2])) s, max \(String(format: "%.3f", sorted.last!)) s")
            #expect(sorted.last! < 3, "the client was back within \(sorted.last!) s at worst")
            #expect(box.statuses.filter { $0 == .connected("127.0.0.1:\(gpsd.port)") }.count == 11, "connected at start and after each restart: \(box.statuses)")
            #expect(feeder.served > 0)
        }
    }

    /// gpsd up but saying nothing (the receiver's log is over): after `silence` seconds the client
    /// takes it for gone, says why once, and keeps trying (backing off) without reporting each
    /// attempt. (That it does connect again is shown by `aHalfLineThenNothingIsSilence`, whose
    /// fake gpsd counts connections; a real gpsd reopens its source on a new WATCH only at times.)
    @Test func reconnectsWhenGpsdFallsSilent() async throws {
        try await withGPSD(log: Self.corpus.appendingPathComponent("nl551e.log")) { _, gpsd in
            let client = GPSDClient(port: gpsd.port, silence: 1)
            let (box, reader) = Collected.reading(client)
            defer { reader.cancel() }
            try await box.waitForFixes(10, within: 10)
            // 1 s of silence, then attempts every 0.1, 0.2, 0.4 … s, each silent again.
            try await Task.sleep(for: .seconds(4))
            let statuses = box.statuses
            let silences = statuses.filter { if case .disconnected(let why) = $0 { why.contains("silent for 1 s") } else { false } }
            #expect(silences.count == 1, "the silence is said once, not at every attempt: \(statuses)")
            #expect(statuses.last == silences.last, "no connected/silent pairs while nothing comes: \(statuses)")
        }
    }

    /// A peer that sends part of a line and then nothing (a hung gpsd, a stalled network): the
    /// reader must wait on the socket, not spin on libgps's buffer, and so notice the silence.
    @Test func aHalfLineThenNothingIsSilence() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("treeline-half-\(getpid()).txt")
        let version = #"{"class":"VERSION","release":"3.22","proto_major":3,"proto_minor":14}"#
        try Data((version + "\n" + #"{"class":"TPV","mode":1"#).utf8).write(to: log)
        defer { try? FileManager.default.removeItem(at: log) }
        // The feeder, standing in for gpsd, sends the one and a half lines and holds the line open.
        let fake = try NMEAFeeder(log: log, linesPerTick: 1, tick: 3, verbatim: true)
        defer { fake.stop() }
        let client = GPSDClient(port: fake.port, silence: 1)
        let (box, reader) = Collected.reading(client)
        defer { reader.cancel() }
        try await box.waitFor(within: 5) {
            box.statuses.contains { if case .disconnected(let why) = $0 { why.contains("silent for 1 s") } else { false } }
        }
        // And the client tries again: the fake is called a second time.
        try await box.waitFor(within: 15) { fake.connections >= 2 }
    }

    /// No gpsd at start: the client keeps trying (saying so once) and connects when it appears.
    @Test func waitsForAnAbsentGpsd() async throws {
        let feeder = try NMEAFeeder(log: Self.walk)
        let gpsd = GPSDProcess(feederPort: feeder.port)
        defer {
            gpsd.finish()
            feeder.stop()
        }
        let client = GPSDClient(port: gpsd.port, silence: 30)
        let (box, reader) = Collected.reading(client)
        defer { reader.cancel() }
        try await Task.sleep(for: .seconds(2))  // attempts at 0, 0.1, 0.3, 0.7, 1.5 s
        #expect(box.fixes.isEmpty)
        #expect(box.statuses.count == 1, "one status for all the failed attempts: \(box.statuses)")
        if case .disconnected(let why) = box.statuses.first {
            #expect(why.contains("cannot connect to gpsd at 127.0.0.1:\(gpsd.port)"))
        } else {
            Issue.record("expected a disconnected status first, got \(box.statuses)")
        }
        let started = Date()
        try await gpsd.start()
        try await box.waitForFixes(1, within: 10)
        // The next attempt comes at most 1.6 s after the start (the delay then doubles to 3.2 s).
        #expect(Date().timeIntervalSince(started) < 3.5)
        #expect(box.statuses.contains(.connected("127.0.0.1:\(gpsd.port)")))
    }
}

/// What a reader task collected, shared with the test.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var _fixes: [Fix] = []
    private var _statuses: [GPSDStatus] = []
    var fixes: [Fix] { lock.withLock { _fixes } }
    var statuses: [GPSDStatus] { lock.withLock { _statuses } }
    func append(_ f: Fix) { lock.withLock { _fixes.append(f) } }
    func append(_ s: GPSDStatus) { lock.withLock { _statuses.append(s) } }

    /// A collection filled from `client` by a task of its own (cancel it to stop the client).
    static func reading(_ client: GPSDClient) -> (Collected, Task<Void, Never>) {
        let box = Collected()
        let reader = Task {
            for await u in client.updates() {
                switch u {
                case .fix(let f): box.append(f)
                case .status(let s): box.append(s)
                }
            }
        }
        return (box, reader)
    }

    var disconnections: Int { statuses.filter { if case .disconnected = $0 { true } else { false } }.count }

    func waitFor(within seconds: Double, _ condition: () -> Bool) async throws {
        var patience = Patience()
        while !condition() {
            if patience.waited > seconds { throw POSIXError(.ETIMEDOUT, "not within \(seconds) s; statuses \(statuses)") }
            await patience.nap(0.01)
        }
    }

    func waitForFixes(_ n: Int, within seconds: Double) async throws {
        var patience = Patience()
        while fixes.count < n {
            if patience.waited > seconds { throw POSIXError(.ETIMEDOUT, "only \(fixes.count) of \(n) fixes within \(seconds) s; statuses \(statuses)") }
            await patience.nap(0.01)
        }
    }
}
