import Foundation
import JSON

/// How the record commands print numbers for people: distances, countdowns, times.
enum HumanText {
    /// "12 m", "1.4 km".
    static func distance(_ metres: Double) -> String {
        let m = abs(metres)
        if m < 1_000 { return NumberText.fixed(m, decimals: 0) + " m" }
        return NumberText.printf(m / 1_000, decimals: 1) + " km"
    }

    /// "45° NE": degrees from true north and the nearest of the eight compass points.
    static func bearing(_ degrees: Double) -> String {
        let points = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
        let d = (degrees.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360)
        return NumberText.fixed(d, decimals: 0) + "° " + points[Int((d + 22.5) / 45) % 8]
    }

    /// "in 2 d 4 h", "in 35 min", "due now", "overdue 3 h".
    static func countdown(seconds s: Int) -> String {
        if s <= 0 { return s > -60 ? "due now" : "overdue " + span(-s) }
        return "in " + span(s)
    }

    /// "2 d 4 h", "5 h 10 min", "35 min", "40 s".
    static func span(_ s: Int) -> String {
        let d = s / 86_400, h = (s % 86_400) / 3_600, m = (s % 3_600) / 60
        if d > 0 { return h > 0 ? "\(d) d \(h) h" : "\(d) d" }
        if h > 0 { return m > 0 ? "\(h) h \(m) min" : "\(h) h" }
        if m > 0 { return "\(m) min" }
        return "\(s) s"
    }

    /// "2026-05-01 08:00" from an ISO 8601 time (as the daemon writes them), else the text.
    static func time(_ iso: String?) -> String {
        guard let iso else { return "never" }
        let t = iso.replacingOccurrences(of: "T", with: " ")
        return t.count >= 16 ? String(t.prefix(16)) : t
    }

    /// `lines` as columns padded to their widest cell.
    static func table(_ rows: [[String]]) -> String {
        guard let n = rows.map(\.count).max() else { return "" }
        var widths = Array(repeating: 0, count: n)
        for r in rows { for (k, c) in r.enumerated() { widths[k] = max(widths[k], c.count) } }
        return rows.map { r in
            r.enumerated().map { k, c in k == r.count - 1 ? c : c.padding(toLength: widths[k], withPad: " ", startingAt: 0) }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// "LAT,LON" → [lat, lon], checked.
    static func coordinate(_ text: String, option: String) throws -> [Double] {
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let lat = parts[0], let lon = parts[1], abs(lat) <= 90, abs(lon) <= 180 else {
            throw UserError("\(option) must be LAT,LON in decimal degrees, e.g. 38.7071,-9.1355 (not '\(text)')")
        }
        return [lat, lon]
    }

    /// "3d", "3", "1w" → days.
    static func days(_ text: String, option: String) throws -> Int {
        var t = text.lowercased().trimmingCharacters(in: .whitespaces)
        var factor = 1
        if t.hasSuffix("d") { t.removeLast() } else if t.hasSuffix("w") { t.removeLast(); factor = 7 }
        guard let n = Int(t), n > 0 else { throw UserError("\(option) must be a number of days, e.g. 3d or 2w (not '\(text)')") }
        return n * factor
    }
}
