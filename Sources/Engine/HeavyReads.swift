/// Lets one heavy read compute at a time. Reads are answered beside the engine's actor, on
/// Swift's shared pool of threads, which has one thread per core: two long rounds at once on a
/// 2-core board would hold every thread, and fixes and commands would wait for them. Through
/// this gate at most one thread computes a heavy read; the others wait suspended (holding no
/// thread).
///
/// - Layouts (the AR view's, every second or so) go before rounds, plans and the trails list,
///   so a queue of rounds never freezes the camera view; each kind waits in the order it came.
/// - Past `maxWaiting` a read is refused at once, with a message, instead of queuing without end.
/// - A read whose client has gone (its task cancelled) leaves the queue, and is not computed if
///   its turn had come.
package actor HeavyReads {
    package static let maxWaiting = 64

    /// Which queue a read waits in.
    package enum Kind: Sendable { case layout, other }

    /// Why a read was not computed.
    package enum Refusal: Error, Sendable { case busy, cancelled }

    private struct Waiter {
        var id: UInt64
        var resume: CheckedContinuation<Bool, Never>
    }

    private var busy = false
    private var layouts: [Waiter] = []
    private var others: [Waiter] = []
    private var nextID: UInt64 = 0

    package init() {}

    /// How many reads wait for their turn (for the tests).
    package var waiting: Int { layouts.count + others.count }

    /// Runs `work` when its turn comes.
    package nonisolated func run<T: Sendable>(_ kind: Kind, _ work: @Sendable () async -> T) async -> Result<T, Refusal> {
        let id = await ticket()
        let entered = await withTaskCancellationHandler {
            await enter(kind, id: id)
        } onCancel: {
            Task { await self.cancel(id) }
        }
        guard let turn = entered else { return .failure(.busy) }
        guard turn, !Task.isCancelled else {
            if turn { await leave() }
            return .failure(.cancelled)
        }
        let result = await work()
        await leave()
        return .success(result)
    }

    private func ticket() -> UInt64 {
        nextID += 1
        return nextID
    }

    /// True when the turn came, false when cancelled while waiting, nil when refused.
    private func enter(_ kind: Kind, id: UInt64) async -> Bool? {
        if !busy {
            busy = true
            return true
        }
        guard layouts.count + others.count < Self.maxWaiting else { return nil }
        return await withCheckedContinuation { c in
            if kind == .layout { layouts.append(Waiter(id: id, resume: c)) } else { others.append(Waiter(id: id, resume: c)) }
        }
    }

    private func cancel(_ id: UInt64) {
        if let k = layouts.firstIndex(where: { $0.id == id }) {
            layouts.remove(at: k).resume.resume(returning: false)
        } else if let k = others.firstIndex(where: { $0.id == id }) {
            others.remove(at: k).resume.resume(returning: false)
        }
    }

    /// The turn passes to the next waiter (layouts first; `busy` stays true), or the gate opens.
    private func leave() {
        if !layouts.isEmpty {
            layouts.removeFirst().resume.resume(returning: true)
        } else if !others.isEmpty {
            others.removeFirst().resume.resume(returning: true)
        } else {
            busy = false
        }
    }
}
