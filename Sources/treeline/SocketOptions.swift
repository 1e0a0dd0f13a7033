import ArgumentParser
import Config
import Foundation
import Loading
#if canImport(Glibc)
import Glibc
#endif

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

extension SocketOptions {
    /// One command, one answer: connects, sends `request` (a JSON object), and returns the reply;
    /// an `ERROR` reply is thrown as its message.
    func ask(_ request: [String: Any]) throws -> (text: String, json: [String: Any]) {
        let (c, _) = try connect()
        let data = try JSONSerialization.data(withJSONObject: request, options: [.sortedKeys])
        try c.send(String(decoding: data, as: UTF8.self))
        guard let reply = c.object() else { throw UserError("treelined closed the connection without an answer") }
        if reply.json["class"] as? String == "ERROR" { throw UserError("treelined: \(reply.json["message"] as? String ?? reply.text)") }
        return reply
    }
}
