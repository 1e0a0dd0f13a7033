import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

public let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A stand-in for a receiver on a TCP port: serves an NMEA log to whoever connects (gpsd), a few
/// lines at a time, and hangs up at its end. It keeps its place across connections, so a gpsd
/// that is killed and started again reads on where the last one stopped, as from a receiver that
/// kept talking.
public final class NMEAFeeder: Sendable {
    public let port: Int
    private let listener: Int32
    private let state = State()

    final class State: Sendable {
        let stopped = Atomic<Bool>(false)
        let position = Atomic<Int>(0)
        let connections = Atomic<Int>(0)
        let paused = Atomic<Bool>(false)
        /// Serving stops (as paused) once this many lines are out.
        let pauseAt = Atomic<Int>(Int.max)
        /// Lines served each tick (`pace`).
        let linesPerTick = Atomic<Int>(40)
        /// Once this many lines are out, `linesPerTickAfter` lines a tick (`pace(linesPerTick:untilLine:then:)`).
        let paceUntil = Atomic<Int>(Int.max)
        let linesPerTickAfter = Atomic<Int>(1)
    }

    /// `linesPerTick` lines every `tick` seconds; comment lines (`#`) are left out. `verbatim`
    /// sends the file's bytes as they are, in one piece (e.g. a line cut short).
    public init(log: URL, linesPerTick: Int = 40, tick: Double = 0.005, verbatim: Bool = false) throws {
        let text = try Data(contentsOf: log)
        let lines = verbatim ? [Array(text)] : text.split(separator: 0x0A, omittingEmptySubsequences: true)
            .filter { $0.first != UInt8(ascii: "#") }
            .map { Array($0) + [0x0A] }
        // A port the kernel picks (no SO_REUSEADDR: with it, two sockets bound to port 0 at once
        // can be given the same port, and the second listen() fails with EADDRINUSE — seen when
        // the parametrised gpsd tests start their feeders in parallel).
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard Self.bindLocal(listener, port: 0) == 0, listen(listener, 4) == 0 else {
            let code = POSIXErrorCode(rawValue: errno) ?? .EADDRINUSE
            close(listener)
            throw POSIXError(code, "the NMEA feeder could not listen on a local port: \(String(cString: strerror(errno)))")
        }
        port = Self.localPort(listener)
        self.listener = listener
        count = lines.count
        let state = self.state
        state.linesPerTick.store(max(1, linesPerTick), ordering: .releasing)
        Thread.detachNewThread {
            while !state.stopped.load(ordering: .acquiring) {
                let c = accept(listener, nil, nil)
                if c < 0 { continue }
                state.connections.add(1, ordering: .relaxed)
                while !state.stopped.load(ordering: .acquiring) {
                    if state.paused.load(ordering: .acquiring)
                        || state.position.load(ordering: .acquiring) >= state.pauseAt.load(ordering: .acquiring) {
                        usleep(UInt32(tick * 1e6))
                        continue
                    }
                    let at = state.position.load(ordering: .acquiring)
                    if at >= lines.count { break }
                    // A faster stretch ends at its line (never part of a tick beyond it).
                    let until = state.paceUntil.load(ordering: .acquiring)
                    let perTick = at < until ? state.linesPerTick.load(ordering: .acquiring) : state.linesPerTickAfter.load(ordering: .acquiring)
                    let end = max(at, min(lines.count, at + perTick, state.pauseAt.load(ordering: .acquiring), at < until ? until : Int.max))
                    let chunk = lines[at..<end].flatMap { $0 }
                    let sent = chunk.withUnsafeBytes { send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if sent < chunk.count { break }  // gpsd went away: wait for the next one
                    // A rewind meanwhile wins.
                    _ = state.position.compareExchange(expected: at, desired: end, ordering: .acquiringAndReleasing)
                    usleep(UInt32(tick * 1e6))
                }
                // The log is out (or the reader gone): give gpsd a moment to read it all, then
                // hang up, as gpsfake does at the end of a log.
                if state.position.load(ordering: .acquiring) >= lines.count { usleep(500_000) }
                close(c)
            }
        }
    }

    /// How many lines have been served.
    public var served: Int { state.position.load(ordering: .acquiring) }

    /// How many times a gpsd has opened it.
    public var connections: Int { state.connections.load(ordering: .relaxed) }

    /// How many lines the log has (after leaving out comments).
    public let count: Int

    /// Holds the feed (gpsd hears nothing) until `resume`.
    public func pause() { state.paused.store(true, ordering: .releasing) }
    /// Serves on; a `pause(atLine:)` is forgotten.
    public func resume() {
        state.pauseAt.store(Int.max, ordering: .releasing)
        state.paused.store(false, ordering: .releasing)
    }
    /// Serves `linesPerTick` lines a tick from now on (a walk sped up once what needs its pace is
    /// done).
    public func pace(linesPerTick: Int) {
        state.paceUntil.store(Int.max, ordering: .releasing)
        state.linesPerTick.store(max(1, linesPerTick), ordering: .releasing)
    }
    /// Serves `linesPerTick` lines a tick until `line` lines are out, then `after` a tick: a
    /// stretch of the walk that no check needs at its pace, fed faster, back to the pace the
    /// checks after it need before they come.
    public func pace(linesPerTick: Int, untilLine line: Int, then after: Int) {
        state.linesPerTickAfter.store(max(1, after), ordering: .releasing)
        state.linesPerTick.store(max(1, linesPerTick), ordering: .releasing)
        state.paceUntil.store(line, ordering: .releasing)
    }
    /// Serves until `line` lines are out (never part of a tick beyond), then waits for `resume`.
    public func pause(atLine line: Int) { state.pauseAt.store(line, ordering: .releasing) }
    /// Serves on after `pause` until `line` lines are out, then waits for `resume`.
    public func resume(until line: Int) {
        state.pauseAt.store(line, ordering: .releasing)
        state.paused.store(false, ordering: .releasing)
    }

    /// The log's lines as served (comments left out), for a test to pick where to pause.
    public static func servedLines(_ log: URL) throws -> [String] {
        try String(contentsOf: log, encoding: .utf8).split(whereSeparator: \.isNewline)
            .filter { !$0.hasPrefix("#") }.map(String.init)
    }

    /// Goes back `lines` lines: they are served again, as from a receiver whose data a client
    /// missed being offered once more.
    public func rewind(_ lines: Int) {
        var at = state.position.load(ordering: .acquiring)
        while true {
            let (done, now) = state.position.compareExchange(expected: at, desired: max(0, at - lines), ordering: .acquiringAndReleasing)
            if done { return }
            at = now
        }
    }

    public func stop() {
        state.stopped.store(true, ordering: .releasing)
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    public static func localPort(_ fd: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A TCP port free at the moment of asking, for a process to bind later (gpsd's `-S`).
    ///
    /// Taken below the kernel's ephemeral range (`ip_local_port_range`): a port the kernel handed
    /// out for a port-0 bind is free again once closed, and the next port-0 bind — a feeder, a
    /// client — may get it before gpsd binds it; ports below the range are never handed out so.
    public static func freePort() -> Int {
        let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))?
            .split(whereSeparator: \.isWhitespace).compactMap { Int($0) } ?? []
        let low = range.first ?? 32768
        if low > 11_000 {
            for _ in 0..<200 {
                let port = Int.random(in: 10_000..<low)
                if bindable(port) { return port }
            }
        }
        return ephemeralPort()
    }

    /// Whether `port` on 127.0.0.1 can be bound now.
    static func bindable(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        return bindLocal(fd, port: port) == 0
    }

    /// A port the kernel picks for a port-0 bind.
    static func ephemeralPort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        _ = bindLocal(fd, port: 0)
        return localPort(fd)
    }

    /// bind(2) of `fd` to 127.0.0.1:`port` (0: the kernel picks).
    static func bindLocal(_ fd: Int32, port: Int) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}

/// A real gpsd (Debian's /usr/sbin/gpsd) in the foreground, reading a feeder, listening on a port
/// of its own, with its own shared-memory key; `finish` kills it and removes what it left.
public final class GPSDProcess {
    static let binary = "/usr/sbin/gpsd"
    public let port: Int
    public let shmKey: Int32
    public let source: String
    private var process: Process?
    /// Every gpsd this object started: the shared-memory segments they created are removed.
    public private(set) var pids: [Int32] = []

