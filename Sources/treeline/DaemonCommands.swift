import ArgumentParser
import Config
import Foundation
import Loading
#if canImport(Glibc)
import Glibc
#endif

/// A blocking client of treelined's socket: newline-delimited JSON both ways.
final class DaemonConnection {
    let path: String
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw UserError("socket path \(path) is too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard r == 0 else {
            let code = errno
            let why = String(cString: strerror(code))
            close(fd)
            throw UserError(Self.connectFailure(path: path, errno: code, why: why))
        }
    }

    deinit { close(fd) }

    /// What to do when the socket refuses: a permission problem is the group, not the daemon.
    static func connectFailure(path: String, errno code: Int32, why: String) -> String {
        if code == EACCES || code == EPERM {
            let user = getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "YOUR-USER"
            return "cannot connect to treelined at \(path): \(why) — the socket is for the group treeline: "
                + "add yourself with `sudo usermod -aG treeline \(user)`, then log out and in again (or run `newgrp treeline`)"
        }
        return "cannot connect to treelined at \(path): \(why) — is it running (systemctl status treelined)? Another socket: --socket PATH"
    }

    func send(_ json: String) throws {
        let bytes = Array((json + "\n").utf8)
        var at = 0
        while at < bytes.count {
            let n = bytes[at...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw UserError("lost the connection to treelined at \(path): \(String(cString: strerror(errno)))")
            }
            at += n
        }
    }

    /// The next line (without its newline), or nil when the daemon closed the connection.
    func line() -> [UInt8]? {
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<nl])
                buffer.removeSubrange(...nl)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// The next line as a JSON object, with its text.
    func object() -> (text: String, json: [String: Any])? {
        guard let l = line() else { return nil }
        let json = (try? JSONSerialization.jsonObject(with: Data(l))) as? [String: Any] ?? [:]
        return (String(decoding: l, as: UTF8.self), json)
    }
}

/// Where the daemon's socket is: --socket, else the config's socket:, else the default.
struct SocketOptions: ParsableArguments {
    @Option(help: "treelined's socket (default: the config's socket:, else /run/treeline/treeline.sock).")
    var socket: String?

    @Option(help: "A config file whose socket: to use.")
    var config: String?

    func path() throws -> String {
        if let socket { return socket }
        if let config { return try Loader.config(config).socket }
        return TreelineConfig().socket
    }

    /// Connects and reads HELLO.
    func connect() throws -> (DaemonConnection, hello: [String: Any]) {
        let c = try DaemonConnection(path: try path())
        guard let hello = c.object(), hello.json["class"] as? String == "HELLO" else {
            throw UserError("\(c.path) does not speak Treeline's protocol (no HELLO)")
        }
        return (c, hello.json)
    }
}

extension Treeline {
    struct Subscribe: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print treelined's events as they happen, resuming after a restart with nothing missed or doubled.",
            discussion: """
            One JSON line per event, as the daemon sends them:
            {"class":"EVENT","seq":N,…}. With --since N it first prints the journal's
            events after N. When the daemon restarts, or drops this client for not
            reading fast enough, it reconnects and goes on after the last seq it printed
            (waiting 0.1 s, doubling to 5 s). Ctrl-C stops.

            Examples:
              treeline subscribe --kinds plant,album
              treeline subscribe --since 0 --types enter,exit --regions plant-7
            """
        )

        @OptionGroup var connection: SocketOptions

        @Option(help: "Print the journal's events after this seq first (0: all of them).")
        var since: Int64?

        @Option(help: "Only these kinds of region, comma-separated: reforestation, plant, album.")
        var kinds: String?

        @Option(help: "Only these regions (ids), comma-separated.")
        var regions: String?

        @Option(help: "Only these event types, comma-separated (enter, exit, dwell, water_due, …).")
        var types: String?

        @Option(help: "Stop after this many events (default: never).")
        var count: Int?

        func validate() throws {
            if let since, since < 0 { throw ValidationError("--since must be 0 or more") }
            if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        }

        func run() throws {
            signal(SIGPIPE, SIG_IGN)
            let out = ByteWriter(fd: 1)
            var last = since
            var printed = 0
            var delay = 0.1
            var connectedOnce = false
            while true {
                let c: DaemonConnection
                do {
                    (c, _) = try connection.connect()
                } catch {
                    // Never connected: say why and stop. Connected before: the daemon restarts.
                    if !connectedOnce { throw error }
                    usleep(UInt32(delay * 1e6))
                    delay = min(delay * 2, 5)
                    continue
                }
                connectedOnce = true
                delay = 0.1
                var request = #"{"cmd":"subscribe""#
                for (key, list) in [("kinds", kinds), ("regions", regions), ("types", types)] {
                    guard let list else { continue }
                    let items = list.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
                    let data = try JSONSerialization.data(withJSONObject: items)
                    request += ",\"\(key)\":" + String(decoding: data, as: UTF8.self)
                }
                if let last { request += ",\"since\":\(last)" }
                request += "}"
                try c.send(request)
                while let (text, json) = c.object() {
                    switch json["class"] as? String {
                    case "EVENT":
                        if let seq = (json["seq"] as? NSNumber)?.int64Value { last = seq }
                        out.write(text + "\n")
                        out.flush()
                        printed += 1
                        if let count, printed >= count { return }
                    case "SUBSCRIBED":
                        if last == nil, let s = (json["since"] as? NSNumber)?.int64Value { last = s }
                    case "ERROR":
                        if json["lagged"] as? Bool == true {
                            FileHandle.standardError.write(Data("treeline subscribe: dropped for not reading fast enough; resuming after seq \(last ?? 0)\n".utf8))
                        } else {
                            throw UserError("treelined: \(json["message"] as? String ?? text)")
                        }
                    default:
                        break
                    }
                }
                FileHandle.standardError.write(Data("treeline subscribe: connection to treelined closed; reconnecting to resume after seq \(last ?? 0)\n".utf8))
            }
        }
    }
}

extension Treeline {
    struct Water: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Tell treelined a plant was watered: its next watering is due one interval from now.",
            discussion: """
            Prints the `watered` event the daemon committed
            ({"class":"EVENT","seq":N,"type":"watered",…}). The time is that of the last
            fix the daemon used.

            Example:
              treeline water plant-7
            """
        )

        @Argument(help: "The plant's id (as in the regions file).")
        var plant: String

        @OptionGroup var connection: SocketOptions

        func run() throws {
            let (c, _) = try connection.connect()
            let data = try JSONSerialization.data(withJSONObject: ["cmd": "water", "plant": plant])
            try c.send(String(decoding: data, as: UTF8.self))
            guard let reply = c.object() else { throw UserError("treelined closed the connection without an answer") }
            if reply.json["class"] as? String == "ERROR" { throw UserError("treelined: \(reply.json["message"] as? String ?? reply.text)") }
            print(reply.text)
        }
    }
}

extension Treeline {
    struct State: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print treelined's state: last fix, fences inside, counters, gpsd's status (one JSON line).",
            discussion: """
            With --regions, the regions in force instead (id, kind, name, inside;
            plants' watering).
            """
        )

        @OptionGroup var connection: SocketOptions

        @Flag(help: "Print the regions in force instead.")
        var regions = false

        func run() throws {
            let (c, _) = try connection.connect()
            try c.send(regions ? #"{"cmd":"regions"}"# : #"{"cmd":"state"}"#)
            guard let reply = c.object() else { throw UserError("treelined closed the connection without an answer") }
            if reply.json["class"] as? String == "ERROR" { throw UserError("treelined: \(reply.json["message"] as? String ?? reply.text)") }
            print(reply.text)
        }
    }
}
