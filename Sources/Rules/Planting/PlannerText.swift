import JSON

/// Numbers in the planner's messages.
enum PlannerText {
    /// Metres with up to `decimals` decimals, trailing zeros dropped ("5", "2.1", "0.25"); as
    /// Swift prints it when there are no such digits (not finite, or too large).
    static func metres(_ x: Double, decimals: Int = 2) -> String {
        NumberText.fits(x, decimals: decimals) ? NumberText.trimmed(x, decimals: decimals) : String(x)
    }

    /// A measured distance that is below `limit`: one decimal, more if one would round it up to
    /// the limit (4.96 with a 5 m spacing shows as "4.96", not "5").
    static func measured(_ x: Double, below limit: Double) -> String {
        for d in 1...4 where (x * pow10(d)).rounded() / pow10(d) < limit || d == 4 { return metres(x, decimals: d) }
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
