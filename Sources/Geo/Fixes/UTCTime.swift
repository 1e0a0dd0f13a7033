import JSON
/// An instant in UTC as integer nanoseconds since 1970-01-01T00:00:00Z.
///
/// Integer nanoseconds keep a receiver's fractional seconds exactly, so two sentences of one
/// epoch compare equal and a replay is bit-for-bit deterministic. Leap seconds are not counted
/// (POSIX time), as in gpsd's JSON.
public struct UTCTime: Sendable, Hashable, Comparable {
    /// Nanoseconds since 1970-01-01T00:00:00Z, leap seconds not counted; negative before.
    public var nanoseconds: Int64

    /// Nanoseconds in a second, 10⁹.
    public static let nanosPerSecond: Int64 = 1_000_000_000
    /// Nanoseconds in a day of 86,400 seconds.
    public static let nanosPerDay: Int64 = 86_400 * nanosPerSecond

    /// The instant `nanoseconds` after the epoch (before it when negative).
    @inlinable public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// `daysSinceEpoch` days after 1970-01-01 plus `nanosOfDay`.
    @inlinable
    public init(daysSinceEpoch: Int64, nanosOfDay: Int64) {
        self.nanoseconds = daysSinceEpoch * Self.nanosPerDay + nanosOfDay
    }

    /// The years whose instants fit in Int64 nanoseconds since 1970.
    public static let representableYears = 1678...2261

    /// Nil for an impossible calendar date or a year outside `representableYears`.
    public init?(year: Int, month: Int, day: Int, nanosOfDay: Int64 = 0) {
        guard Self.representableYears.contains(year), (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, year: year),
              nanosOfDay >= 0, nanosOfDay < Self.nanosPerDay + Self.nanosPerSecond else { return nil }
        self.init(daysSinceEpoch: CivilDate.daysFromCivil(year: year, month: month, day: day), nanosOfDay: nanosOfDay)
    }

    /// Seconds since the epoch as a Double: steps of a quarter to half a microsecond this century.
    @inlinable public var seconds: Double { Double(nanoseconds) / 1e9 }

    /// Earlier first.
    @inlinable public static func < (a: UTCTime, b: UTCTime) -> Bool { a.nanoseconds < b.nanoseconds }

    /// The instant `n` nanoseconds later (n ≥ 0), held at the last one Int64 nanoseconds reach
    /// (2262-04-11) beyond it: a plant watered in 2261, the latest a file or a command says, is
    /// due a year later, past that end.
    @inlinable
    public func advanced(byNanoseconds n: Int64) -> UTCTime {
        let (t, overflow) = nanoseconds.addingReportingOverflow(n)
        return UTCTime(nanoseconds: overflow ? .max : t)
    }

    /// Seconds from `earlier` to this instant (negative when `earlier` is later): exact to the
    /// nanosecond, as `Double` holds it, while the nanoseconds between them fit an Int64 (292
    /// years); in floating point beyond, where subtracting the nanoseconds would overflow (a fix
    /// in 1700 and the next in 2200, both times a file or a receiver may give).
    @inlinable
    public func seconds(since earlier: UTCTime) -> Double {
        let (held, overflow) = nanoseconds.subtractingReportingOverflow(earlier.nanoseconds)
        return overflow ? (Double(nanoseconds) - Double(earlier.nanoseconds)) / 1e9 : Double(held) / 1e9
    }

    /// `seconds(since:)` in whole seconds, rounded towards zero, whatever the distance (1678 to
    /// 2262 is more nanoseconds than Int64 holds: then each side is rounded first).
    @inlinable
    public func wholeSeconds(since earlier: UTCTime) -> Int64 {
        let (held, overflow) = nanoseconds.subtractingReportingOverflow(earlier.nanoseconds)
        guard overflow else { return held / Self.nanosPerSecond }
        return nanoseconds / Self.nanosPerSecond - earlier.nanoseconds / Self.nanosPerSecond
    }

    /// Whole days since 1970-01-01, rounded down (negative before 1970).
    public var daysSinceEpoch: Int64 {
        nanoseconds >= 0 ? nanoseconds / Self.nanosPerDay : (nanoseconds - Self.nanosPerDay + 1) / Self.nanosPerDay
    }
    /// Nanoseconds since that day's midnight, 0 up to `nanosPerDay`.
    public var nanosOfDay: Int64 { nanoseconds - daysSinceEpoch * Self.nanosPerDay }

