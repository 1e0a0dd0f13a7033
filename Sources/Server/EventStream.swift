import Geo
import NIOConcurrencyHelpers
import NIOCore
import Store
import Protocol

/// A subscription read as an async sequence, for transports other than the socket (HTTP's
/// Server-Sent Events): the socket's rules, the same checks and messages.
///
/// The journal from `since` comes first, a page at a time as fast as the reader takes it, then
/// live events, with nothing missed or doubled at the seam: the mailbox is in the hub before the
/// journal is read, and a live event at or below the last seq read is passed over. Live events
/// wait in the mailbox, at most `queueLimit`; past that the reader gets
/// `{"class":"ERROR","lagged":true,"seq":N}` and the end, to resume after N. While catching up,
/// an overflowing mailbox is simply emptied: the journal has those events too.
public final class EventStream: Sendable {
    public enum Item: Sendable {
        /// A control line with no seq (`SUBSCRIBED`, the pruned `ERROR`): JSON, no newline.
        case line(ByteBuffer)
        /// A journal event's line (JSON, no newline).
        case event(seq: Int64, ByteBuffer)
        /// A `POSITION` line.
        case position(ByteBuffer)
        /// Nothing came for `keepalive` seconds: a transport may send something to see whether
        /// the reader is still there.
        case keepalive
    }

    private struct Reader {
        var opening: [ByteBuffer]
        var lastSeq: Int64
        /// Within a `base_layer` record's region events: where the journal is read next.
        var cursor: JournalCursor
        var atEnd = false
        var page: [JournalEvent] = []
        var pageIndex = 0
        var ended = false
    }

    let mailbox: Mailbox
    private let hub: Hub
    private let store: Store
    private let filter: EventFilter
    private let reader: NIOLockedValueBox<Reader>

    private init(mailbox: Mailbox, hub: Hub, store: Store, filter: EventFilter, opening: [ByteBuffer], lastSeq: Int64, part: Int64?) {
        self.mailbox = mailbox
        self.hub = hub
        self.store = store
        self.filter = filter
        self.reader = NIOLockedValueBox(Reader(opening: opening, lastSeq: lastSeq, cursor: JournalCursor(seq: lastSeq, part: part)))
    }

    /// Checks the subscription as the socket does and enters it in the hub; the error is the
    /// message the socket would send. `close()` must follow.
    public static func open(_ s: Subscribe, delegate: any ServerDelegate, hub: Hub, queueLimit: Int,
                            keepalive: TimeAmount = .seconds(15)) async -> Result<EventStream, CommandError> {
        if let wanted = s.filter.regions, let message = Subscribe.unknownRegions(wanted, inForce: await delegate.regionIDs()) {
            return .failure(CommandError(message))
        }
        // In the hub before the last seq is read: an event committed in between is in the
        // mailbox (and one at or below the last seq is passed over).
        let mailbox = Mailbox(filter: s.filter, timing: s.timing, positions: s.positions, limit: queueLimit, catchingUp: s.since != nil)
        hub.add(mailbox)
        let last = delegate.lastSeq()
        if let message = Subscribe.resumeProblem(s, last: last, journal: delegate.store.journal) {
            hub.remove(mailbox)
            return .failure(CommandError(message))
        }
        var opening: [ByteBuffer] = []
        if let line = Subscribe.prunedLine(since: s.since, pruned: delegate.prunedThrough()) { opening.append(ByteBuffer(bytes: line)) }
        opening.append(ByteBuffer(bytes: Subscribe.subscribedLine(since: s.since ?? last, journal: delegate.store.journal)))
        mailbox.startKeepalive(every: keepalive)
        return .success(EventStream(mailbox: mailbox, hub: hub, store: delegate.store, filter: s.filter, opening: opening, lastSeq: s.since ?? last, part: s.part))
    }

    /// Leaves the hub; `next` then ends.
    public func close() {
        hub.remove(mailbox)
        mailbox.close()
    }

