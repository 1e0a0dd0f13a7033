#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo
#if DEBUG || FUZZING
@testable import NMEA  // Field is internal: needs -enable-testing (debug builds, and make fuzz)
#else
import NMEA
#endif

/// `fields`: NMEA's field parsers against plain references, on the whole input and on each of its
/// comma-separated pieces (fields longer than a line the reader keeps are not checked).
///
/// - `decimal`: nil exactly when the text is not `[+-]? digits* [. digits*]` with at least one
///   digit (or its value is not finite); otherwise strtod's value, exactly: the parser's doc says
///   correctly rounded. `FUZZ_DECIMAL_ULPS=N` in the environment allows N ulps where the fast
///   path's mantissa exceeds 2^53 (rounded once to a Double, then again by the division), to fuzz
///   past that known difference. `unsignedDecimal`: nil with a sign, else `decimal`.
/// - `unsignedInt`: 1 to 9 ASCII digits, their value.
/// - `timeOfDay`: `hhmmss[.f…]` (hh < 24, mm < 60, ss ≤ 60, at most 9 fraction digits) in ns.
/// - `ddmmyy`: a real calendar date (years 80–99 → 19xx, 00–79 → 20xx), as days since 1970.
/// - `angle`: each piece with the next as hemisphere: nil, or finite, within the limit and signed
///   by the hemisphere.
/// - `rawKey`: two fields of at most 15 bytes have equal keys exactly when their bytes are equal.
public enum FieldsFuzz {
    public static func check(_ input: UnsafeRawBufferPointer) {
        #if DEBUG || FUZZING
        let bytes = Array(input)
        var pieces: [ArraySlice<UInt8>] = [bytes[...]]
        pieces += bytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        pieces = pieces.filter { $0.count <= NMEAReader.maxLineLength }
        for piece in pieces { checkField(piece) }
        for (a, b) in zip(pieces.dropFirst(), pieces.dropFirst(2)) { checkPair(a, b) }
        #else
        fuzzFailure("the fields target needs a debug build or -DFUZZING -enable-testing: it uses @testable import NMEA")
        #endif
    }

    static let decimalULPs = getenv("FUZZ_DECIMAL_ULPS").flatMap { Double(String(cString: $0)) } ?? 0

    #if DEBUG || FUZZING
    /// Calls `body` with a Field over an exact-size heap copy of `bytes`, so that AddressSanitizer
    /// sees any read past the field.
    static func withField<T>(_ bytes: ArraySlice<UInt8>, _ body: (Field) -> T) -> T {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        defer { p.deallocate() }
        _ = UnsafeMutableBufferPointer(start: p, count: bytes.count).initialize(from: bytes)
        return body(Field(base: p, count: bytes.count))
    }

    static func describe(_ bytes: ArraySlice<UInt8>) -> String {
        "\"" + bytes.map { $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }.joined() + "\""
    }

    static func checkField(_ bytes: ArraySlice<UInt8>) {
        let (decimal, unsignedDecimal, unsigned, time, date, key) = withField(bytes) { f in
            (f.decimal, f.unsignedDecimal, f.unsignedInt, f.timeOfDay, f.ddmmyy, f.rawKey)
        }
        checkDecimal(bytes, decimal)
        let signed = bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+")
        if !same(unsignedDecimal, signed ? nil : decimal) {
            fuzzFailure("unsignedDecimal(\(describe(bytes))) = \(String(describing: unsignedDecimal)), decimal \(String(describing: decimal))")
        }
        let expectedUnsigned = referenceUnsigned(bytes)
        if unsigned != expectedUnsigned {
            fuzzFailure("unsignedInt(\(describe(bytes))) = \(String(describing: unsigned)), expected \(String(describing: expectedUnsigned))")
        }
        let expectedTime = referenceTimeOfDay(bytes)
        if time != expectedTime {
            fuzzFailure("timeOfDay(\(describe(bytes))) = \(String(describing: time)), expected \(String(describing: expectedTime))")
        }
        let expectedDate = referenceDays(bytes)
        if date != expectedDate {
            fuzzFailure("ddmmyy(\(describe(bytes))) = \(String(describing: date)), expected \(String(describing: expectedDate))")
        }
        if (key == nil) != (bytes.count > 15) { fuzzFailure("rawKey(\(describe(bytes))) = \(String(describing: key))") }
    }

    static func checkPair(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) {
        let ka = withField(a) { $0.rawKey }, kb = withField(b) { $0.rawKey }
        if let ka, let kb, (ka == kb) != a.elementsEqual(b) {
            fuzzFailure("rawKey: \(describe(a)) and \(describe(b)) have keys \(ka == kb ? "equal" : "different")")
        }
        for (positive, negative, limit) in [(UInt8(ascii: "N"), UInt8(ascii: "S"), 90.0), (UInt8(ascii: "E"), UInt8(ascii: "W"), 180.0)] {
            let v = withField(a) { f in withField(b) { h in f.angle(hemisphere: h, positive: positive, negative: negative, limit: limit) } }
            guard let v else { continue }
            let sign: Double = b.first == positive ? 1 : -1
            if !v.isFinite || abs(v) > limit || (v != 0 && (v > 0) != (sign > 0)) {
                fuzzFailure("angle(\(describe(a)), \(describe(b)), limit \(limit)) = \(v)")
            }
        }
    }

