import Logging
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// The Unix-domain socket clients connect to: bound at `path` (mode 0660, group `treeline` when
/// that group exists), or handed over by systemd (socket activation).
public final class SocketServer: Sendable {
    public enum Listener: Sendable {
        case path(String)
        /// A listening socket systemd passed (LISTEN_FDS), with the path it is known by.
        case descriptor(CInt, path: String)
    }

    public let path: String
    private let channel: any Channel

    private init(channel: any Channel, path: String) {
        self.channel = channel
        self.path = path
    }

    /// Opens the listener and serves connections until `close`.
    public static func start(_ listener: Listener, group: any EventLoopGroup, delegate: any ServerDelegate, hub: Hub,
                             queueLimit: Int, logger: Logger) async throws -> SocketServer {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = ConnectionHandler(delegate: delegate, hub: hub, queueLimit: queueLimit, logger: logger)
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
        switch listener {
        case let .descriptor(fd, path):
            let channel = try await bootstrap.withBoundSocket(fd).get()
            return SocketServer(channel: channel, path: path)
        case .path(let path):
            try removeStale(path)
            let channel: any Channel
            do {
                channel = try await bootstrap.bind(unixDomainSocketPath: path).get()
            } catch {
                throw SocketError(description: "cannot listen on \(path): \(error) — check that its folder exists and is writable by this user")
            }
            // Owner and group may connect; the group is `treeline` where it exists.
            chmod(path, 0o660)
            if let group = getgrnam("treeline") { _ = chown(path, uid_t.max, group.pointee.gr_gid) }
            return SocketServer(channel: channel, path: path)
        }
    }

    /// A socket file left by a daemon that died is removed; one that a live daemon answers on is
    /// an error, not something to take over.
    static func removeStale(_ path: String) throws {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        guard (st.st_mode & S_IFMT) == S_IFSOCK else {
            throw SocketError(description: "\(path) exists and is not a socket: remove it, or set socket: in the config to another path")
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw SocketError(description: "socket path \(path) is longer than \(MemoryLayout.size(ofValue: address.sun_path) - 1) bytes: choose a shorter one")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if connected == 0 {
            throw SocketError(description: "another treelined is listening on \(path): stop it first (systemctl stop treelined), or set socket: to another path")
        }
        unlink(path)
    }

    /// Stops accepting and closes the listener (the file goes too, when this process bound it).
    public func close() async {
        try? await channel.close()
    }
}
