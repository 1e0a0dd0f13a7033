import Dispatch
import Geo
import NMEA
import Synchronization

/// A log read on a thread of its own, a batch of fixes at a time, while the caller works on the
/// fixes already read (and, at first, on whatever it does before it wants them, such as loading
/// the fences): parsing takes one core, what follows it the other. At most `depth` batches wait
/// at once, so memory does not grow with the log.
public final class ReadAhead: Sendable {
    /// Fixes in a batch, and how many bytes of the log were read when it closed.
    struct Batch: Sendable {
        var fixes: [Fix]
        var bytesRead: Int
    }

    private struct Shared {
        var waiting: [Batch] = []  // at most `depth`
        var end: Result<NMEAStats, LogFileError>?
        var stopped = false
        /// Batches' arrays the caller is done with, for the reader to fill again: a new array
        /// for each batch cost a fresh allocation and its pages.
        var spare: [[Fix]] = []
    }

    private let free: DispatchSemaphore
    private let ready = DispatchSemaphore(value: 0)
    private let shared = Mutex(Shared())

    /// Starts reading `log` at once; from then on only this reader uses it.
    public init(_ log: LogFile, batch: Int = 4_096, depth: Int = 8) {
        // Made at 0 and raised to `depth`: libdispatch traps when a semaphore is freed below the
        // value it was made with, which a reader whose fixes were never taken (the caller failed
        // before it asked for them) would leave.
        free = DispatchSemaphore(value: 0)
        for _ in 0..<depth { free.signal() }
        nonisolated(unsafe) let log = log
        DispatchQueue(label: "treeline.read-ahead").async { [self] in
            var fixes: [Fix] = []
            fixes.reserveCapacity(batch)
            var bytesRead = 0
            let outcome = Result { () throws(LogFileError) in
                try log.replay(progress: { bytesRead = $0 }) { fix in
                    fixes.append(fix)
                    if fixes.count == batch {
                        self.put(Batch(fixes: fixes, bytesRead: bytesRead))
                        fixes = self.shared.withLock { $0.spare.popLast() } ?? []
                        fixes.reserveCapacity(batch)
                    }
                }
            }
            if !fixes.isEmpty { put(Batch(fixes: fixes, bytesRead: bytesRead)) }
            shared.withLock { $0.end = outcome }
            ready.signal()
        }
    }

    /// Waits for room, unless the reader has been left (then the batch is dropped).
    private func put(_ batch: Batch) {
        if shared.withLock({ $0.stopped }) { return }
        free.wait()
        shared.withLock { s in
            if !s.stopped { s.waiting.append(batch) }
        }
        ready.signal()
    }

    /// Every fix of the log in order, with the bytes read so far; then the reader's statistics.
    /// Call once.
    public func forEach(_ body: (Fix, _ bytesRead: Int) -> Void) throws(LogFileError) -> NMEAStats {
        defer {
            // Left early (the body's caller gave up): the reader, if it waits for room, goes on
            // to its end keeping nothing.
            shared.withLock { $0.stopped = true }
            free.signal()
        }
        while true {
            ready.wait()
            let next: Result<Batch, LogFileError>? = shared.withLock { s in
                if !s.waiting.isEmpty { return .success(s.waiting.removeFirst()) }
                return s.end.map { $0.map { _ in Batch(fixes: [], bytesRead: 0) } }
            }
            switch consume next {
            case .success(var batch)? where !batch.fixes.isEmpty:
                free.signal()
                for fix in batch.fixes { body(fix, batch.bytesRead) }
                batch.fixes.removeAll(keepingCapacity: true)
                let done = batch.fixes
                shared.withLock { $0.spare.append(done) }
            case let .failure(error)?:
                throw error
            default:
                return try shared.withLock { $0.end! }.get()
            }
        }
    }
}
