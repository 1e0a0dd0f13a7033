import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A Python script of `Tests/Browser` (the web app's checks: Selenium driving Debian's chromium,
/// and plain HTTP clients), run with the virtual environment `make test` makes in
/// `.venv-browser` (Selenium from PyPI). The script prints what it measured as lines
/// `RESULT <json>` and a line `READY` when the test may start the walk; it exits 0 when every
/// check passed, else 1 with the failures on standard error.
public final class BrowserScript: Sendable {
    public static var python: URL { repository.appendingPathComponent(".venv-browser/bin/python3") }

    /// A value the pipes' handlers and the test share.
    final class Shared<T: Sendable>: Sendable {
        private let value: Mutex<T>
        init(_ v: T) { value = Mutex(v) }
        func withLock<R>(_ body: (inout T) -> R) -> R { value.withLock { body(&$0) } }
    }

    private let process: Process
    private let output = Shared<[String]>([])
    private let errors = Shared<String>("")
    /// Pipes read to their end (2: standard output and error).
    private let ended = Shared<Int>(0)

    /// Starts `Tests/Browser/<name>.py` with `arguments`; `artefacts` is where it may leave
    /// screenshots.
    public init(_ name: String, arguments: [String]) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python.path) else {
            throw POSIXError(.ENOENT, "\(Self.python.path) is missing: `make test` (or `make browser-deps`) makes it, with Selenium from PyPI")
        }
        let p = Process()
        p.dyingWithTheTests([Self.python.path, repository.appendingPathComponent("Tests/Browser/\(name).py").path] + arguments)
        var env = ProcessInfo.processInfo.environment
        env["PYTHONUNBUFFERED"] = "1"
        p.environment = env
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        process = p
        let output = self.output, errors = self.errors, ended = self.ended
        let pending = Shared<String>("")
        out.fileHandleForReading.readabilityHandler = { h in
            let data = h.availableData
            if data.isEmpty { h.readabilityHandler = nil; ended.withLock { $0 += 1 }; return }
            let complete: [String] = pending.withLock { rest in
                rest += String(decoding: data, as: UTF8.self)
                var lines = rest.components(separatedBy: "\n")
                rest = lines.removeLast()
                return lines
            }
            output.withLock { $0 += complete }
        }
        err.fileHandleForReading.readabilityHandler = { h in
            let data = h.availableData
            if data.isEmpty { h.readabilityHandler = nil; ended.withLock { $0 += 1 }; return }
            errors.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try launchWithSignalsUnblocked(p)
    }

    /// Waits until the script printed `line` (false: it did not within `timeout`, or ended).
    public func waitFor(_ line: String, timeout: Double) async -> Bool {
        var patience = Patience()
        while patience.waited < timeout {
            if output.withLock({ $0.contains(line) }) { return true }
            if !process.isRunning { return output.withLock { $0.contains(line) } }
            await patience.nap(0.05)
        }
        return false
    }

    /// Waits for the end (killed after `timeout`): the exit status, its `RESULT` objects merged,
    /// and what it printed to standard error.
    public func finish(timeout: Double) async -> (status: Int32, results: [String: Any], stderr: String) {
        var patience = Patience()
        while process.isRunning && patience.waited < timeout { await patience.nap(0.1) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            errors.withLock { $0 += "\n(killed after \(Int(timeout)) s)" }
        }
        // The pipes' last bytes: read to their end (at most 5 s more: a child of the script may
        // hold them open).
        var drained = Patience()
        while ended.withLock({ $0 }) < 2, drained.waited < 5 { await drained.nap(0.01) }
        var results: [String: Any] = [:]
        for line in output.withLock({ $0 }) where line.hasPrefix("RESULT ") {
            if let data = line.dropFirst(7).data(using: .utf8), let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
                results.merge(o) { _, new in new }
            }
        }
        return (process.terminationStatus, results, errors.withLock { $0 })
    }

    /// Everything printed on standard output so far.
    public var printed: [String] { output.withLock { $0 } }
}
