import Logging
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// Why the socket could not be opened: the path and what to do.
public struct SocketError: Error, CustomStringConvertible, Sendable {
    public var description: String
}
