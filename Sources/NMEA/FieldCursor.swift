#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// Walks the fields of a sentence body (after the address field, before `*`).
@usableFromInline
struct FieldCursor {
    @usableFromInline var p: UnsafePointer<UInt8>
    @usableFromInline let end: UnsafePointer<UInt8>
    @usableFromInline var done: Bool

    @inlinable init(start: UnsafePointer<UInt8>, end: UnsafePointer<UInt8>) {
        self.p = start
        self.end = end
        self.done = false
    }

    /// The next field; an empty field once the sentence is exhausted. Commas are found eight
    /// bytes at a time (SWAR zero-byte test on the word XOR ",,,,,,,,"), bytes at the tail.
    @inlinable @inline(__always)
    mutating func next() -> Field {
        if done { return Field(base: end, count: 0) }
        let start = p
        var q = p
        while end - q >= 8 {
            let x = UnsafeRawPointer(q).loadUnaligned(as: UInt64.self) ^ 0x2C2C_2C2C_2C2C_2C2C
            let hit = (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
            if hit != 0 {
                q += hit.trailingZeroBitCount >> 3  // little-endian: the lowest flagged byte is the first comma
                p = q + 1
                return Field(base: start, count: q - start)
            }
            q += 8
        }
        while q < end, q.pointee != UInt8(ascii: ",") { q += 1 }
        if q < end { p = q + 1 } else { p = end; done = true }
        return Field(base: start, count: q - start)
    }

    /// How many of the next `n` fields are non-empty, stepping over them (GSA's satellite list).
    @inlinable
    mutating func countNonEmpty(_ n: Int) -> Int {
        var nonEmpty = 0
        for _ in 0..<n {
            if done { break }
            if p < end, p.pointee != UInt8(ascii: ",") {
                nonEmpty += 1
                while p < end, p.pointee != UInt8(ascii: ",") { p += 1 }
            }
            if p < end { p += 1 } else { done = true }
        }
        return nonEmpty
    }

    @inlinable @inline(__always)
    mutating func skip(_ n: Int) {
        for _ in 0..<n { _ = next() }
    }
}
