#if canImport(Glibc)
import Glibc
#endif
import Geo

extension UTCTime {
    /// The system clock (CLOCK_REALTIME): for times no fix gives (before the first fix, retention).
    package static var now: UTCTime {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UTCTime(nanoseconds: Int64(ts.tv_sec) * UTCTime.nanosPerSecond + Int64(ts.tv_nsec))
    }
}

/// Monotonic clock, nanoseconds (the same clock in every process on the machine).
package func monotonicNanos() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}