    /// The next thing to send; nil at the end (after a lagged or failed line, or `close`).
    /// One reader at a time.
    public func next() async -> Item? {
        while true {
            var r = reader.withLockedValue { $0 }
            if r.ended { return nil }
            if !r.opening.isEmpty {
                let line = r.opening.removeFirst()
                reader.withLockedValue { $0 = r }
                return .line(line)
            }
            if mailbox.isCatchingUp {
                if r.pageIndex == r.page.count {
                    if r.atEnd {
                        // Caught up, unless the mailbox overflowed meanwhile: then read on.
                        r.atEnd = false
                        if !mailbox.finishCatchingUp() { r.cursor = JournalCursor(seq: r.lastSeq) }
                        reader.withLockedValue { $0 = r }
                        continue
                    }
                    let page: JournalPage
                    do {
                        page = try store.page(after: r.cursor, filter: filter, limit: 256)
                    } catch {
                        r.ended = true
                        reader.withLockedValue { $0 = r }
                        return .line(ByteBuffer(bytes: CommandError("cannot read the journal: \(error.description)").json))
                    }
                    (r.page, r.pageIndex, r.cursor, r.atEnd) = (page.events, 0, page.next, page.atEnd)
                    r.lastSeq = page.next.seq
                    reader.withLockedValue { $0 = r }
                    continue
                }
                let e = r.page[r.pageIndex]
                r.pageIndex += 1
                reader.withLockedValue { $0 = r }
                var scratch: [UInt8] = []
                e.appendLine(to: &scratch)
                scratch.removeLast()  // the newline
                return .event(seq: e.seq, ByteBuffer(bytes: scratch))
            }
            switch await mailbox.next() {
            case let .event(seq, line):
                guard seq > r.lastSeq else { continue }
                // The cursor too: a `base_layer` record may send this reader back to the journal
                // before it waits again (`catchUpDue` is taken only while waiting).
                reader.withLockedValue {
                    $0.lastSeq = seq
                    $0.cursor = JournalCursor(seq: seq)
                }
                return .event(seq: seq, line)
            case .position(let line):
                return .position(line)
            case .keepalive:
                return .keepalive
            case .catchUp:
                // A `base_layer` record for `base_regions`: its region events come from the journal.
                reader.withLockedValue { $0.cursor = JournalCursor(seq: $0.lastSeq) }
                continue
            case .lagged:
                reader.withLockedValue { $0.ended = true }
                close()
                return .line(ByteBuffer(bytes: Subscribe.laggedLine(seq: r.lastSeq)))
            case .closed:
                reader.withLockedValue { $0.ended = true }
                return nil
            }
        }
    }

    /// Where the hub leaves live events for one stream: bounded, filtered on arrival.
    final class Mailbox: Sendable {
        enum Live {
            case event(Int64, ByteBuffer)
            case position(ByteBuffer)
            case keepalive
            /// Read the journal again from the last event taken (`base_layer` for `base_regions`).
            case catchUp
            case lagged
            case closed
        }

        private struct State {
            var queue = CircularBuffer<(Int64, ByteBuffer)>()
            var position: ByteBuffer?
            var catchingUp: Bool
            /// Emptied while catching up: the journal must be read again before going live.
            var overflowed = false
            var lagged = false
            var keepaliveDue = false
            /// A `base_layer` record came for a `base_regions` reader: it reads the journal again.
            var catchUpDue = false
            var closed = false
            var waiter: CheckedContinuation<Void, Never>?
            var ticker: Task<Void, Never>?
        }

        let filter: EventFilter
        let timing: Bool
        let positions: Bool
        let limit: Int
        private let state: NIOLockedValueBox<State>

        init(filter: EventFilter, timing: Bool, positions: Bool, limit: Int, catchingUp: Bool) {
            self.filter = filter
            self.timing = timing
            self.positions = positions
            self.limit = limit
            state = NIOLockedValueBox(State(catchingUp: catchingUp))
        }

