import Foundation
import Geo
import Testing
import TestSupport
import JSON

/// `JSONBytes.appendFixed` writes through `ByteCursor` straight into place; its text must be the
/// one the digit-by-digit version wrote (the same as gpsd's `%.Nf` for the values Treeline has).
@Suite struct NumberText {
    @Test func fixedIsTheDigitByDigitText() {
        var rng = SplitMix64(seed: 0xF1_3ED0)
        var values: [Double] = [0, -0.0, 0.5, -0.5, 0.004, -0.004, 0.005, 9.9999999995, 1e-12, -1e-12, 123_456_789.123, 8.9e9, -180, 180, 90, -90,
                                .infinity, -.infinity, .nan, 1e300, -1e300, 9.2e18, 4.5e17]
        for _ in 0..<20_000 {
            let magnitude = Foundation.pow(10, rng.uniform(-6, 10))
            values.append((rng.uniform(0, 1) < 0.5 ? -1 : 1) * magnitude * rng.uniform(0, 1))
        }
        for v in values {
            for decimals in 0...9 {
                var fast: [UInt8] = []
                JSONBytes.appendFixed(v, decimals: decimals, to: &fast)
                #expect(fast == Self.digitByDigit(v, decimals), "\(v) with \(decimals) decimals")
            }
        }
    }

    /// The version before `ByteCursor`.
    static func digitByDigit(_ v: Double, _ decimals: Int) -> [UInt8] {
        var out: [UInt8] = []
        guard v.isFinite else { return Array("null".utf8) }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(v) * scale).rounded()
        guard scaled < 9.0e18 else { return Array(String(v).utf8) }
        var n = UInt64(scaled)
        if v < 0 && n != 0 { out.append(UInt8(ascii: "-")) }
        var digits: [UInt8] = []
        repeat {
            digits.append(UInt8(48 + n % 10))
            n /= 10
        } while n > 0 || digits.count <= decimals
        digits.reverse()
        let intDigits = digits.count - decimals
        for (k, d) in digits.enumerated() {
            if k == intDigits { out.append(UInt8(ascii: ".")) }
            out.append(d)
        }
        return out
    }
}
