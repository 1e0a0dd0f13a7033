import Foundation
import IntegrationSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Whether a notify message begins with `key` (compared as bytes).
func begins(_ message: String, _ key: String) -> Bool { message.utf8.starts(with: key.utf8) }

extension Daemon {
    /// Under systemd (Type=notify): READY=1 with a STATUS once it serves, WATCHDOG=1 every half
    /// WATCHDOG_USEC, RELOADING=1 then READY=1 around a SIGHUP, STOPPING=1 at SIGTERM.
    @Test func tellsSystemdWhatItDoes() async throws {
        try await withGPSD(log: walk) { _, gpsd in
            let notify = try NotifySocket()
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            daemon.environment = ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000"]
            try await daemon.start()
            // READY=1 only once SIGHUP is trapped: a reload right after it must not kill the daemon.
            let start = notify.read { m in m.contains { begins($0, "READY=1") } && m.filter { begins($0, "WATCHDOG=1") }.count >= 3 }
            let ready = start.first { begins($0, "READY=1") } ?? ""
            #expect(ready.contains("STATUS=") && ready.contains("regions"), "\(start)")
            #expect(start.filter { begins($0, "WATCHDOG=1") }.count >= 3, "pings every 0.1 s: \(start)")
            // Each ping carries the status of now: the fix count grows while the walk is fed
            // (it went stale at the last reload or gpsd change when pings were WATCHDOG=1 alone).
            func fixes(_ m: String) -> Int? {
                guard let r = m.range(of: #"(\d+) fixes"#, options: .regularExpression) else { return nil }
                return Int(m[r].split(separator: " ")[0])
            }
            let first = start.last { begins($0, "WATCHDOG=1") }.flatMap(fixes) ?? 0
            let later = notify.read { m in m.contains { begins($0, "WATCHDOG=1") && (fixes($0) ?? 0) > first + 50 } }
            #expect(later.contains { begins($0, "WATCHDOG=1\nSTATUS=") && (fixes($0) ?? 0) > first + 50 }, "\(later.suffix(3))")
            daemon.signal(SIGHUP)
            // (STATUS= updates, gpsd's connection for one, may come between.)
            let raw = notify.read { m in m.contains { begins($0, "READY=1") } }
            var kinds: [String] = []
            for m in raw {
                if begins(m, "RELOADING=1") { kinds.append(m.contains("MONOTONIC_USEC=") ? "reloading" : "reloading without MONOTONIC_USEC") }
                if begins(m, "READY=1") { kinds.append("ready") }
            }
            #expect(kinds == ["reloading", "ready"], "\(raw) log: \(daemon.logText)")
            let stopping = Task { notify.read { m in m.contains("STOPPING=1") } }
            let stopped = daemon.terminate()
            #expect(stopped?.status == 0)
            #expect(await stopping.value.contains("STOPPING=1"))
        }
    }

    /// Socket activation: systemd-socket-activate holds the socket and starts treelined on the
    /// first connection, passing it as fd 3 (LISTEN_FDS); the daemon serves on it without binding.
    @Test func takesItsSocketFromSystemd() async throws {
        let activate = "/usr/bin/systemd-socket-activate"
        try #require(FileManager.default.isExecutableFile(atPath: activate), "systemd-socket-activate is part of Debian's systemd package")
        try await withGPSD(log: walk) { _, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: activate)
            p.arguments = ["-l", daemon.socket, TreelineProcess.daemon.path, "--config", daemon.config.path]
            p.standardError = FileHandle.nullDevice
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            defer {
                kill(p.processIdentifier, SIGTERM)
                p.waitUntilExit()
            }
            try await waitFor(within: 10) { FileManager.default.fileExists(atPath: daemon.socket) }
            var hello: [String: Any] = [:]
            try await waitFor(within: 20) {
                hello = (try? daemon.client().hello) ?? [:]
                return hello["class"] as? String == "HELLO"
            }
            let (c, _) = try daemon.client()
            #expect(json(c.ask(#"{"cmd":"state"}"#))["class"] as? String == "STATE")
        }
    }
}