    public init(port: Int = NMEAFeeder.freePort(), feederPort: Int, shmKey: Int32 = Int32.random(in: 0x4750_0000...0x4750_FFFF)) {
        self.port = port
        self.shmKey = shmKey
        source = "tcp://127.0.0.1:\(feederPort)"
    }

    /// Starts gpsd: `-N` foreground, `-b` read-only, `-S` its port; without `-n` it opens the
    /// source at the first WATCH, so a client sees the whole log.
    public func start() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw POSIXError(.ENOENT, "gpsd is not installed at \(Self.binary): run `make test` (it installs Debian's gpsd)")
        }
        let p = Process()
        p.dyingWithTheTests([Self.binary, "-N", "-b", "-S", String(port), source])
        var environment = ProcessInfo.processInfo.environment
        environment["GPSD_SHM_KEY"] = String(format: "0x%08x", shmKey)
        p.environment = environment
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try launchWithSignalsUnblocked(p)
        process = p
        pids.append(p.processIdentifier)  // setpriv execs gpsd: the same process
        // Ready when its port accepts; an exit before that is an error.
        var patience = Patience()
        while patience.waited < 10 {
            if Self.accepts(port) { return }
            guard p.isRunning else { throw POSIXError(.ECHILD, "gpsd exited (status \(p.terminationStatus)) before listening on port \(port)") }
            await patience.nap(0.01)
        }
        throw POSIXError(.ETIMEDOUT, "gpsd did not listen on port \(port) within 10 s")
    }

    /// Kills gpsd at once (SIGKILL), as a crash would.
    public func kill() {
        guard let p = process else { return }
        Glibc.kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        process = nil
    }

    /// Kills gpsd and removes the shared-memory segments its runs created.
    public func finish() {
        kill()
        SharedMemory.remove(key: shmKey)
        SharedMemory.removeCreated(by: Set(pids))
    }

    public static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

