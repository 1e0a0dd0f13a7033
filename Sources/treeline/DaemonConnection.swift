import Foundation
import Protocol
#if canImport(Glibc)
import Glibc
#endif

/// A blocking client of treelined's socket: newline-delimited JSON both ways.
final class DaemonConnection {
    let path: String
    private let fd: Int32
    private var buffer: [UInt8] = []

    /// `fd` is set only once connected: a class whose init throws after every stored property is
    /// set runs `deinit`, which would close the descriptor a second time (`subscribe` reconnects
    /// in a loop).
    init(path: String) throws {
        self.path = path
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(s)
            throw UserError("socket path \(path) is too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard r == 0 else {
            let code = errno
            let why = String(cString: strerror(code))
            close(s)
            throw UserError(Self.connectFailure(path: path, errno: code, why: why))
        }
        fd = s
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

    /// Sends `command` as its JSON line.
    func send(_ command: Command) throws {
        let bytes = command.json + [0x0A]
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

    /// The next line, with its JSON (`JSONDocument`'s reading); nil when the daemon closed the
    /// connection.
    func object() -> ReplyLine? { line().map(ReplyLine.init) }
}
