import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A client of a Unix-domain stream socket, as a subscriber program would be: lines out, lines in.
public final class SocketClient: @unchecked Sendable {
    public let fd: Int32
    private var buffer: [UInt8] = []
    /// Where the unread part of `buffer` starts (consumed lines are dropped in bulk, not one at a
    /// time: a reader that falls behind must not spend its time moving its backlog).
    private var start = 0

    /// `fd` is set only once connected: an init that throws after setting every stored property
    /// runs `deinit`, whose close would then close the descriptor a second time, by then perhaps
    /// another thread's (a daemon's notify socket, a child's pipe), as a test that polls for the
    /// socket did thousands of times.
    public init(path: String) throws {
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard r == 0 else {
            let e = errno
            close(s)
            throw POSIXError(POSIXErrorCode(rawValue: e) ?? .ECONNREFUSED, "cannot connect to \(path)")
        }
        fd = s
    }

    deinit { close(fd) }

    public func send(_ text: String) {
        send(Array(text.utf8))
    }

    public func send(_ bytes: [UInt8]) {
        var at = 0
        while at < bytes.count {
            let n = bytes[at...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            at += n
        }
    }

    /// The next line, or nil at end of stream or after `timeout` seconds without one.
    public func line(timeout: Double = 10) -> String? {
        var waited = 0.0
        while true {
            if let nl = buffer[start...].firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[start..<nl], as: UTF8.self)
                start = nl + 1
                if start == buffer.count {
                    buffer.removeAll(keepingCapacity: true)
                    start = 0
                }
                return line
            }
            if start > 0 {
                buffer.removeSubrange(..<start)
                start = 0
            }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let step = 0.1
            let ready = poll(&p, 1, Int32(step * 1000))
            if ready < 0 && errno == EINTR { continue }  // a child process ended (SIGCHLD)
            if ready <= 0 {
                waited += step
                if waited >= timeout { return nil }
                continue
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// Sends a command and returns the next line.
    public func ask(_ command: String, timeout: Double = 10) -> String? {
        send(command + "\n")
        return line(timeout: timeout)
    }

    public func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }
}

/// A parsed JSON line.
public func json(_ line: String?) -> [String: Any] {
    guard let line else { return [:] }
    return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
}
