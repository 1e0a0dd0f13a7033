import NIOConcurrencyHelpers
import NIOCore
import Store

/// The subscribers of every transport: the socket's connections and the streams other
/// transports read (`EventStream`, for HTTP's Server-Sent Events). `publish` hands a batch to
/// each and returns at once: the monitor never waits for a client.
public final class Hub: Sendable {
    enum Subscriber: Sendable {
        case connection(any EventLoop, NIOLoopBound<ConnectionHandler>, positions: Bool)
        case stream(EventStream.Mailbox)

        var wantsPositions: Bool {
            switch self {
            case let .connection(_, _, positions): positions
            case .stream(let m): m.positions
            }
        }
    }

    private struct Entries {
        var all: [ObjectIdentifier: Subscriber] = [:]
        /// How many want `POSITION` lines (none: the engine need not write them).
        var positions = 0
    }

    private let entries = NIOLockedValueBox(Entries())

    public init() {}

    func add(_ handler: ConnectionHandler, on loop: any EventLoop, positions: Bool) {
        add(.connection(loop, NIOLoopBound(handler, eventLoop: loop), positions: positions), key: ObjectIdentifier(handler))
    }

    func remove(_ handler: ConnectionHandler) { remove(key: ObjectIdentifier(handler)) }

    func add(_ mailbox: EventStream.Mailbox) { add(.stream(mailbox), key: ObjectIdentifier(mailbox)) }

    func remove(_ mailbox: EventStream.Mailbox) { remove(key: ObjectIdentifier(mailbox)) }

    private func add(_ s: Subscriber, key: ObjectIdentifier) {
        entries.withLockedValue {
            $0.all[key] = s
            if s.wantsPositions { $0.positions += 1 }
        }
    }

    private func remove(key: ObjectIdentifier) {
        entries.withLockedValue {
            if let s = $0.all.removeValue(forKey: key), s.wantsPositions { $0.positions -= 1 }
        }
    }

    /// How many are subscribed, on every transport.
    public var count: Int { entries.withLockedValue { $0.all.count } }

    /// Whether anyone asked for positions.
    public var wantsPositions: Bool { entries.withLockedValue { $0.positions > 0 } }

    /// Sends a committed batch to every subscriber (each filters it for itself).
    public func publish(_ batch: Batch) {
        guard !batch.events.isEmpty else { return }
        for s in entries.withLockedValue({ Array($0.all.values) }) {
            switch s {
            case let .connection(loop, handler, _): loop.execute { handler.value.deliver(batch) }
            case .stream(let mailbox): mailbox.deliver(batch)
            }
        }
    }

    /// Sends a `POSITION` line (`{"class":"POSITION",…}`, no newline) to those who asked.
    public func publish(position line: [UInt8]) {
        for s in entries.withLockedValue({ $0.positions > 0 ? Array($0.all.values) : [] }) where s.wantsPositions {
            switch s {
            case let .connection(loop, handler, _): loop.execute { handler.value.deliver(position: line) }
            case .stream(let mailbox): mailbox.deliver(position: line)
            }
        }
    }
}
