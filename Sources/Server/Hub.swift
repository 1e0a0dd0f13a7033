import NIOConcurrencyHelpers
import NIOCore
import Store

/// The subscribers of all connections. `publish` hands a batch to each subscriber's event loop
/// and returns at once: the monitor never waits for a client.
public final class Hub: Sendable {
    struct Entry: Sendable {
        let loop: any EventLoop
        let handler: NIOLoopBound<ConnectionHandler>
    }

    private let entries = NIOLockedValueBox<[ObjectIdentifier: Entry]>([:])

    public init() {}

    func add(_ handler: ConnectionHandler, on loop: any EventLoop) {
        let entry = Entry(loop: loop, handler: NIOLoopBound(handler, eventLoop: loop))
        entries.withLockedValue { $0[ObjectIdentifier(handler)] = entry }
    }

    func remove(_ handler: ConnectionHandler) {
        _ = entries.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(handler)) }
    }

    /// How many connections are subscribed.
    public var count: Int { entries.withLockedValue { $0.count } }

    /// Sends a committed batch to every subscriber (each filters it for itself).
    public func publish(_ batch: Batch) {
        guard !batch.events.isEmpty else { return }
        let all = entries.withLockedValue { Array($0.values) }
        for entry in all {
            let handler = entry.handler
            entry.loop.execute { handler.value.deliver(batch) }
        }
    }
}
