import NIOConcurrencyHelpers
import NIOCore
import Store

/// One fix's events as committed, ready to send: each with its line (`{"class":"EVENT",…}\n`),
/// encoded once for every subscriber, and when the daemon received the fix (monotonic clock, ns).
public struct Batch: Sendable {
    public var events: [JournalEvent]
    public var lines: [ByteBuffer]
    public var receivedNanos: UInt64?

    public init(_ events: [JournalEvent], receivedNanos: UInt64? = nil) {
        self.events = events
        self.receivedNanos = receivedNanos
        var scratch: [UInt8] = []
        lines = events.map { e in
            scratch.removeAll(keepingCapacity: true)
            e.appendLine(to: &scratch)
            return ByteBuffer(bytes: scratch)
        }
    }
}
