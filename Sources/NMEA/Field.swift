#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// One comma-separated field of a sentence: a view on the caller's bytes, valid only while the
/// line is being decoded. Every parser returns nil for an empty or malformed field, so a decoder
/// never invents a value.
@usableFromInline
struct Field {
    @usableFromInline let base: UnsafePointer<UInt8>
    @usableFromInline let count: Int

    @inlinable init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    @inlinable var isEmpty: Bool { count == 0 }

    /// The single character of a one-byte field.
    @inlinable var character: UInt8? { count == 1 ? base[0] : nil }

    /// First byte, for multi-character indicator fields (e.g. GNS mode "AAN").
    @inlinable var first: UInt8? { count >= 1 ? base[0] : nil }

    /// Non-negative integer of at most 9 digits.
    @inlinable
    var unsignedInt: Int? {
        guard count > 0, count <= 9 else { return nil }
        var v = 0
        for i in 0..<count {
            let d = base[i] &- 48
            guard d < 10 else { return nil }
            v = v &* 10 &+ Int(d)
        }
        return v
    }

    /// Decimal number `[+-]digits[.digits]`, converted by one correctly rounded division: no
    /// locale, no String. Up to 18 digits whose integer is at most 2⁵³ take the fast path; the rest
    /// go through `strtod`.
    @inlinable
    var decimal: Double? {
        guard count > 0 else { return nil }
        var i = 0
        var negative = false
        if base[0] == UInt8(ascii: "-") { negative = true; i = 1 } else if base[0] == UInt8(ascii: "+") { i = 1 }
        let digitsStart = i
        var mantissa: UInt64 = 0
        while i < count {
            let d = base[i] &- 48
            if d >= 10 { break }
            mantissa = mantissa &* 10 &+ UInt64(d)
            i += 1
        }
        var digits = i - digitsStart
        var fractionDigits = 0
        if i < count {
            guard base[i] == UInt8(ascii: ".") else { return nil }
            i += 1
            let fractionStart = i
            while i < count {
                let d = base[i] &- 48
                guard d < 10 else { return nil }
                mantissa = mantissa &* 10 &+ UInt64(d)
                i += 1
            }
            fractionDigits = i - fractionStart
            digits += fractionDigits
        }
        guard digits > 0 else { return nil }
        // One division is correctly rounded only while the digits are exact in a Double (≤ 2⁵³).
        guard digits <= 18, mantissa <= 1 << 53 else { return longDecimal }
        let v = Double(mantissa) / NMEAPowers.ten(fractionDigits)
        return negative ? -v : v
    }

    /// A decimal of a quantity that has no sign (a DOP, a standard deviation, a speed): nil for
    /// a field with `-` or `+` before its digits, as for a malformed one.
    @inlinable
    var unsignedDecimal: Double? {
        guard count > 0, base[0] != UInt8(ascii: "-"), base[0] != UInt8(ascii: "+") else { return nil }
        return decimal
    }

    /// The rare decimal with more than 18 digits (already checked to be `[+-]digits[.digits]`),
    /// correctly rounded by the C library: too rare to deserve a fast path of its own.
    @usableFromInline
    var longDecimal: Double? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { text -> Double? in
            for k in 0..<count { text[k] = CChar(bitPattern: base[k]) }
            text[count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let v = strtod(text.baseAddress!, &end)
            guard end == text.baseAddress! + count, v.isFinite else { return nil }
            return v
        }
    }

    /// The field's bytes packed into two words with its length in the top byte (fields of up to
    /// 15 bytes; nil for longer ones), so that a repeated time or date is recognised without
    /// parsing it again.
    @inlinable
    var rawKey: RawKey? {
        guard count <= 15 else { return nil }
        var lo: UInt64 = 0, hi: UInt64 = 0
        for k in 0..<count {
            if k < 8 { lo |= UInt64(base[k]) << (8 * UInt64(k)) } else { hi |= UInt64(base[k]) << (8 * UInt64(k - 8)) }
        }
        return RawKey(lo: lo, hi: hi | UInt64(count) << 56)
    }

    /// Two ASCII digits at `offset` as 0...99, nil otherwise.
    @inlinable
    func twoDigits(at offset: Int) -> Int? {
        let a = base[offset] &- 48, b = base[offset + 1] &- 48
        guard a < 10, b < 10 else { return nil }
        return Int(a) * 10 + Int(b)
    }

    /// `hhmmss[.fff…]` as nanoseconds since midnight; nil unless hh < 24, mm < 60, ss ≤ 60.
    @inlinable
    var timeOfDay: Int64? {
        guard count >= 6, let h = twoDigits(at: 0), let m = twoDigits(at: 2), let s = twoDigits(at: 4),
              h < 24, m < 60, s <= 60 else { return nil }
        var nanos: Int64 = 0
        if count > 6 {
            guard base[6] == UInt8(ascii: "."), count <= 16 else { return nil }
            var scale: Int64 = 100_000_000
            for i in 7..<count {
                let d = base[i] &- 48
                guard d < 10 else { return nil }
                nanos += Int64(d) * scale
                scale /= 10
            }
        }
        return Int64(h * 3600 + m * 60 + s) * 1_000_000_000 + nanos
    }

    /// `ddmmyy` (RMC) as days since 1970-01-01; two-digit years 80–99 are 1980–1999, 00–79 are 2000–2079.
    @inlinable
    var ddmmyy: Int64? {
        guard count == 6, let d = twoDigits(at: 0), let m = twoDigits(at: 2), let y = twoDigits(at: 4) else { return nil }
        let year = y >= 80 ? 1900 + y : 2000 + y
        guard (1...12).contains(m), d >= 1, d <= CivilDate.daysIn(month: m, year: year) else { return nil }
        return CivilDate.daysFromCivil(year: year, month: m, day: d)
    }

    /// `ddmm.mmmm` / `dddmm.mmmm` with its hemisphere field as signed degrees.
    @inlinable @inline(__always)
    func angle(hemisphere: Field, positive: UInt8, negative: UInt8, limit: Double) -> Double? {
        guard count >= 3, let h = hemisphere.character, h == positive || h == negative else { return nil }
        var integer = 0
        var i = 0
        while i < count, base[i] != UInt8(ascii: ".") {
            let d = base[i] &- 48
            guard d < 10, i < 9 else { return nil }
            integer = integer * 10 + Int(d)
            i += 1
        }
        var fraction = 0.0
        if i < count {  // at '.'
            i += 1
            let digits = min(count - i, 15)  // more than 15 decimals of a minute mean nothing
            var mantissa: UInt64 = 0
            for k in 0..<digits {
                let d = base[i + k] &- 48
                guard d < 10 else { return nil }
                mantissa = mantissa &* 10 &+ UInt64(d)
            }
            for k in (i + digits)..<count where base[k] &- 48 >= 10 { return nil }
            fraction = Double(mantissa) / NMEAPowers.ten(digits)
        }
        let minutes = Double(integer % 100) + fraction
        let degrees = Double(integer / 100)
        guard minutes < 60 else { return nil }
        let value = degrees + minutes / 60
        guard value <= limit else { return nil }
        return h == positive ? value : -value
    }
}