/// SysV shared memory that gpsd (as root) leaves behind: its export segment (GPSD_SHM_KEY) and
/// the NTP segments (keys 0x4e545030…).
public enum SharedMemory {
    /// Removes the segments created by the processes `pids` (the creator's pid is in
    /// /proc/sysvipc/shm), and only those: other runs' gpsd may share the NTP keys.
    public static func removeCreated(by pids: Set<Int32>) {
        guard let text = try? String(contentsOfFile: "/proc/sysvipc/shm", encoding: .utf8) else { return }
        for line in text.split(separator: "\n").dropFirst() {
            let f = line.split(separator: " ")
            guard f.count > 4, let id = Int32(f[1]), let creator = Int32(f[4]), pids.contains(creator) else { continue }
            shmctl(id, IPC_RMID, nil)
        }
    }

    public static func remove(key: Int32) {
        let id = shmget(key, 0, 0)
        if id >= 0 { shmctl(id, IPC_RMID, nil) }
    }
}

/// Time as a waiting test sees it: the sum of its own short naps, each counted as at most twice
/// its length. Tests of other suites run alongside on the same few threads; a task kept off them
/// for seconds must not take that for seconds of gpsd's (or the client's) silence, nor for a
/// missed deadline it could not watch.
public struct Patience {
    public private(set) var waited = 0.0
    private var last = Date()

    public init() {}

    public mutating func nap(_ seconds: Double) async {
        try? await Task.sleep(for: .seconds(seconds))
        let now = Date()
        waited += min(now.timeIntervalSince(last), 2 * seconds)
        last = now
    }
}

