import Foundation
import Geo
import Synchronization

/// Tells the reader thread to stop; it checks at least every 50 ms while waiting.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }

    /// Sleeps `seconds`, in slices, returning early once set.
    func pause(_ seconds: Double) {
        let end = GPSDClient.now() + seconds
        while !isSet {
            let left = end - GPSDClient.now()
            if left <= 0 { return }
            usleep(UInt32(min(left, 0.05) * 1e6))
        }
    }
}