        var isCatchingUp: Bool { state.withLockedValue { $0.catchingUp } }

        /// Goes live unless the mailbox overflowed since the last call (then false: read the
        /// journal again).
        func finishCatchingUp() -> Bool {
            state.withLockedValue {
                if $0.overflowed {
                    $0.overflowed = false
                    return false
                }
                $0.catchingUp = false
                return true
            }
        }

        func deliver(_ batch: Batch) {
            let waiter: CheckedContinuation<Void, Never>? = state.withLockedValue { s in
                guard !s.closed, !s.lagged else { return nil }
                for (k, e) in batch.events.enumerated() {
                    if filter.baseRegions && e.entry.type == "base_layer" {
                        // Its region events are in the journal, read a page at a time; so are
                        // the events queued (and the rest of this batch).
                        s.queue.removeAll()
                        if s.catchingUp { s.overflowed = true } else {
                            s.catchingUp = true
                            s.catchUpDue = true
                        }
                        break
                    }
                    guard filter.matches(e.entry) else { continue }
                    s.queue.append((e.seq, line(batch.lines[k], received: batch.receivedNanos)))
                }
                if s.queue.count > limit {
                    s.queue.removeAll()
                    if s.catchingUp { s.overflowed = true } else { s.lagged = true }
                }
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume()
        }

        func deliver(position line: [UInt8]) {
            let waiter: CheckedContinuation<Void, Never>? = state.withLockedValue { s in
                guard !s.closed else { return nil }
                s.position = ByteBuffer(bytes: line)  // the newest wins; given once live
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume()
        }

        /// The event's line without its newline; with `timing`, with `received_ns`.
        private func line(_ buffer: ByteBuffer, received: UInt64?) -> ByteBuffer {
            var b = buffer
            b.moveWriterIndex(to: b.writerIndex - 1)  // "\n"
            guard timing, let received else { return b }
            b.moveWriterIndex(to: b.writerIndex - 1)  // "}"
            b.writeString(#","received_ns":\#(received)}"#)
            return b
        }

        func startKeepalive(every interval: TimeAmount) {
            let ticker = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(nanoseconds: UInt64(interval.nanoseconds))
                    guard let self else { return }
                    let waiter: CheckedContinuation<Void, Never>? = self.state.withLockedValue { s in
                        s.keepaliveDue = true
                        defer { s.waiter = nil }
                        return s.waiter
                    }
                    waiter?.resume()
                }
            }
            state.withLockedValue { $0.ticker = ticker }
        }

        func close() {
            let (waiter, ticker) = state.withLockedValue { s in
                s.closed = true
                defer {
                    s.waiter = nil
                    s.ticker = nil
                }
                return (s.waiter, s.ticker)
            }
            ticker?.cancel()
            waiter?.resume()
        }

        /// Waits for the next live thing.
        func next() async -> Live {
            while true {
                let ready: Live? = state.withLockedValue { s in
                    if s.closed { return .closed }
                    if s.lagged { return .lagged }
                    if s.catchUpDue {
                        s.catchUpDue = false
                        return .catchUp
                    }
                    if let (seq, line) = s.queue.popFirst() { return .event(seq, line) }
                    if let p = s.position {
                        s.position = nil
                        return .position(p)
                    }
                    if s.keepaliveDue {
                        s.keepaliveDue = false
                        return .keepalive
                    }
                    return nil
                }
                if let ready { return ready }
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                        let now = state.withLockedValue { s -> Bool in
                            if s.closed || s.lagged || s.catchUpDue || !s.queue.isEmpty || s.position != nil || s.keepaliveDue { return true }
                            s.waiter = c
                            return false
                        }
                        if now { c.resume() }
                    }
                } onCancel: {
                    self.close()
                }
            }
        }
    }
}