    /// ISO 8601 with milliseconds, e.g. `2019-04-06T17:51:34.000Z` (gpsd's format). No Foundation.
    public var iso8601: String {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        appendISO8601(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Writes the ISO 8601 form (millisecond precision, rounded down like gpsd): 24 bytes.
    func writeISO8601(_ c: inout ByteCursor) {
        let (y, m, d) = CivilDate.civilFromDays(daysSinceEpoch)
        let ms = Int(nanosOfDay / 1_000_000)
        let sec = ms / 1000
        c.digits(y, width: 4); c.put(UInt8(ascii: "-")); c.digits(m, width: 2); c.put(UInt8(ascii: "-")); c.digits(d, width: 2)
        c.put(UInt8(ascii: "T"))
        c.digits(sec / 3600, width: 2); c.put(UInt8(ascii: ":")); c.digits(sec / 60 % 60, width: 2); c.put(UInt8(ascii: ":"))
        c.digits(sec % 60, width: 2); c.put(UInt8(ascii: ".")); c.digits(ms % 1000, width: 3); c.put(UInt8(ascii: "Z"))
    }

    /// Appends the ISO 8601 form (millisecond precision, rounded down like gpsd) to a byte buffer.
    public func appendISO8601(to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buf in
            var c = ByteCursor(buf.baseAddress!)
            writeISO8601(&c)
            out.append(contentsOf: UnsafeBufferPointer(start: buf.baseAddress!, count: c.written(since: buf.baseAddress!)))
        }
    }
}

extension UTCTime {
    /// Parses ISO 8601 / RFC 3339 dates and times: `2026-04-20`, `2026-04-20T10:00:00Z`,
    /// `2026-04-20T10:00:00.5+01:00`, `2026-04-20 10:00Z`. A time without an offset is UTC.
    public init?(iso8601 text: String) {
        let u = Array(text.utf8)
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= u.count else { return nil }
            var v = 0
            for k in 0..<n {
                let d = Int(u[i + k]) - 48
                guard (0...9).contains(d) else { return nil }
                v = v * 10 + d
            }
            i += n
            return v
        }
        func take(_ c: UInt8) -> Bool {
            if i < u.count, u[i] == c { i += 1; return true }
            return false
        }
        guard let y = digits(4), take(UInt8(ascii: "-")), let mo = digits(2), take(UInt8(ascii: "-")), let d = digits(2) else { return nil }
        var nanos: Int64 = 0
        var offset = 0
        if i < u.count {
            guard take(UInt8(ascii: "T")) || take(UInt8(ascii: "t")) || take(UInt8(ascii: " ")) else { return nil }
            guard let h = digits(2), take(UInt8(ascii: ":")), let mi = digits(2), h < 24, mi < 60 else { return nil }
            var s = 0
            if take(UInt8(ascii: ":")) {
                guard let sec = digits(2), sec <= 60 else { return nil }
                s = sec
                if take(UInt8(ascii: ".")) || take(UInt8(ascii: ",")) {
                    var scale: Int64 = 100_000_000
                    var any = false
                    while i < u.count, u[i] >= 0x30, u[i] <= 0x39 {
                        nanos += Int64(u[i] - 0x30) * scale
                        scale /= 10
                        i += 1
                        any = true
                    }
                    guard any else { return nil }
                }
            }
            nanos += Int64(h * 3600 + mi * 60 + s) * 1_000_000_000
            if take(UInt8(ascii: "Z")) || take(UInt8(ascii: "z")) {
                offset = 0
            } else if i < u.count, u[i] == UInt8(ascii: "+") || u[i] == UInt8(ascii: "-") {
                let sign = u[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let oh = digits(2), oh < 24 else { return nil }
                _ = take(UInt8(ascii: ":"))
                guard let om = digits(2), om < 60 else { return nil }
                offset = sign * (oh * 3600 + om * 60)
            }
            guard i == u.count else { return nil }
        }
        guard let t = UTCTime(year: y, month: mo, day: d, nanosOfDay: nanos) else { return nil }
        self.init(nanoseconds: t.nanoseconds - Int64(offset) * 1_000_000_000)
    }
}
