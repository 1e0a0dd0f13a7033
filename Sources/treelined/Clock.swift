#if canImport(Glibc)
import Glibc
#endif
import Geo

extension UTCTime {
    /// The system clock (CLOCK_REALTIME): for times no fix gives (before the first fix, retention).
    static var now: UTCTime {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UTCTime(nanoseconds: Int64(ts.tv_sec) * UTCTime.nanosPerSecond + Int64(ts.tv_nsec))
    }
}
