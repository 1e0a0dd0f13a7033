import ArgumentParser
import Config
import Foundation
import Geo
import Loading
import Protocol
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
    func connect() throws -> (DaemonConnection, hello: Hello) {
        let c = try DaemonConnection(path: try path())
        guard let line = c.object(), let hello = try? line.decoded(as: Hello.self) else {
            throw UserError("\(c.path) does not speak Treeline's protocol (no HELLO)")
        }
        return (c, hello)
    }
}

extension SocketOptions {
    /// One command, one answer: connects, sends `command`, and returns the reply line; an
    /// `ERROR` reply is thrown as its message. `command` is made once connected, so a value it
    /// refuses (a time that is not one) is told after a daemon that is not there.
    func ask(_ command: @autoclosure () throws -> Command) throws -> ReplyLine {
        let (c, _) = try connect()
        try c.send(try command())
        guard let reply = c.object() else { throw UserError("treelined closed the connection without an answer") }
        if reply.className == ErrorReply.replyClass {
            throw UserError("treelined: \((try? reply.decoded(as: ErrorReply.self))?.message ?? reply.text)")
        }
        return reply
    }

    /// `ask`, the reply read as `R`.
    func ask<R: DaemonReply>(_ command: @autoclosure () throws -> Command, as type: R.Type) throws -> R {
        try Self.read(try ask(command()), as: R.self)
    }

    /// The reply as `R`; one that is not is said as the daemon's.
    static func read<R: DaemonReply>(_ reply: ReplyLine, as type: R.Type) throws -> R {
        do { return try reply.decoded(as: R.self) } catch {
            throw UserError("treelined answered what this treeline cannot read (\(error.message)): are they the same version?")
        }
    }
}

/// A time the user gave, for a command: the daemon's own words when it is not one.
func wireTime(_ text: String, key: String) throws -> UTCTime {
    do { return try Command.time(text, key: key) } catch { throw UserError("treelined: \(error.message)") }
}
