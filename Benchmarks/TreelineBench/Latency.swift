import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What the reader thread fills in while the main thread feeds: the send time of each epoch
/// (written before the reader can see its line), the latencies, and the stop flag.
final class LatencySamples: @unchecked Sendable {
    let sent: UnsafeMutableBufferPointer<Double>
    let done = Atomic<Bool>(false)
    /// Each subscriber line: its epoch and its latency (the reader thread's alone until done).
    var daemon: [(epoch: Int, seconds: Double)] = []
    var gpsd: [Double] = []
    /// When the daemon said READY=1 (sd_notify), read by the notify thread.
    let readies = Mutex<[Double]>([])

    init(epochs: Int) {
        sent = .allocate(capacity: epochs)
        sent.initialize(repeating: .nan)
    }

    deinit { sent.deallocate() }
}

/// `treeline-bench latency`: how long a fix takes from the receiver to the daemon's subscribers.
///
/// The bench is the receiver: it serves NMEA epochs (RMC, GGA, GSA; standing still, so every fix
/// is used) on a TCP port to Debian's gpsd, which the built `treelined` watches. N subscribers on
/// the daemon's Unix socket ask for `"positions":true` and one thread reads them all with poll():
/// each POSITION line is timed against the moment its epoch's last sentence was written. A plain
/// gpsd client beside them times gpsd's TPV the same way: gpsd's share of the whole. The
/// database is in `dir` (default /dev/shm, a tmpfs; give a disk folder for the other figure).
struct LatencyBench {
    var subscribers: Int
    var epochs: Int
    var rate: Int
    var dir: String
    /// The daemon's regions file (default: one album far away); the epochs are at 38.70 N 9.14 W,
    /// the centre of `gen_fences.py`'s fences.
    var regions: String?
    /// Seconds between SIGHUPs (0: none): the daemon reloads `regions` while fixes flow.
    var reloadEvery: Int
    /// Whether each epoch ends with a GST, as survey receivers send (the daemon sends a fix when
    /// its error estimate has come); without, as consumer ones, it learns the stream has none.
    var gst: Bool

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }

    static func listenLocal() -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        a.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        listen(fd, 4)
        _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return (fd, Int(UInt16(bigEndian: a.sin_port)))
    }

    static func connectTCP(_ port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        a.sin_port = UInt16(port).bigEndian
        let r = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        if r != 0 { close(fd); return -1 }
        return fd
    }

    static func connectUnix(_ path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var a = sockaddr_un()
        a.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &a.sun_path) { buf in
            for (i, b) in path.utf8.prefix(buf.count - 1).enumerated() { buf[i] = b }
        }
        let r = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        if r != 0 { close(fd); return -1 }
        return fd
    }

    static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    static func sentence(_ body: String) -> String {
        var c: UInt8 = 0
        for b in body.utf8 { c ^= b }
        let hex = String(c, radix: 16, uppercase: true)
        return "$\(body)*\(hex.count == 1 ? "0" + hex : hex)\r\n"
    }

    /// Epoch `k`: 09:00:00 plus k/rate seconds, standing at 38.70 N 9.14 W.
    func epoch(_ k: Int) -> String {
        let centis = 9 * 360_000 + k * 100 / rate
        let hh = centis / 360_000, mm = centis / 6000 % 60, ss = centis / 100 % 60, cc = centis % 100
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let t = "\(two(hh))\(two(mm))\(two(ss)).\(two(cc))"
        return Self.sentence("GPRMC,\(t),A,3842.00000,N,00908.40000,W,0.000,0.00,150526,,,A")
            + Self.sentence("GPGGA,\(t),3842.00000,N,00908.40000,W,1,11,0.90,50.0,M,50.9,M,,")
            + Self.sentence("GPGSA,A,3,02,05,07,09,13,15,18,20,24,27,29,,1.40,0.90,1.10")
            + (gst ? Self.sentence("GPGST,\(t),1.2,0.9,0.7,35.0,0.8,0.6,1.5") : "")
    }

    /// The epoch a line's `"time":"…THH:MM:SS.fffZ"` names, or nil.
    func epochIndex(_ line: Substring) -> Int? {
        guard let r = line.range(of: "T09:") ?? line.range(of: "T10:") ?? line.range(of: "T11:") else { return nil }
        let s = line[r.lowerBound...].dropFirst()
        let parts = s.prefix(12).split(separator: ":")
        guard parts.count == 3, let h = Int(parts[0]), let m = Int(parts[1]), let sec = Double(parts[2].prefix(6)) else { return nil }
        let seconds = Double((h - 9) * 3600 + m * 60) + sec
        return Int((seconds * Double(rate)).rounded())
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    /// Epochs not counted: gpsd learns the receiver's cycle and the daemon the stream's.
    var warmup: Int { min(10, epochs / 10) }

    func run() {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let treelined = products.appendingPathComponent("treelined").path
        guard FileManager.default.isExecutableFile(atPath: products.appendingPathComponent("treeline").path) else {
            fail("no treeline beside treeline-bench: swift build -c release")
        }
        // treelined is treeline started under that name: a link beside it, as installed.
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: treelined)) != "treeline" {
            try? FileManager.default.removeItem(atPath: treelined)
            do { try FileManager.default.createSymbolicLink(atPath: treelined, withDestinationPath: "treeline") } catch {
                fail("cannot link \(treelined) to treeline: \(error)")
            }
        }
        let folder = "\(dir)/treeline-latency-\(getpid())"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let feed = Self.listenLocal()
        let gpsdPort = Self.listenLocal()
        close(gpsdPort.fd)  // a free port for gpsd
        let gpsd = Process()
        gpsd.executableURL = URL(fileURLWithPath: "/usr/sbin/gpsd")
        gpsd.arguments = ["-N", "-b", "-S", String(gpsdPort.port), "tcp://127.0.0.1:\(feed.port)"]
        var env = ProcessInfo.processInfo.environment
        env["GPSD_SHM_KEY"] = String(format: "0x%08x", 0x4750_0000 + Int(getpid() & 0xFFFF))
        gpsd.environment = env
        gpsd.standardOutput = FileHandle.nullDevice
        gpsd.standardError = FileHandle.nullDevice
        do { try gpsd.run() } catch { fail("cannot start /usr/sbin/gpsd (apt-get install gpsd): \(error)") }
        defer { gpsd.terminate(); gpsd.waitUntilExit() }

        // By default a region far away: the monitor runs, nothing happens but positions.
        let regions = self.regions ?? "\(folder)/regions.geojson"
        if self.regions == nil {
            try? Data(#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"id":"album-far","kind":"album","radius_m":50},"geometry":{"type":"Point","coordinates":[-9.0,38.0]}}]}"#.utf8)
                .write(to: URL(fileURLWithPath: regions))
        }
        let socketPath = "\(folder)/treeline.sock"
        let config = """
        gpsd:
          host: 127.0.0.1
          port: \(gpsdPort.port)
        regions:
          - \(regions)
        socket: \(socketPath)
        database: \(folder)/treeline.sqlite
        journal:
          keep_days: 36500
        track:
          keep_days: 36500

        """
        try? Data(config.utf8).write(to: URL(fileURLWithPath: "\(folder)/treeline.yaml"))
        Thread.sleep(forTimeInterval: 0.3)
        let samples = LatencySamples(epochs: epochs)

        // The daemon says READY=1 on this datagram socket once started and after each reload.
        let notifyPath = "\(folder)/notify.sock"
        let notify = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var na = sockaddr_un()
        na.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &na.sun_path) { buf in
            for (i, b) in notifyPath.utf8.prefix(buf.count - 1).enumerated() { buf[i] = b }
        }
        _ = withUnsafePointer(to: &na) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(notify, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        let notifier = Thread {
            var p = pollfd(fd: notify, events: Int16(POLLIN), revents: 0)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !samples.done.load(ordering: .acquiring) {
                guard poll(&p, 1, 100) > 0 else { continue }
                let n = buffer.withUnsafeMutableBytes { recv(notify, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { continue }
                let text = String(decoding: buffer[0..<n], as: UTF8.self)
                if text.split(separator: "\n").contains("READY=1") {
                    let at = Self.now()
                    samples.readies.withLock { $0.append(at) }
                }
            }
        }
        notifier.start()
        defer { close(notify) }

        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: treelined)
        daemon.arguments = ["--config", "\(folder)/treeline.yaml", "--log-level", "warning"]
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        var denv = ProcessInfo.processInfo.environment
        denv["NOTIFY_SOCKET"] = notifyPath
        daemon.environment = denv
        do { try daemon.run() } catch { fail("cannot start \(treelined): \(error)") }
        defer { kill(daemon.processIdentifier, SIGKILL); daemon.waitUntilExit() }

        // Subscribers, once the daemon is ready (it may have many regions to load and journal).
        let start = Self.now()
        while samples.readies.withLock({ $0.isEmpty }) {
            guard daemon.isRunning, Self.now() - start < 600 else { fail("treelined did not say READY=1 within 600 s (or ended)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let startup = Self.now() - start
        var fds: [Int32] = []
        while fds.count < subscribers && Self.now() - start < startup + 20 {
            let fd = Self.connectUnix(socketPath)
            if fd < 0 { Thread.sleep(forTimeInterval: 0.05); continue }
            Self.send(fd, #"{"cmd":"subscribe","positions":true}"# + "\n")
            fds.append(fd)
        }
        guard fds.count == subscribers else { fail("only \(fds.count) of \(subscribers) subscribers connected to \(socketPath)") }
        // gpsd's own client: its TPV times gpsd's share.
        let watcher = Self.connectTCP(gpsdPort.port)
        Self.send(watcher, #"?WATCH={"enable":true,"json":true};"# + "\n")
        Thread.sleep(forTimeInterval: 0.5)

        // gpsd opens the feed at the first WATCH.
        let receiver = accept(feed.fd, nil, nil)
        guard receiver >= 0 else { fail("gpsd never opened the feed") }

        // The readers: every subscriber and gpsd's client in one poll loop.
        let all = fds + [watcher]
        let reader = Thread {
            var polls = all.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            var pending = [[UInt8]](repeating: [], count: all.count)
            var buffer = [UInt8](repeating: 0, count: 65536)
            // gpsd reports an epoch again while it learns the cycle: the first line counts.
            var seen = [[Bool]](repeating: [Bool](repeating: false, count: epochs), count: all.count)
            while !samples.done.load(ordering: .acquiring) {
                guard poll(&polls, nfds_t(polls.count), 100) > 0 else { continue }
                let at = Self.now()
                for i in polls.indices where polls[i].revents & Int16(POLLIN) != 0 {
                    let n = buffer.withUnsafeMutableBytes { recv(polls[i].fd, $0.baseAddress, $0.count, 0) }
                    guard n > 0 else { polls[i].fd = -1; continue }
                    pending[i].append(contentsOf: buffer[0..<n])
                    while let nl = pending[i].firstIndex(of: 0x0A) {
                        let line = String(decoding: pending[i][..<nl], as: UTF8.self)
                        pending[i].removeSubrange(...nl)
                        let isGPSD = i == all.count - 1
                        guard line.contains(isGPSD ? "\"class\":\"TPV\"" : "\"class\":\"POSITION\""), let k = epochIndex(line[...]),
                              k >= warmup, k < epochs, !seen[i][k] else { continue }
                        seen[i][k] = true
                        let s = samples.sent[k]
                        guard s.isFinite else { continue }
                        if isGPSD { samples.gpsd.append(at - s) } else { samples.daemon.append((k, at - s)) }
                    }
                }
            }
        }
        reader.start()

        // The receiver: an epoch every 1/rate s; a SIGHUP every `reloadEvery` s after the warm-up.
        let period = 1.0 / Double(rate)
        let t0 = Self.now()
        var hups: [Double] = []
        for k in 0..<epochs {
            let due = t0 + Double(k) * period
            let wait = due - Self.now()
            if wait > 0 { usleep(UInt32(wait * 1e6)) }
            if reloadEvery > 0, k > warmup, (k - warmup) % (reloadEvery * rate) == 0 {
                hups.append(Self.now())
                kill(daemon.processIdentifier, SIGHUP)
            }
            let text = epoch(k)
            samples.sent[k] = Self.now()
            Self.send(receiver, text)
        }
        // The last reload's READY, then a second for the last lines.
        let fed = Self.now()
        while let last = hups.last, !samples.readies.withLock({ $0.contains { $0 > last } }), Self.now() - fed < 600 {
            Thread.sleep(forTimeInterval: 0.05)
        }
        Thread.sleep(forTimeInterval: 1.0)
        samples.done.store(true, ordering: .releasing)
        Thread.sleep(forTimeInterval: 0.3)
        for fd in all { close(fd) }
        close(receiver)
        close(feed.fd)

        func line(_ name: String, _ values: [Double], expected: Int) -> String {
            let s = values.sorted().map { $0 * 1000 }
            func f(_ v: Double) -> String { String(format: "%.2f", v) }
            return "\(name): \(values.count) of \(expected) lines; p50 \(f(Self.percentile(s, 0.5))) ms, p99 \(f(Self.percentile(s, 0.99))) ms, max \(f(s.last ?? .nan)) ms"
        }
        print("database in \(dir), \(subscribers) subscribers, \(epochs) epochs at \(rate) Hz \(gst ? "with" : "without") GST, the first \(warmup) not counted")
        print("regions \(self.regions ?? "(one far away)"): treelined ready in \(String(format: "%.1f", startup)) s")
        print(line("gpsd → its client (TPV)", samples.gpsd, expected: epochs - warmup))
        guard !hups.isEmpty else {
            print(line("receiver → subscriber (POSITION)", samples.daemon.map(\.seconds), expected: (epochs - warmup) * subscribers))
            return
        }
        // Each SIGHUP to the READY=1 that follows it: a reload. An epoch written meanwhile is one
        // during a reload.
        let readies = samples.readies.withLock { $0 }
        let reloads = hups.map { h in (h, readies.first { $0 > h } ?? .infinity) }
        let during = Set((warmup..<epochs).filter { k in reloads.contains { samples.sent[k] >= $0.0 && samples.sent[k] <= $0.1 } })
        let took = reloads.map { String(format: "%.2f", $0.1 - $0.0) }.joined(separator: ", ")
        print("\(reloads.count) reloads (SIGHUP → READY=1), s: \(took)")
        let quiet = samples.daemon.filter { !during.contains($0.epoch) }.map(\.seconds)
        let busy = samples.daemon.filter { during.contains($0.epoch) }.map(\.seconds)
        print(line("receiver → subscriber, no reload", quiet, expected: (epochs - warmup - during.count) * subscribers))
        print(line("receiver → subscriber, during a reload", busy, expected: during.count * subscribers))
        let ratio = Self.percentile(busy.sorted(), 0.99) / Self.percentile(quiet.sorted(), 0.99)
        print("p99 during a reload ÷ without: \(String(format: "%.2f", ratio))")
    }
}
