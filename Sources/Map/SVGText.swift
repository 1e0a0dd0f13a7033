import Geo
import JSON

/// Small, Foundation-free text helpers for writing SVG: fixed-decimal numbers, XML escaping,
/// clock labels and a rough text-width estimate for layout.
enum SVGText {
    /// `v` rounded to at most `decimals` places (0...6), trailing zeros and a bare point dropped,
    /// never "-0". Non-finite values print as "0" so a document never carries "nan" or "inf".
    static func num(_ v: Double, _ decimals: Int = 1) -> String {
        guard v.isFinite else { return "0" }
        let d = max(0, min(6, decimals))
        // Beyond a Double's precision there is nothing to keep after the point anyway.
        return NumberText.fits(v, decimals: d) ? NumberText.trimmed(v, decimals: d) : NumberText.fixed(v, decimals: 0)
    }

    /// Escapes the five XML special characters; control characters that XML 1.0 forbids become
    /// U+FFFD so a name with stray bytes still gives a well-formed document.
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(ch)
            default:
                if ch.value < 0x20 || ch.value == 0xFFFE || ch.value == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(ch)
                }
            }
        }
        return out
    }

    /// `HH:MM:SS` of the UTC time of day (seconds rounded down).
    static func clock(_ t: UTCTime) -> String {
        let s = Int(t.nanosOfDay / UTCTime.nanosPerSecond)
        func two(_ v: Int) -> String { v < 10 ? "0" + String(v) : String(v) }
        return two(s / 3600) + ":" + two(s / 60 % 60) + ":" + two(s % 60)
    }

    /// A generous width estimate, pixels, of `s` in a sans-serif font of `size` px: wide enough
    /// that boxes drawn around labels hold them in common fonts.
    static func width(_ s: String, size: Double) -> Double {
        var w = 0.0
        for ch in s.unicodeScalars {
            switch ch {
            case " ", ".", ",", ":", ";", "'", "|", "!", "i", "l", "j", "I", "(", ")": w += 0.32
            case "m", "w", "M", "W", "@": w += 0.9
            case "A"..."Z": w += 0.68
            case "0"..."9": w += 0.58
            default: w += ch.value > 0x2E80 ? 1.0 : 0.56
            }
        }
        return w * size
    }

    /// Metres as a scale-bar label: "50 m", "200 m", "1 km", "20 km".
    static func distanceLabel(_ metres: Double) -> String {
        metres >= 1000 ? num(metres / 1000, 3) + " km" : num(metres, 3) + " m"
    }
}
