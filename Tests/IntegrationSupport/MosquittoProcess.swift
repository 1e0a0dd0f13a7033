import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real MQTT broker (Debian's /usr/sbin/mosquitto, 2.0.11) in a folder of its own under /tmp:
/// its password file, `mosquitto.conf`, persistence (`mosquitto.db`: retained messages and
/// persistent sessions survive a `stop` and `start`, as a real broker's would — not a `kill`,
/// which saves nothing) and its log (`mosquitto.log`, every message type). Anonymous clients are
/// refused. With `acl`, its text is the broker's `acl_file` (what each user may read and write;
/// `MosquittoProcess.fleetACL` is the one the README documents). `finish` kills it and removes
/// the folder.
public final class MosquittoProcess: @unchecked Sendable {
    public static let binary = "/usr/sbin/mosquitto"
    public let port: Int
    public let folder: URL
    public let config: URL
    public let log: URL
    /// Users and their passwords, all in the password file.
    public let users: [String: String]
    /// The user tests connect as: `treeline` if among `users`, else the first name in sorted order.
    public let username: String
    public let password: String
    public let tls: (caFile: String, certFile: String, keyFile: String)?
    /// The `acl_file`, if one was given.
    public let aclFile: URL?
    private let lock = NSLock()
    private var process: Process?
    private var stopped = false  // SIGSTOP'd

    /// Writes the password file (`mosquitto_passwd -b`) and the config; starts nothing.
    public init(port: Int = NMEAFeeder.freePort(),
                users: [String: String] = ["treeline": UUID().uuidString],
                tls: (caFile: String, certFile: String, keyFile: String)? = nil, acl: String? = nil) throws {
        guard let first = users["treeline"] != nil ? "treeline" : users.keys.sorted().first else {
            throw POSIXError(.EINVAL, "MosquittoProcess needs at least one user (anonymous clients are refused)")
        }
        self.port = port
        self.users = users
        self.tls = tls
        username = first
        password = users[first]!
        folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("tl-mqtt-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        config = folder.appendingPathComponent("mosquitto.conf")
        log = folder.appendingPathComponent("mosquitto.log")
        let passwords = folder.appendingPathComponent("passwords")
        let aclPath = folder.appendingPathComponent("acl")
        if let acl { try Data(acl.utf8).write(to: aclPath) }
        aclFile = acl == nil ? nil : aclPath
        for (k, name) in ([first] + users.keys.sorted().filter { $0 != first }).enumerated() {
            let (status, output) = try Self.run("/usr/bin/mosquitto_passwd", (k == 0 ? ["-c"] : []) + ["-b", passwords.path, name, users[name]!])
            guard status == 0 else {
                try? FileManager.default.removeItem(at: folder)
                throw POSIXError(.EINVAL, "mosquitto_passwd failed (status \(status)) for user \(name): \(output)")
            }
        }
        var conf = """
            # Written by MosquittoProcess (Tests/IntegrationSupport).
            listener \(port) 127.0.0.1

            """
        if let tls {
            conf += "cafile \(tls.caFile)\ncertfile \(tls.certFile)\nkeyfile \(tls.keyFile)\nrequire_certificate false\n"
        }
        conf += """
            allow_anonymous false
            password_file \(passwords.path)
            \(aclFile.map { "acl_file \($0.path)" } ?? "")
            persistence true
            persistence_location \(folder.path)/
            log_dest file \(log.path)
            log_type all

            """
        // Started as root, mosquitto drops to the `mosquitto` user, which may not write this
        // folder (nor open the log): stay root. Ignored when not started as root.
        if geteuid() == 0 { conf += "user root\n" }
        try Data(conf.utf8).write(to: config)
    }

    public var pid: Int32? { lock.withLock { process?.processIdentifier } }
    public var isRunning: Bool { lock.withLock { process?.isRunning ?? false } }
    public var isPaused: Bool { lock.withLock { stopped && process?.isRunning == true } }

    /// What it has logged so far (all its runs; each begins with `mosquitto version … starting`).
    public var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// What the current (or last) run has logged.
    public var runLogText: String {
        let lines = logText.split(separator: "\n", omittingEmptySubsequences: false)
        let start = lines.lastIndex { $0.contains("mosquitto version ") && $0.hasSuffix(" starting") } ?? lines.startIndex
        return lines[start...].joined(separator: "\n")
    }

    private var stderrText: String {
        (try? String(contentsOf: folder.appendingPathComponent("mosquitto.stderr"), encoding: .utf8)) ?? ""
    }

    /// Runs `mosquitto -c mosquitto.conf` and waits (at most 10 s of its own time) until its port
    /// accepts TCP connections. An exit before that, or the time running out, is an error with the log.
    public func start() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw POSIXError(.ENOENT, "mosquitto is not installed at \(Self.binary) (Debian's `mosquitto` package)")
        }
        if isRunning { return }
        let p = Process()
        p.dyingWithTheTests([Self.binary, "-c", config.path])
        // Standard error: what comes before the log file is open (config errors, the warning
        // about running as root).
        let errors = folder.appendingPathComponent("mosquitto.stderr")
        if !FileManager.default.fileExists(atPath: errors.path) { _ = FileManager.default.createFile(atPath: errors.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: errors)
        handle.seekToEndOfFile()
        p.standardError = handle
        p.standardOutput = FileHandle.nullDevice
        try launchWithSignalsUnblocked(p)
        try? handle.close()
        lock.withLock {
            process = p
            stopped = false
        }
        var patience = Patience()
        while patience.waited < 10 {
            if GPSDProcess.accepts(port) { return }
            guard p.isRunning else {
                lock.withLock { process = nil }
                throw POSIXError(.ECHILD, "mosquitto exited (status \(p.terminationStatus)) before listening on port \(port); stderr:\n\(stderrText)\nits log:\n\(runLogText)")
            }
            await patience.nap(0.01)
        }
        throw POSIXError(.ETIMEDOUT, "mosquitto did not listen on port \(port) within 10 s; stderr:\n\(stderrText)\nits log:\n\(runLogText)")
    }

    /// SIGKILL, as a crash or a power cut would be: nothing is saved (what was persisted by an
    /// earlier `stop` stays).
    public func kill() {
        guard let p = lock.withLock({ process }) else { return }
        Glibc.kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        lock.withLock {
            if process === p { process = nil }
            stopped = false
        }
    }

    /// SIGTERM and waits: mosquitto writes its persistence file (retained messages, sessions and
    /// their queued messages) as it goes. Killed if not gone within `within` seconds.
    public func stop(within: Double = 10) {
        guard let p = lock.withLock({ process }) else { return }
        if isPaused { resume() }
        Glibc.kill(p.processIdentifier, SIGTERM)
        let started = Date()
        while p.isRunning && Date().timeIntervalSince(started) < within { usleep(5_000) }
        if p.isRunning { Glibc.kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        lock.withLock {
            if process === p { process = nil }
        }
    }

    /// SIGSTOP: connections stay open but nothing is answered (a hung broker).
    public func pause() {
        lock.withLock {
            guard let p = process, p.isRunning else { return }
            Glibc.kill(p.processIdentifier, SIGSTOP)
            stopped = true
        }
    }

    /// SIGCONT after `pause`.
    public func resume() {
        lock.withLock {
            guard let p = process, p.isRunning else { return }
            Glibc.kill(p.processIdentifier, SIGCONT)
            stopped = false
        }
    }

    /// Kills it if running and removes its folder.
    public func finish() {
        kill()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Waits (at most `within` s of its own time) until the current run's log has a line containing
    /// `text` (e.g. `Sending SUBACK to CLIENT_ID`, `New client connected from … as CLIENT_ID`).
    @discardableResult
    public func waitForLog(_ text: String, within: Double = 10) async -> Bool {
        var patience = Patience()
        while patience.waited < within {
            if runLogText.contains(text) { return true }
            await patience.nap(0.02)
        }
        return runLogText.contains(text)
    }

    /// The arguments mosquitto_sub and mosquitto_pub need for this broker: host, port, user and,
    /// with TLS, the CA (`caFile`, else the broker's).
    public func clientArguments(username: String? = nil, password: String? = nil, caFile: String? = nil) -> [String] {
        var a = ["-h", "127.0.0.1", "-p", String(port), "-u", username ?? self.username, "-P", password ?? self.password]
        if let ca = caFile ?? tls?.caFile { a += ["--cafile", ca] }
        return a
    }

    /// Runs a short command and returns its status and output (standard output and error); one
    /// still running after `timeout` s (e.g. mosquitto_pub to a paused broker) is killed.
    static func run(_ executable: String, _ arguments: [String], timeout: Double = 10) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let pid = p.processIdentifier
        let finished = NSLock(), state = UnsafeSendableBox(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
            finished.withLock { if !state.value { Glibc.kill(pid, SIGKILL) } }
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        finished.withLock { state.value = true }
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

extension MosquittoProcess {
    /// The fleet's `acl_file` as the README documents it ("The broker's ACL"): one user per
    /// board, named as its client id (its topic is `treeline/<user>`); `operator` sends commands
    /// and the fleet's regions; `viewer` only reads the boards' events, status and state.
    public static let fleetACL = """
        # Every board (user name = client id, topic treeline/<user>): writes its own topics,
        # reads its commands and the fleet's; OwnTracks under its name, and reads the crew's;
        # Home Assistant's discovery under its node.
        pattern write treeline/%u/events
        pattern write treeline/%u/status
        pattern write treeline/%u/state
        pattern write treeline/%u/reply
        pattern write treeline/%u/location
        pattern write treeline/%u/sensors
        pattern read treeline/%u/cmd
        pattern read treeline/%u/ha
        pattern read treeline/fleet/cmd
        pattern read treeline/fleet/regions
        pattern write owntracks/%u/#
        pattern read owntracks/+/+
        pattern readwrite homeassistant/+/%u/+/config
        pattern read homeassistant/status

        # The operator: commands to any board or the fleet, the fleet's regions; reads everything.
        user operator
        topic readwrite treeline/#
        topic read owntracks/#

        # Home Assistant: reads the boards and the crew, keeps its discovery, presses Water buttons
        # (on <topic>/ha, where a board takes water and nothing else).
        user homeassistant
        topic read treeline/#
        topic write treeline/+/ha
        topic read owntracks/#
        topic readwrite homeassistant/#

        # Read-only dashboards: events, status, state and position; never a command.
        user viewer
        topic read treeline/+/events
        topic read treeline/+/status
        topic read treeline/+/state
        topic read treeline/+/location
        topic read treeline/+/sensors

        """
}

final class UnsafeSendableBox<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

/// `mosquitto_pub` failed: its exit status (5: not authorised, 14: connection refused…) and output.
public struct MosquittoClientError: Error, CustomStringConvertible {
    public let status: Int32
    public let output: String
    public var description: String { "mosquitto_pub exited with status \(status): \(output)" }
}

/// Publishes one message with `mosquitto_pub -q QOS [-r]` (as the broker's first user unless
/// `username`/`password` are given) and waits for it (killed after `timeout` s, e.g. to a paused
/// broker); a non-zero exit throws `MosquittoClientError`. `file`: the payload is that file's
/// bytes (`-f`: a payload too long for a command line), and `payload` is not used.
extension MosquittoProcess {
    /// Publishes each line of `file` as a message on `topic` (QoS 0), as fast as
    /// `mosquitto_pub -l` sends them; its exit status.
    @discardableResult
    public static func publishLines(broker: MosquittoProcess, topic: String, file: URL) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
        p.arguments = broker.clientArguments() + ["-q", "0", "-t", topic, "-l", "-i", "test-lines-\(UUID().uuidString.prefix(8))"]
        p.standardInput = try FileHandle(forReadingFrom: file)
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }

    /// The messages retained under `filter` now, topic → payload: what a client subscribing now
    /// gets (a fresh `mosquitto_sub --retained-only`, listening `wait` seconds, then killed: its
    /// own `-W` uses SIGALRM, which a child of the test process has blocked; it flushes each line).
    public func retained(_ filter: String, wait: Double = 1) throws -> [String: String] {
        let arguments = clientArguments() + ["--retained-only", "-v", "-t", filter, "-i", "test-retained-\(UUID().uuidString.prefix(8))"]
        let (_, output) = try MosquittoProcess.run("/usr/bin/mosquitto_sub", arguments, timeout: wait)
        var found: [String: String] = [:]
        for line in output.split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            found[String(line[..<space])] = String(line[line.index(after: space)...])
        }
        return found
    }
}

public func mosquittoPublish(broker: MosquittoProcess, topic: String, payload: String, retain: Bool = false, qos: Int = 1,
                             username: String? = nil, password: String? = nil, caFile: String? = nil, timeout: Double = 10,
                             file: URL? = nil) throws {
    var arguments = broker.clientArguments(username: username, password: password, caFile: caFile)
    arguments += ["-q", String(qos), "-t", topic] + (file.map { ["-f", $0.path] } ?? ["-m", payload]) + ["-i", "test-pub-\(UUID().uuidString.prefix(8))"]
    if retain { arguments.append("-r") }
    let (status, output) = try MosquittoProcess.run("/usr/bin/mosquitto_pub", arguments, timeout: timeout)
    guard status == 0 else { throw MosquittoClientError(status: status, output: output) }
}

/// `mosquitto_sub -q 1 -v -c -i CLIENT_ID -t TOPIC…` kept running: a persistent session under a
/// fixed client id, so QoS 1 messages queued while it was away (a broker stopped and started
/// again) reach it. Its output lines (`topic payload`; payloads single-line) are collected.
///
/// mosquitto_sub reconnects by itself when the broker goes away, but exits when its first
/// connection fails (or on an error): it is then started again after 0.2 s, with the same client
/// id, until `stop`.
public final class MQTTSubscriber: @unchecked Sendable {
    public let broker: MosquittoProcess
    public let topics: [String]
    public let clientID: String
    public let caFile: String?
    /// The user it connects as (nil: the broker's first user).
    public let username: String?
    private let lock = NSLock()
    private var received: [(topic: String, payload: String)] = []
    private var process: Process?
    private var stopping = false
    private var running = false
    private var starts = 0
    private let done = DispatchSemaphore(value: 0)

    public init(broker: MosquittoProcess, topics: [String], clientID: String = "test-sub-\(UUID().uuidString.prefix(8))", tls caFile: String? = nil,
                username: String? = nil) {
        self.broker = broker
        self.topics = topics
        self.clientID = clientID
        self.caFile = caFile
        self.username = username
    }

    /// Every message so far, in the order received (QoS 1: a message may come twice, e.g.
    /// redelivered after a broker restart).
    public var messages: [(topic: String, payload: String)] { lock.withLock { received } }

    /// How many times mosquitto_sub has been started.
    public var runs: Int { lock.withLock { starts } }

    /// Starts the loop that keeps mosquitto_sub running. Returns at once: the broker need not be
    /// up (see `waitUntilSubscribed`).
    public func start() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_sub") else {
            throw POSIXError(.ENOENT, "mosquitto_sub is not installed (Debian's `mosquitto-clients` package)")
        }
        let go = lock.withLock {
            if running { return false }
            (running, stopping) = (true, false)
            return true
        }
        guard go else { return }
        var arguments = broker.clientArguments(username: username, password: username.flatMap { broker.users[$0] }, caFile: caFile)
            + ["-q", "1", "-v", "-c", "-i", clientID]
        for t in topics { arguments += ["-t", t] }
        let command = arguments
        Thread.detachNewThread { [self] in
            // This thread starts each mosquitto_sub and lives until it is gone (setpriv's
            // parent-death signal is sent when the thread that started a process ends). Its
            // signal mask, which a child inherits, is emptied: see launchWithSignalsUnblocked.
            unblockSignals()
            while !lock.withLock({ stopping }) {
                let p = Process()
                p.dyingWithTheTests(["/usr/bin/mosquitto_sub"] + command)
                let out = Pipe()
                p.standardOutput = out
                p.standardError = FileHandle.nullDevice
                let launched: Bool = lock.withLock {
                    if stopping { return false }
                    guard (try? p.run()) != nil else { return false }
                    process = p
                    starts += 1
                    return true
                }
                if launched {
                    read(out.fileHandleForReading.fileDescriptor)
                    p.waitUntilExit()
                    lock.withLock { process = nil }
                }
                try? out.fileHandleForReading.close()
                if lock.withLock({ stopping }) { break }
                usleep(200_000)
            }
            done.signal()
        }
    }

    /// Reads `fd` to its end, adding each complete line to `received`.
    private func read(_ fd: Int32) {
        var pending = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            pending.append(contentsOf: buffer[0..<n])
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                add(line)
            }
        }
        if !pending.isEmpty { add(String(decoding: pending, as: UTF8.self)) }
    }

    private func add(_ line: String) {
        let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        let message = (topic: String(parts[0]), payload: parts.count > 1 ? String(parts[1]) : "")
        lock.withLock { received.append(message) }
    }

    /// Waits (at most `within` s of its own time) until the broker's current run has acknowledged
    /// its subscription (`Sending SUBACK to CLIENT_ID` in the broker's log): messages published
    /// after that reach it even if the broker lost its session (a `kill`).
    @discardableResult
    public func waitUntilSubscribed(within: Double = 10) async -> Bool {
        await broker.waitForLog("Sending SUBACK to \(clientID)\n", within: within)
    }

    /// The messages whose topic starts with `prefix` (all: nil) once there are `count` of them,
    /// or those there are after `within` s of its own time.
    public func waitFor(count: Int, topic prefix: String? = nil, within: Double = 10) async -> [(topic: String, payload: String)] {
        func current() -> [(topic: String, payload: String)] {
            messages.filter { prefix == nil || $0.topic.hasPrefix(prefix!) }
        }
        var patience = Patience()
        while patience.waited < within {
            let m = current()
            if m.count >= count { return m }
            await patience.nap(0.02)
        }
        return current()
    }

    /// Ends the loop and mosquitto_sub (SIGTERM, then SIGKILL after 5 s), and waits for them.
    public func stop() {
        let (p, wasRunning) = lock.withLock { () -> (Process?, Bool) in
            let r = running
            stopping = true
            running = false
            return (process, r)
        }
        guard wasRunning else { return }
        if let p, p.isRunning { Glibc.kill(p.processIdentifier, SIGTERM) }
        if done.wait(timeout: .now() + 5) == .timedOut {
            if let p = lock.withLock({ process }) { Glibc.kill(p.processIdentifier, SIGKILL) }
            done.wait()
        }
    }
}

