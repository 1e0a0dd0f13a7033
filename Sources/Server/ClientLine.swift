import NIOCore

/// What a client sent: one line (without its newline), or a line that was too long (its bytes
/// are dropped up to the next newline, so the connection goes on).
public enum ClientLine: Equatable, Sendable {
    case line(ByteBuffer)
    case tooLong(Int)
}
