/// Proleptic Gregorian calendar arithmetic (H. Hinnant's days-from-civil algorithms).
public enum CivilDate {
    /// Whether `y` is a leap year.
    @inlinable
    public static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    /// Days in `month` (1–12) of `year`.
    @inlinable
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the date (negative before it); month 1–12, day 1–31, unchecked.
    @inlinable
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64((month + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date `days` days after 1970-01-01 (before it when negative); month 1–12, day 1–31.
    public static func civilFromDays(_ days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return (Int(y), Int(m), Int(d))
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
