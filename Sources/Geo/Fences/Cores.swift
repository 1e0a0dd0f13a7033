import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loading work spread over the machine's cores: reading a country's features and building its
/// fences, each on its own, written to its own slot, taken in order after.
package enum Cores {
    /// The threads that share the work: the cores, at most 8.
    package static let count = max(1, min(8, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    /// Below this many items one thread does it all (starting the others costs more).
    package static let worthIt = 2_048
    /// Items taken at a time, so that what one block builds is let go before the next.
    package static let block = 4_096

    /// `make(k)` for every k in `0..<n`, a block at a time across the cores (`forEach`), each
    /// block's results then handed to `take(k, result)` in order on the calling thread and let go:
    /// the outcome of one thread, at most a block held at once.
    package static func inOrder<T>(_ n: Int, parallel: Bool = true, make: (Int) -> T, take: (Int, T) -> Void) {
        var results = [T?](repeating: nil, count: min(n, block))
        // Worth it for the whole, worth it for each block (the last may be short).
        let parallel = parallel && n >= worthIt
        var start = 0
        while start < n {
            let count = min(block, n - start), first = start
            results.withUnsafeMutableBufferPointer { buffer in
                let out = buffer
                forEach(count, parallel: parallel, worthIt: 2) { out[$0] = make(first + $0) }
            }
            for k in 0..<count {
                take(first + k, results[k]!)
                results[k] = nil
            }
            start += count
        }
    }

    /// Calls `body(k)` once for every k in `0..<n`, across the cores when `n` is worth it and
    /// `parallel`; returns once all have run. `body` must touch only what is k's own.
    /// `worthIt`: the fewest items to spread (the caller may know the work is worth it).
    package static func forEach(_ n: Int, parallel: Bool = true, worthIt: Int = worthIt, _ body: (Int) -> Void) {
        guard parallel, n >= worthIt, count > 1 else {
            for k in 0..<n { body(k) }
            return
        }
        withoutActuallyEscaping(body) { body in
            nonisolated(unsafe) let work = body
            let workers = count
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                for k in stride(from: w, to: n, by: workers) { work(k) }
            }
        }
    }
}
