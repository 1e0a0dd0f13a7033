import Geo
import Logging
import NIOCore
import Store
import JSON
import Protocol

/// One client: answers its commands in order, and when it subscribes sends it the journal from
/// `since` and then live events, without a gap or a repeat at the seam.
///
/// Everything here runs on the connection's event loop. Catching up reads the journal a page at a
/// time, as fast as the client reads (no queue). Live events go straight to the socket while it
/// takes them, else into a queue of at most `queueLimit`; past that the client gets
/// `{"class":"ERROR","lagged":true,"seq":N}` (N: the last event handed to its socket) and is
/// closed, to resume with `since`.
///
/// Back-pressure: a client costs a bounded amount whatever it sends. Lines are taken from its
/// input only while its socket takes the answers (the channel is writable) and fewer than
/// `maxWaiting` commands wait; otherwise the bytes stay unread in its socket (no `read` is
/// passed on) until the answers drain. A client that writes without reading blocks itself.
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Commands taken in and not yet answered, at most.
    static let maxWaiting = 16

    struct Subscription {
        var filter: EventFilter
        var timing: Bool
        /// The last seq handed to the socket or passed over by the filter.
        var lastSeq: Int64
        /// Within a `base_layer` record's region events (`base_regions`): the last part sent.
        var lastPart: Int64?
        var catchingUp: Bool
        var queue = CircularBuffer<(JournalEvent, ByteBuffer, UInt64?)>()
    }

    let delegate: any ServerDelegate
    let hub: Hub
    let queueLimit: Int
    let logger: Logger
    private var context: ChannelHandlerContext?
    private var subscription: Subscription?
    /// Commands waiting for the one before to be answered: replies go out in request order.
    private var requests = CircularBuffer<Command>()
    private var busy = false
    /// The task answering the command in hand, cancelled if the client goes away.
    private var inFlight: Task<Void, Never>?
    private var inputClosed = false
    private var closing = false
    /// Bytes read and not yet taken as lines (at most what one read loop brings, since reading
    /// stops while lines are not being taken).
    private var input: ByteBuffer?
    private var framer: LineFramer
    /// A `read` held back until the client reads its answers.
    private var readHeld = false
    private var takingLines = false
    /// `pump` is running (a flush inside it can call it again).
    private var pumping = false

    init(delegate: any ServerDelegate, hub: Hub, queueLimit: Int, logger: Logger, maximumLine: Int = 64 * 1024) {
        self.delegate = delegate
        self.hub = hub
        self.queueLimit = queueLimit
        self.logger = logger
        self.framer = LineFramer(maximum: maximumLine)
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func channelActive(context: ChannelHandlerContext) {
        var out: [UInt8] = []
        out.append(contentsOf: #"{"class":"HELLO","version":"#.utf8)
        JSONBytes.appendString(delegate.version, to: &out)
        out.append(contentsOf: #","seq":"#.utf8)
        out.append(contentsOf: String(delegate.lastSeq()).utf8)
        out.append(contentsOf: "}\n".utf8)
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: out)), promise: nil)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        inFlight?.cancel()
        inFlight = nil
        if subscription != nil { hub.remove(self) }
        subscription = nil
        self.context = nil
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(.inputClosed) = event as? ChannelEvent {
            // `echo '{"cmd":"state"}' | nc -U …`: answer, then close unless subscribed.
            inputClosed = true
            closeIfDone()
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func closeIfDone() {
        guard inputClosed, subscription == nil, !busy, requests.isEmpty, let context else { return }
        // Lines still unread wait for the answers before them; a last line without its newline
        // is not a command.
        // (Probed on copies: the framer's own state and the input stay as they are.)
        var probe = framer
        if var rest = input, probe.next(&rest) != nil { return }
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if input == nil || input!.readableBytes == 0 {
            input = bytes
        } else {
            input!.writeBuffer(&bytes)
        }
        takeLines()
    }

    /// Whether another line may be taken now: its answer has room to go out.
    private var canTakeLine: Bool {
        guard let context, !closing else { return false }
        return context.channel.isWritable && requests.count < Self.maxWaiting
    }

    /// Takes the lines that can be answered now; passes on a held `read` once all are taken.
    private func takeLines() {
        // Not again from within: a command answered at once comes back here through `next()`.
        guard !takingLines else { return }
        takingLines = true
        defer { takingLines = false }
        while canTakeLine, var buffer = input {
            input = nil  // not held while a line is handled (no copy on write)
            let line = framer.next(&buffer)
            input = buffer
            guard let line else { break }
            switch line {
            case .tooLong(let n):
                reply(error: "line of \(n) bytes is over the limit of \(framer.maximum / 1024) KiB: send one command per line")
            case .line(let line):
                let bytes = line.readableBytesView
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }  // blank lines are allowed
                do {
                    handle(try Command.parse(bytes))
                } catch {
                    reply(error: error.message)
                }
            }
        }
        if let buffer = input, buffer.readableBytes == 0 { input = nil } else { input?.discardReadBytes() }
        if readHeld, canTakeLine, let context {
            readHeld = false
            context.read()
        }
        closeIfDone()
    }

    /// The channel asks for more input: passed on only while lines are being taken.
    func read(context: ChannelHandlerContext) {
        if canTakeLine { context.read() } else { readHeld = true }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            pump()
            takeLines()
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("client connection: \(error)")
        context.close(promise: nil)
    }

    // MARK: commands

    private func handle(_ request: Command) {
        requests.append(request)
        next()
    }

    /// Runs the next command once the one before it has been answered.
    private func next() {
        guard !busy, let context else { return }
        guard let request = requests.popFirst() else {
            takeLines()
            return
        }
        let delegate = self.delegate
        let work: @Sendable () async -> Result<[UInt8], CommandError>
        switch request {
        case .subscribe(let s):
            guard let wanted = s.filter.regions else {
                subscribe(s)
                next()
                return
            }
            busy = true
            let loop = context.eventLoop
            let promise = loop.makePromise(of: Set<String>.self)
            promise.completeWithTask { await delegate.regionIDs() }
            let this = NIOLoopBound(self, eventLoop: loop)
            promise.futureResult.whenSuccess { ids in
                let handler = this.value
                handler.busy = false
                if let message = Subscribe.unknownRegions(wanted, inForce: ids) {
                    handler.reply(error: message)
                } else {
                    handler.subscribe(s)
                }
                handler.next()
            }
            return
        default:
            work = { await delegate.answer(request) }
        }
        busy = true
        let loop = context.eventLoop
        let promise = loop.makePromise(of: Result<[UInt8], CommandError>.self)
        // Kept, so that a client that goes away cancels its read (a round waiting its turn is
        // then not computed for no one); a change runs to its end either way.
        inFlight = Task { promise.succeed(await work()) }
        let this = NIOLoopBound(self, eventLoop: loop)
        promise.futureResult.whenSuccess { result in
            this.value.inFlight = nil
            this.value.answered(result)
        }
    }

    private func answered(_ result: Result<[UInt8], CommandError>) {
        busy = false
        switch result {
        case .success(let json): write(line: json)
        case .failure(let e): reply(error: e.message)
        }
        next()
    }

    private func write(line json: [UInt8]) {
        guard let context, !closing else { return }
        var buffer = context.channel.allocator.buffer(capacity: json.count + 1)
        buffer.writeBytes(json)
        buffer.writeInteger(UInt8(0x0A))
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }

    private func reply(error message: String) { write(line: CommandError(message).json) }

    // MARK: subscription

    private func subscribe(_ request: Subscribe) {
        guard let context else { return }
        if subscription != nil {
            reply(error: "already subscribed on this connection: open another connection for another subscription")
            return
        }
        // In the hub before the last seq is read: a batch published in between reaches this
        // loop after this step, when the subscription is set (and seqs at or below it are passed over).
        hub.add(self, on: context.eventLoop, positions: request.positions)
        let last = delegate.lastSeq()
        if let message = Subscribe.resumeProblem(request, last: last, journal: delegate.store.journal) {
            hub.remove(self)
            reply(error: message)
            return
        }
        if let line = Subscribe.prunedLine(since: request.since, pruned: delegate.prunedThrough()) { write(line: line) }
        subscription = Subscription(filter: request.filter, timing: request.timing, lastSeq: request.since ?? last, lastPart: request.part,
                                    catchingUp: request.since != nil)
        write(line: Subscribe.subscribedLine(since: request.since ?? last, journal: delegate.store.journal))
        pump()
    }

    /// Sends what can be sent now: journal pages while catching up, else the queue.
    ///
    /// The subscription is changed in place, never through a copy written back later: a flush
    /// below can drain the socket, which calls `channelWritabilityChanged` and so `pump` again
    /// from inside this one. A copy would then still hold the old `lastSeq`, and the inner call
    /// would send the same pages again (every event of a long catch-up twice). The inner call now
    /// returns at once; this loop goes on while the channel takes more.
    private func pump() {
        guard !pumping else { return }
        pumping = true
        defer { pumping = false }
        while let context, !closing, let s = subscription, s.catchingUp, context.channel.isWritable {
            let page: JournalPage
            do {
                page = try delegate.store.page(after: JournalCursor(seq: s.lastSeq, part: s.lastPart), filter: s.filter, limit: Self.pageSize)
            } catch {
                logger.error("\(error)")
                reply(error: "cannot read the journal: \(error.description)")
                return
            }
            var scratch: [UInt8] = []
            for e in page.events {
                scratch.removeAll(keepingCapacity: true)
                e.appendLine(to: &scratch)
                context.write(wrapOutboundOut(ByteBuffer(bytes: scratch)), promise: nil)
            }
            subscription?.lastSeq = page.next.seq
            subscription?.lastPart = page.next.part
            if !page.events.isEmpty { context.flush() }
            // Read and switch in one step on this loop: an event committed after this read is
            // published here after it, and so comes live.
            if page.atEnd {
                subscription?.catchingUp = false
                break
            }
        }
        guard let context, !closing, subscription?.catchingUp == false else { return }
        // No copy of the subscription is held while its queue changes: a copy would make every
        // pop (and every append in `deliver`) copy the whole queue.
        let timing = subscription?.timing ?? false
        var wrote = false
        while context.channel.isWritable, let (e, line, received) = subscription?.queue.popFirst() {
            subscription?.lastSeq = e.seq
            send(e, line, received, timing: timing, context: context)
            wrote = true
        }
        if wrote { context.flush() }
    }

    /// Journal events read at a time while catching up.
    static let pageSize = 256

    private func send(_ e: JournalEvent, _ line: ByteBuffer, _ received: UInt64?, timing: Bool, context: ChannelHandlerContext) {
        guard timing, let received else {
            context.write(wrapOutboundOut(line), promise: nil)
            return
        }
        var timed = line
        timed.moveWriterIndex(to: timed.writerIndex - 2)  // drop "}\n"
        timed.writeString(#","received_ns":\#(received)}"#)
        timed.writeInteger(UInt8(0x0A))
        context.write(wrapOutboundOut(timed), promise: nil)
    }

    /// A committed batch from the hub. As in `pump`, the subscription is changed in place: the
    /// flush at the end may run `pump` (through a writability change), which takes from the queue.
    func deliver(_ batch: Batch) {
        // While catching up the journal has these (they were committed before being published).
        guard let context, !closing, let filter = subscription?.filter, let timing = subscription?.timing,
              subscription?.catchingUp == false else { return }
        var wrote = false
        for (k, e) in batch.events.enumerated() {
            // Each seq once: what the catch-up or an earlier batch sent is passed over. Scalars
            // only are read: no copy of the subscription is held while its queue grows.
            guard let lastSeq = subscription?.lastSeq, e.seq > lastSeq, (subscription?.queue.last?.0.seq ?? lastSeq) < e.seq else { continue }
            if filter.baseRegions && e.entry.type == "base_layer" {
                // Its region events are read from the journal, a page at a time: back to
                // catching up from what was sent (the queue's events are in the journal too).
                if wrote { context.flush() }
                subscription?.queue.removeAll()
                subscription?.catchingUp = true
                pump()
                return
            }
            let queueEmpty = subscription?.queue.isEmpty ?? true
            guard filter.matches(e.entry) else {
                if queueEmpty { subscription?.lastSeq = e.seq }
                continue
            }
            if queueEmpty && context.channel.isWritable {
                send(e, batch.lines[k], batch.receivedNanos, timing: timing, context: context)
                subscription!.lastSeq = e.seq
                wrote = true
            } else {
                subscription!.queue.append((e, batch.lines[k], batch.receivedNanos))
                if subscription!.queue.count > queueLimit {
                    if wrote { context.flush() }
                    lagged(at: subscription?.lastSeq ?? e.seq, context: context)
                    return
                }
            }
        }
        if wrote { context.flush() }
    }

    /// A `POSITION` line from the hub: sent only when nothing waits before it and the socket
    /// takes it now; otherwise dropped (the next fix's says more than a stale one).
    func deliver(position line: [UInt8]) {
        guard let context, let s = subscription, !closing, !s.catchingUp, s.queue.isEmpty, context.channel.isWritable else { return }
        write(line: line)
    }

    private func lagged(at seq: Int64, context: ChannelHandlerContext) {
        closing = true
        hub.remove(self)
        subscription = nil
        logger.notice("a subscriber stopped reading: closed after seq \(seq) (its queue passed \(queueLimit) events)")
        var out = Subscribe.laggedLine(seq: seq)
        out.append(0x0A)
        // Close once the line is out, or after a minute if the client never reads it (then it
        // finds the end of the stream and resumes after the last seq it did read).
        let channel = context.channel
        let done = context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: out)))
        let timeout = channel.eventLoop.scheduleTask(in: .seconds(60)) { channel.close(promise: nil) }
        done.whenComplete { _ in
            timeout.cancel()
            channel.close(promise: nil)
        }
    }
}