    static func checkDecimal(_ bytes: ArraySlice<UInt8>, _ got: Double?) {
        guard let expected = referenceDecimal(bytes) else {
            if let got { fuzzFailure("decimal(\(describe(bytes))) = \(got), expected nil") }
            return
        }
        guard let got else { fuzzFailure("decimal(\(describe(bytes))) = nil, expected \(expected.value)") }
        if got == expected.value { return }
        if !expected.exact, abs(got - expected.value) <= decimalULPs * expected.value.ulp { return }
        fuzzFailure("decimal(\(describe(bytes))) = \(got), strtod says \(expected.value)"
            + (expected.exact ? "" : " (fast path, mantissa above 2^53: FUZZ_DECIMAL_ULPS=1 allows \(abs(got - expected.value) / expected.value.ulp) ulp)"))
    }

    /// strtod's value if `bytes` is a decimal the parser must accept, and whether the parser's
    /// conversion is exact for it: the fast path (18 digits or fewer) when the digits make an
    /// integer of at most 2^53, the long path (strtod) always.
    static func referenceDecimal(_ bytes: ArraySlice<UInt8>) -> (value: Double, exact: Bool)? {
        func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        var i = bytes.startIndex
        if i < bytes.endIndex, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") { i += 1 }
        let integerStart = i
        while i < bytes.endIndex, isDigit(bytes[i]) { i += 1 }
        let integerPart = bytes[integerStart..<i]
        var fractionPart = bytes[i..<i]
        if i < bytes.endIndex {
            guard bytes[i] == UInt8(ascii: ".") else { return nil }
            fractionPart = bytes[(i + 1)...]
            guard fractionPart.allSatisfy(isDigit) else { return nil }
        }
        let digits = integerPart.count + fractionPart.count
        guard digits > 0 else { return nil }
        var mantissa: UInt64 = 0
        if digits <= 18 { for c in integerPart + fractionPart { mantissa = mantissa * 10 + UInt64(c - 48) } }
        let value = (Array(bytes) + [0]).withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { strtod($0, nil) }
        }
        guard value.isFinite else { return nil }
        return (value, digits > 18 || mantissa <= 1 << 53)
    }

    static func referenceUnsigned(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard (1...9).contains(bytes.count), bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(String(decoding: bytes, as: UTF8.self))
    }

    static func twoDigits(_ bytes: ArraySlice<UInt8>, _ offset: Int) -> Int? {
        let a = bytes[bytes.startIndex + offset], b = bytes[bytes.startIndex + offset + 1]
        guard (0x30...0x39).contains(a), (0x30...0x39).contains(b) else { return nil }
        return Int(a - 0x30) * 10 + Int(b - 0x30)
    }

    static func referenceTimeOfDay(_ bytes: ArraySlice<UInt8>) -> Int64? {
        guard bytes.count >= 6, let h = twoDigits(bytes, 0), let m = twoDigits(bytes, 2), let s = twoDigits(bytes, 4),
              h < 24, m < 60, s <= 60 else { return nil }
        var nanos: Int64 = 0
        if bytes.count > 6 {
            let rest = bytes.dropFirst(6)
            guard rest.first == UInt8(ascii: "."), rest.count - 1 <= 9 else { return nil }
            let fraction = rest.dropFirst()
            guard fraction.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            let padded = Array(fraction) + Array(repeating: UInt8(ascii: "0"), count: 9 - fraction.count)
            nanos = Int64(String(decoding: padded, as: UTF8.self))!
        }
        return Int64((h * 60 + m) * 60 + s) * 1_000_000_000 + nanos
    }

    /// Days since 1970-01-01, counted day by day over the years and months (no shared code with
    /// the parser's CivilDate).
    static func referenceDays(_ bytes: ArraySlice<UInt8>) -> Int64? {
        guard bytes.count == 6, let d = twoDigits(bytes, 0), let m = twoDigits(bytes, 2), let y = twoDigits(bytes, 4) else { return nil }
        let year = y >= 80 ? 1900 + y : 2000 + y
        func leap(_ y: Int) -> Bool { y % 400 == 0 || (y % 4 == 0 && y % 100 != 0) }
        let lengths = [31, leap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(m), (1...lengths[m - 1]).contains(d) else { return nil }
        var days = 0
        for yy in 1970..<year { days += leap(yy) ? 366 : 365 }
        for mm in 0..<(m - 1) { days += lengths[mm] }
        return Int64(days + d - 1)
    }
    #endif
}
