import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `treelined` in a folder of its own: its config, regions, database and socket there, its log
/// (standard error) in `daemon.log`. `start` waits until the socket answers.
public final class DaemonProcess: @unchecked Sendable {
    public let folder: URL
    public let config: URL
    public let socket: String
    public let database: String
    public let log: URL
    private var process: Process?
    private var extraArguments: [String]
    public var environment: [String: String] = [:]

    /// `regions` are copied into the folder (`regions-0.geojson`, …) so a test may change them.
    public init(gpsdPort: Int, regions: [URL], monitor: String = "", arguments: [String] = []) throws {
        folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("tl-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        config = folder.appendingPathComponent("treeline.yaml")
        socket = folder.appendingPathComponent("treeline.sock").path
        database = folder.appendingPathComponent("treeline.sqlite").path
        log = folder.appendingPathComponent("daemon.log")
        extraArguments = arguments
        var files: [String] = []
        for (k, r) in regions.enumerated() {
            let copy = folder.appendingPathComponent("regions-\(k).geojson")
            try FileManager.default.copyItem(at: r, to: copy)
            files.append(copy.path)
        }
        try writeConfig(gpsdPort: gpsdPort, regions: files, monitor: monitor)
    }

    public func writeConfig(gpsdPort: Int, regions: [String], monitor: String = "") throws {
        var yaml = "gpsd:\n  host: 127.0.0.1\n  port: \(gpsdPort)\n"
        yaml += "regions:\n" + regions.map { "  - \($0)\n" }.joined()
        yaml += "socket: \(socket)\ndatabase: \(database)\n"
        yaml += "species: \(repository.appendingPathComponent("Data/species.json").path)\n"
        if !monitor.isEmpty { yaml += "monitor:\n" + monitor }
        // The logs' events are dated 2026: kept whatever the clock says, unless a test shortens it.
        yaml += "journal:\n  keep_days: 36500\ntrack:\n  keep_days: 36500\n"
        try Data(yaml.utf8).write(to: config)
    }

    public func regionFile(_ k: Int) -> URL { folder.appendingPathComponent("regions-\(k).geojson") }

    public var pid: Int32? { process?.processIdentifier }
    public var isRunning: Bool { process?.isRunning ?? false }

    /// Starts it and waits (at most `within` seconds of its own time, 20 by default) until the
    /// socket accepts and, as systemd would, until it says READY=1: only then is SIGHUP trapped
    /// (before, it would end the process). A test that gives its own NOTIFY_SOCKET waits for
    /// READY=1 itself.
    public func start(within limit: Double = 20) async throws {
        let p = Process()
        p.dyingWithTheTests([TreelineProcess.daemon.path, "--config", config.path] + extraArguments)
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        // Closed and unlinked when `start` returns: later messages (STATUS, WATCHDOG) find no one.
        let notify = environment["NOTIFY_SOCKET"] == nil ? try NotifySocket() : nil
        if let notify { env["NOTIFY_SOCKET"] = notify.path }
        p.environment = env
        if !FileManager.default.fileExists(atPath: log.path) { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        p.standardError = handle
        p.standardOutput = FileHandle.nullDevice
        try launchWithSignalsUnblocked(p)
        process = p
        var patience = Patience()
        while patience.waited < limit {
            if (try? SocketClient(path: socket)) != nil {
                guard let notify else { return }
                let ready = notify.read(timeout: max(0.1, limit - patience.waited)) { $0.contains { $0.hasPrefix("READY=1") } }
                if ready.contains(where: { $0.hasPrefix("READY=1") }) { return }
                throw POSIXError(.ETIMEDOUT, "treelined listened on \(socket) but did not say READY=1; its log:\n\(logText)")
            }
            guard p.isRunning else { throw POSIXError(.ECHILD, "treelined exited (status \(p.terminationStatus)) before listening; its log:\n\(logText)") }
            await patience.nap(0.02)
        }
        throw POSIXError(.ETIMEDOUT, "treelined did not listen on \(socket) within \(Int(limit)) s; its log:\n\(logText)")
    }

    /// What it has logged so far.
    public var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    public func signal(_ sig: Int32) {
        if let p = process { kill(p.processIdentifier, sig) }
    }

    /// SIGKILL, as a crash or a power cut of the process would be.
    public func kill9() {
        guard let p = process else { return }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        process = nil
    }

    /// SIGTERM; the exit status and the seconds it took (nil: not within `within`, then killed).
    public func terminate(within: Double = 5) -> (status: Int32, seconds: Double)? {
        guard let p = process else { return nil }
        let started = Date()
        kill(p.processIdentifier, SIGTERM)
        while p.isRunning && Date().timeIntervalSince(started) < within { usleep(5_000) }
        defer { process = nil }
        if p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            return nil
        }
        return (p.terminationStatus, Date().timeIntervalSince(started))
    }

    /// Kills it if running (and any other treelined on this folder's config, e.g. one that
    /// systemd-socket-activate started) and removes its folder.
    public func finish() {
        kill9()
        let pkill = Process()
        pkill.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
        pkill.arguments = ["-KILL", "-f", "treelined --config \(config.path)"]
        pkill.standardError = FileHandle.nullDevice
        if (try? pkill.run()) != nil { pkill.waitUntilExit() }
        try? FileManager.default.removeItem(at: folder)
    }

    /// A client connected to it, HELLO read.
    public func client() throws -> (SocketClient, hello: [String: Any]) {
        let c = try SocketClient(path: socket)
        return (c, json(c.line()))
    }
}
