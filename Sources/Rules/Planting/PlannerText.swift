#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// Numbers in the planner's messages.
enum PlannerText {
    /// Metres with up to `decimals` decimals, trailing zeros dropped ("5", "2.1", "0.25").
    static func metres(_ x: Double, decimals: Int = 2) -> String {
        guard x.isFinite else { return String(x) }
        var p = 1.0
        for _ in 0..<decimals { p *= 10 }
        let scaled = (abs(x) * p).rounded()
        guard scaled < 9e15 else { return String(x) }
        let n = Int64(scaled), unit = Int64(p)
        var s = String(n / unit)
        let frac = n % unit
        if frac != 0 {
            var digits = String(frac)
            while digits.count < decimals { digits = "0" + digits }
            while digits.hasSuffix("0") { digits.removeLast() }
            s += "." + digits
        }
        return (x < 0 && n != 0 ? "-" : "") + s
    }

    /// A measured distance that is below `limit`: one decimal, more if one would round it up to
    /// the limit (4.96 with a 5 m spacing shows as "4.96", not "5").
    static func measured(_ x: Double, below limit: Double) -> String {
        for d in 1...4 {
            var p = 1.0
            for _ in 0..<d { p *= 10 }
            if (x * p).rounded() / p < limit || d == 4 { return metres(x, decimals: d) }
        }
        return metres(x, decimals: 4)
    }

    /// A distance that should not show as 0: one decimal, more for small values.
    static func nonzero(_ x: Double) -> String {
        for d in 1...3 where (abs(x) * pow10(d)).rounded() != 0 { return metres(x, decimals: d) }
        return metres(x, decimals: 3)
    }

    private static func pow10(_ d: Int) -> Double {
        var p = 1.0
        for _ in 0..<d { p *= 10 }
        return p
    }
}
