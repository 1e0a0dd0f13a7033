/// Lets one heavy read (a round, a plan, a layout) compute at a time. Reads are answered beside
/// the engine's actor, on Swift's shared pool of threads, which has one thread per core: two
/// long rounds at once on a 2-core board would hold every thread, and fixes and commands would
/// wait for them. Through this gate at most one thread computes a heavy read; the others wait
/// suspended (holding no thread), in the order they came, and past `maxWaiting` a read is
/// refused at once, with a message, instead of queuing without end.
package actor HeavyReads {
    package static let maxWaiting = 64
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var head = 0

    package init() {}

    /// Runs `work` when its turn comes; nil (refused) when `maxWaiting` reads wait already.
    package nonisolated func run<T: Sendable>(_ work: @Sendable () async -> T) async -> T? {
        guard await enter() else { return nil }
        let result = await work()
        await leave()
        return result
    }

    private func enter() async -> Bool {
        if !busy {
            busy = true
            return true
        }
        guard waiting.count - head < Self.maxWaiting else { return false }
        await withCheckedContinuation { waiting.append($0) }
        return true
    }

    private func leave() {
        guard head < waiting.count else {
            busy = false
            waiting.removeAll(keepingCapacity: true)
            head = 0
            return
        }
        let next = waiting[head]
        head += 1
        next.resume()  // the turn passes on: busy stays true
    }
}
