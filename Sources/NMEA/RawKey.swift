#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// A short field's bytes, for comparing without parsing.
@usableFromInline
struct RawKey: Equatable {
    @usableFromInline var lo: UInt64
    @usableFromInline var hi: UInt64
    @inlinable init(lo: UInt64, hi: UInt64) {
        self.lo = lo
        self.hi = hi
    }
}
