#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Numbers as text, in one place: the wire's fixed decimals, the same with trailing zeros
/// dropped (GeoJSON, SVG, messages), the shortest form for messages, and C's `%.Nf` for people.
/// Each target keeps only thin wrappers that say which of these it wants and what it prints
/// where a number has no sensible digits (not finite, or too large for decimals).
public enum NumberText {
    /// `v` with exactly `decimals` decimals (0...18), rounded half away from zero: "2.50",
    /// "-0.5", "0.00" (never "-0.00"); "null" when not finite. The text JSON carries.
    public static func fixed(_ v: Double, decimals: Int) -> String {
        var out: [UInt8] = []
        JSONBytes.appendFixed(v, decimals: decimals, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `v` with at most `decimals` decimals: `fixed` less its trailing zeros and a bare point
    /// ("2.5", "30", "0"; never "-0").
    public static func trimmed(_ v: Double, decimals: Int) -> String {
        var out: [UInt8] = []
        appendTrimmed(v, decimals: decimals, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `trimmed(v, decimals:)`.
    public static func appendTrimmed(_ v: Double, decimals: Int, to out: inout [UInt8]) {
        let start = out.count
        JSONBytes.appendFixed(v, decimals: decimals, to: &out)
        guard out[start...].contains(UInt8(ascii: ".")) else { return }
        while out.last == UInt8(ascii: "0") { out.removeLast() }
        if out.last == UInt8(ascii: ".") { out.removeLast() }
    }

    /// Whether `v` is finite and, at `decimals` places, below 9e15 units of the last place, so
    /// that every digit `fixed` and `trimmed` show is one the Double holds. Beyond it there is
    /// nothing after the point worth printing, and callers say what they print instead.
    public static func fits(_ v: Double, decimals: Int) -> Bool {
        guard v.isFinite else { return false }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        return (abs(v) * scale).rounded() < 9e15
    }

    /// `v` without a needless ".0" (`5`, not `5.0`); anything else as Swift prints it (`0.5`,
    /// `1e+20`, `inf`, `nan`).
    public static func shortest(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }

    /// `v` as C's `printf("%.Nf")` writes it: the exact binary value rounded to `decimals`
    /// places, ties to even (1.25 gives "1.2"; `fixed` gives "1.3"); "inf", "nan".
    public static func printf(_ v: Double, decimals: Int) -> String {
        let format = "%.\(decimals)f"
        let length = withVaList([v]) { vsnprintf(nil, 0, format, $0) }
        guard length > 0 else { return "" }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        _ = withVaList([v]) { vsnprintf(&buffer, buffer.count, format, $0) }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