/// Runs `body` with a feeder and a gpsd for `log`, and removes every process and shared-memory
/// segment the test made, whatever happens.
public func withGPSD<T>(log: URL, linesPerTick: Int = 40, tick: Double = 0.005, _ body: (NMEAFeeder, GPSDProcess) async throws -> T) async throws -> T {
    let feeder = try NMEAFeeder(log: log, linesPerTick: linesPerTick, tick: tick)
    let gpsd = GPSDProcess(feederPort: feeder.port)
    defer {
        gpsd.finish()
        feeder.stop()
    }
    try await gpsd.start()
    return try await body(feeder, gpsd)
}

extension POSIXError {
    public init(_ code: POSIXErrorCode, _ message: String) {
        self.init(code, userInfo: [NSLocalizedDescriptionKey: message])
    }
}

/// An executable of this package (`treeline`, `treelined`), run as a user would.
public final class TreelineProcess: @unchecked Sendable {
    /// The folder with the package's built products: the test bundle's own.
    public static var products: URL {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        // On Linux the test bundle is .build/debug/X.xctest (a file); elsewhere a folder inside it.
        while dir.pathExtension == "xctest" || dir.lastPathComponent == "MacOS" || dir.lastPathComponent == "Contents" {
            dir = dir.deletingLastPathComponent()
        }
        return dir
    }

    public static var binary: URL { products.appendingPathComponent("treeline") }

    /// `treelined`: the same executable as `treeline`, started under the daemon's name. SwiftPM
    /// builds only `treeline`; as `make install` and the package do, a relative symbolic link
    /// `treelined` → `treeline` beside it is made here, once, when it is missing or is not that
    /// link (a separate treelined left by an older build would be stale). Renamed into place, so
    /// a process that starts it meanwhile finds either the old file or the link.
    public static let daemon: URL = {
        let link = products.appendingPathComponent("treelined")
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) == "treeline" { return link }
        let temporary = products.appendingPathComponent("treelined.\(getpid()).link")
        try? FileManager.default.removeItem(at: temporary)
        do {
            try FileManager.default.createSymbolicLink(atPath: temporary.path, withDestinationPath: "treeline")
            guard rename(temporary.path, link.path) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        } catch {
            fatalError("cannot link \(link.path) to treeline: \(error)")
        }
        return link
    }()

    private let process = Process()
    private let out = Pipe(), err = Pipe()
    private let lock = NSLock()
    private var buffer = Data()

    public init(_ arguments: [String], executable: String = "treeline", environment: [String: String]? = nil) throws {
        process.executableURL = executable == "treelined" ? Self.daemon : Self.products.appendingPathComponent(executable)
        if let environment { process.environment = environment }
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        out.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            guard let self else { return }
            self.lock.withLock { self.buffer.append(d) }
        }
        try process.run()
    }

    /// Complete lines of standard output once `count` have come, or nothing more for `idle` s.
    public func lines(count: Int, idle: Double) async -> [String] {
        func current() -> [String] {
            let text = lock.withLock { String(decoding: buffer, as: UTF8.self) }
            return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        }
        var seen = 0
        var quiet = Patience()
        while true {
            let l = current()
            if l.count >= count { return l }
            if l.count != seen { (seen, quiet) = (l.count, Patience()) }
            if quiet.waited > idle { return l }
            await quiet.nap(0.05)
        }
    }

    /// Ctrl-C, then what it wrote on standard error.
    public func interrupt() -> String {
        kill(process.processIdentifier, SIGINT)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)  // its status then says so (not 0)
        }
        process.waitUntilExit()
        out.fileHandleForReading.readabilityHandler = nil
        let rest = out.fileHandleForReading.readDataToEndOfFile()  // what it wrote last
        lock.withLock { buffer.append(rest) }
        return String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    public var status: Int32 { process.terminationStatus }

    /// Whether it still runs (read `status` only once it does not).
    public var isRunning: Bool { process.isRunning }

    public static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String) {
        let p = Process()
        p.executableURL = binary
        p.arguments = arguments
        let o = Pipe()
        p.standardOutput = o
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = o.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