/// A throwaway CA and a server certificate it signed (for 127.0.0.1 and localhost), made with
/// openssl in a folder of their own under /tmp, for `MosquittoProcess(tls:)`; `remove` deletes them.
public struct TestCertificates: Sendable {
    public let folder: URL
    public let caFile: String
    public let certFile: String
    public let keyFile: String
    public var tls: (caFile: String, certFile: String, keyFile: String) { (caFile, certFile, keyFile) }

    public init() throws {
        folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("tl-certs-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let f = folder.path
        caFile = "\(f)/ca.crt"
        certFile = "\(f)/server.crt"
        keyFile = "\(f)/server.key"
        try Data("subjectAltName=IP:127.0.0.1,DNS:localhost\n".utf8).write(to: folder.appendingPathComponent("san.ext"))
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let steps: [[String]] = [
            ["req", "-x509"] + ec + ["-keyout", "\(f)/ca.key", "-out", caFile, "-days", "2", "-subj", "/CN=Treeline test CA"],
            ["req"] + ec + ["-keyout", keyFile, "-out", "\(f)/server.csr", "-subj", "/CN=127.0.0.1"],
            ["x509", "-req", "-in", "\(f)/server.csr", "-CA", caFile, "-CAkey", "\(f)/ca.key", "-CAcreateserial",
             "-out", certFile, "-days", "2", "-extfile", "\(f)/san.ext"],
        ]
        for step in steps {
            let (status, output) = try MosquittoProcess.run("/usr/bin/openssl", step)
            guard status == 0 else {
                try? FileManager.default.removeItem(at: folder)
                throw POSIXError(.EINVAL, "openssl \(step[0]) failed (status \(status)): \(output)")
            }
        }
    }

    public func remove() { try? FileManager.default.removeItem(at: folder) }
}
