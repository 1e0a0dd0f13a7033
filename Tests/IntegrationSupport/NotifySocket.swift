import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A datagram socket standing in for systemd's NOTIFY_SOCKET: what the daemon tells it.
public final class NotifySocket: @unchecked Sendable {
    public let path: String
    let fd: Int32

    public init() throws {
        path = "/tmp/tl-notify-\(UUID().uuidString.prefix(8)).sock"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard r == 0 else { throw POSIXError(.EADDRINUSE, "cannot bind \(path)") }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// Messages until `until` says stop, or `timeout` seconds without one.
    public func read(timeout: Double = 10, until: ([String]) -> Bool) -> [String] {
        var messages: [String] = []
        while !until(messages) {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, Int32(timeout * 1000))
            if ready < 0 && errno == EINTR { continue }  // a child process ended (SIGCHLD)
            guard ready > 0 else { break }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { messages.append(String(decoding: buffer[..<n], as: UTF8.self)) }
        }
        return messages
    }
}
