import Engine
import Synchronization
import Testing

/// A read that waits until `release` is called, so the gate stays held meanwhile.
final class Hold: Sendable {
    let released = Mutex<CheckedContinuation<Void, Never>?>(nil)
    let started = Atomic<Bool>(false)
    func work() async {
        await withCheckedContinuation { c in
            released.withLock { $0 = c }
            started.store(true, ordering: .releasing)
        }
    }
    func release() { released.withLock { $0?.resume(); $0 = nil } }
}

/// What the reads did, in order.
final class Log: Sendable {
    let items = Mutex<[String]>([])
    func add(_ s: String) { items.withLock { $0.append(s) } }
    var all: [String] { items.withLock { $0 } }
}

/// The gate of heavy reads, driven step by step: a first read holds the gate until the test
/// lets it go, and the order in which the others run is compared as a sequence.
struct HeavyReadsTests {
    /// Waits (at most 10 s) until `condition` holds.
    static func until(_ condition: () async -> Bool) async {
        var waited = 0
        while !(await condition()), waited < 10_000 {
            try? await Task.sleep(for: .milliseconds(1))
            waited += 1
        }
    }

    @Test func layoutsGoBeforeTheOthersAndEachKindInTurn() async {
        let gate = HeavyReads()
        let hold = Hold()
        let order = Log()
        let first = Task { await gate.run(.other) { await hold.work() } }
        await Self.until { hold.started.load(ordering: .acquiring) }
        var tasks: [Task<Void, Never>] = []
        for (name, kind) in [("round 1", HeavyReads.Kind.other), ("round 2", .other), ("layout 1", .layout), ("layout 2", .layout)] {
            tasks.append(Task { _ = await gate.run(kind) { order.add(name) } })
            let queued = tasks.count
            await Self.until { await gate.waiting == queued }
        }
        hold.release()
        _ = await first.value
        for t in tasks { await t.value }
        #expect(order.all == ["layout 1", "layout 2", "round 1", "round 2"])
        #expect(await gate.waiting == 0)
    }

    @Test func aReadWhoseClientWentAwayIsNotComputed() async {
        let gate = HeavyReads()
        let hold = Hold()
        let ran = Log()
        let first = Task { await gate.run(.other) { await hold.work() } }
        await Self.until { hold.started.load(ordering: .acquiring) }
        let gone = Task { await gate.run(.other) { ran.add("gone") } }
        await Self.until { await gate.waiting == 1 }
        let stays = Task { await gate.run(.other) { ran.add("stays") } }
        await Self.until { await gate.waiting == 2 }
        gone.cancel()
        await Self.until { await gate.waiting == 1 }
        hold.release()
        _ = await first.value
        guard case .failure(.cancelled) = await gone.value else { Issue.record("the cancelled read was not refused as cancelled"); return }
        guard case .success = await stays.value else { Issue.record("the read that stayed was not computed"); return }
        #expect(ran.all == ["stays"])
    }

    @Test func pastTheLimitAReadIsRefusedAtOnce() async {
        let gate = HeavyReads()
        let hold = Hold()
        let first = Task { await gate.run(.other) { await hold.work() } }
        await Self.until { hold.started.load(ordering: .acquiring) }
        let waiting = (0..<HeavyReads.maxWaiting).map { _ in Task { await gate.run(.other) { 1 } } }
        await Self.until { await gate.waiting == HeavyReads.maxWaiting }
        guard case .failure(.busy) = await gate.run(.layout, { 1 }) else { Issue.record("the 65th read was not refused"); return }
        hold.release()
        _ = await first.value
        var computed = 0
        for t in waiting { if case .success = await t.value { computed += 1 } }
        #expect(computed == HeavyReads.maxWaiting)
    }
}
