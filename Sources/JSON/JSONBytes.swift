/// Writes JSON numbers and strings into a byte buffer without Foundation formatters, so the
/// per-fix output path does not allocate or go through locale-aware code.
public enum JSONBytes {
    /// `v` with exactly `decimals` digits after the point (rounded half away from zero), like
    /// gpsd's `%.9f`. Non-finite values are written as `null`.
    public static func appendFixed(_ v: Double, decimals: Int, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ByteCursor.maxNumber) { buf in
            var c = ByteCursor(buf.baseAddress!)
            c.fixed(v, decimals: decimals)
            out.append(contentsOf: UnsafeBufferPointer(start: buf.baseAddress!, count: c.written(since: buf.baseAddress!)))
        }
    }

    /// Appends `v` in decimal, with a leading `-` when negative.
    public static func appendInt(_ v: Int, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ByteCursor.maxNumber) { buf in
            var c = ByteCursor(buf.baseAddress!)
            c.int(v)
            out.append(contentsOf: UnsafeBufferPointer(start: buf.baseAddress!, count: c.written(since: buf.baseAddress!)))
        }
    }

    /// A JSON string literal with the escapes RFC 8259 requires.
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var utf8 = s.utf8.makeIterator()
        while let b = utf8.next() {
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0..<0x20, 0x7F: appendEscape(UInt16(b), to: &out)
            case 0xC2:
                // U+0080–U+009F (C1 controls: U+009B is a terminal's CSI) as \u escapes.
                let c = utf8.next()!
                if c < 0xA0 { appendEscape(UInt16(c), to: &out) } else { out.append(b); out.append(c) }
            case 0xE2:
                // Bidi embeddings, overrides and isolates (U+202A–202E, U+2066–2069) as \u escapes:
                // what shows the JSON raw (a log, a terminal) is not reordered.
                let c = utf8.next()!, d = utf8.next()!
                if (c == 0x80 && (0xAA...0xAE).contains(d)) || (c == 0x81 && (0xA6...0xA9).contains(d)) {
                    appendEscape(0x2000 | UInt16(c & 0x3F) << 6 | UInt16(d & 0x3F), to: &out)
                } else {
                    out.append(b); out.append(c); out.append(d)
                }
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `\uXXXX`.
    private static func appendEscape(_ unit: UInt16, to out: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        out.append(contentsOf: "\\u".utf8)
        for shift in stride(from: 12, through: 0, by: -4) { out.append(hex[Int(unit >> UInt16(shift)) & 15]) }
    }
}


/// Writes text into memory the caller has sized for it, with no capacity or uniqueness check
/// per byte: numbers, names and times of one output line go into a stack buffer this way and
/// reach the output array in one append.
@frozen public struct ByteCursor {
    /// The most bytes `fixed` or `int` writes (a Double's shortest form is at most 24).
    public static let maxNumber = 48

    public var p: UnsafeMutablePointer<UInt8>

    @inlinable public init(_ p: UnsafeMutablePointer<UInt8>) { self.p = p }

    @inlinable public func written(since start: UnsafeMutablePointer<UInt8>) -> Int { p - start }

    @inlinable @inline(__always) public mutating func put(_ b: UInt8) {
        p.pointee = b
        p += 1
    }

    @inlinable @inline(__always) public mutating func put(_ s: StaticString) {
        p.update(from: s.utf8Start, count: s.utf8CodeUnitCount)
        p += s.utf8CodeUnitCount
    }

    /// `n` in decimal, exactly `width` digits (leading zeros; `n` must fit).
    @inlinable @inline(__always) public mutating func digits(_ n: Int, width: Int) {
        var n = n
        var k = width - 1
        while k >= 0 {
            p[k] = UInt8(48 + n % 10)
            n /= 10
            k -= 1
        }
        p += width
    }

    /// `v` with exactly `decimals` digits after the point (rounded half away from zero); `null`
    /// when not finite. The arithmetic of the former array version, so the text is the same.
    @inlinable public mutating func fixed(_ v: Double, decimals: Int) {
        precondition((0...18).contains(decimals), "0 to 18 decimals (a UInt64 holds the scaled value)")
        guard v.isFinite else { put("null"); return }
        let scaled = (abs(v) * Self.power10(decimals)).rounded()
        guard scaled < 9.0e18 else {
            for b in String(v).utf8 { put(b) }  // not reached for coordinates and speeds
            return
        }
        var n = UInt64(scaled)
        if v < 0 && n != 0 { put(UInt8(ascii: "-")) }
        // Straight into place from the right, two digits at a time: the integer part's length
        // first (at least one digit, "0.5"), then the decimals, the point, the integer digits.
        var intDigits = 1
        while intDigits + decimals < 20, n >= Self.power10u(intDigits + decimals) { intDigits += 1 }
        let total = intDigits + (decimals > 0 ? decimals + 1 : 0)
        var q = p + total
        var left = decimals
        while left >= 2 {
            q -= 2
            Self.twoDigits(Int(n % 100), at: q)
            n /= 100
            left -= 2
        }
        if left == 1 {
            q -= 1
            q.pointee = UInt8(truncatingIfNeeded: 48 + n % 10)
            n /= 10
        }
        if decimals > 0 {
            q -= 1
            q.pointee = UInt8(ascii: ".")
        }
        while q - p >= 2 {
            q -= 2
            Self.twoDigits(Int(n % 100), at: q)
            n /= 100
        }
        if q > p {
            q -= 1
            q.pointee = UInt8(truncatingIfNeeded: 48 + n % 10)
        }
        p += total
    }

    /// "00" to "99", for writing two digits at once.
    @usableFromInline static let pairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    @inlinable @inline(__always) static func twoDigits(_ r: Int, at q: UnsafeMutablePointer<UInt8>) {
        let d = pairs.utf8Start + 2 * r
        q[0] = d[0]
        q[1] = d[1]
    }

    /// 10^k, exactly, for k in 0...18 (products of tens, as the loop that made them had them).
    @inlinable @inline(__always) static func power10(_ k: Int) -> Double {
        switch k {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        default: 1e18
        }
    }

    /// 10^k as an integer, k in 0...19.
    @inlinable @inline(__always) static func power10u(_ k: Int) -> UInt64 {
        var v: UInt64 = 1
        switch k {
        case 19: v = 10_000_000_000_000_000_000
        case 18: v = 1_000_000_000_000_000_000
        case 17: v = 100_000_000_000_000_000
        case 16: v = 10_000_000_000_000_000
        case 15: v = 1_000_000_000_000_000
        case 14: v = 100_000_000_000_000
        case 13: v = 10_000_000_000_000
        case 12: v = 1_000_000_000_000
        case 11: v = 100_000_000_000
        case 10: v = 10_000_000_000
        case 9: v = 1_000_000_000
        case 8: v = 100_000_000
        case 7: v = 10_000_000
        case 6: v = 1_000_000
        case 5: v = 100_000
        case 4: v = 10_000
        case 3: v = 1_000
        case 2: v = 100
        case 1: v = 10
        default: v = 1
        }
        return v
    }

    /// `v` in decimal, with a leading `-` when negative.
    @inlinable public mutating func int(_ v: Int) {
        var n = v.magnitude
        if v < 0 { put(UInt8(ascii: "-")) }
        var tmp: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &tmp) { buf in
            var i = buf.count
            repeat {
                i -= 1
                buf[i] = UInt8(48 + n % 10)
                n /= 10
            } while n > 0
            for k in i..<buf.count { put(buf[k]) }
        }
    }
}
