import Foundation
import Geo
import Testing
import TestSupport
import JSON

/// `JSONBytes.appendFixed` writes through `ByteCursor` straight into place; its text must be the
/// one the digit-by-digit version wrote (the same as gpsd's `%.Nf` for the values Treeline has).
@Suite struct NumberTextTests {
    @Test func fixedIsTheWiresText() {
        #expect(NumberText.fixed(2.5, decimals: 2) == "2.50")
        #expect(NumberText.fixed(-0.004, decimals: 2) == "0.00")
        #expect(NumberText.fixed(0.125, decimals: 2) == "0.13")  // half away from zero
        #expect(NumberText.fixed(.nan, decimals: 1) == "null")
    }

    @Test func trimmedDropsTrailingZerosAndABarePoint() {
        #expect(NumberText.trimmed(30, decimals: 6) == "30")
        #expect(NumberText.trimmed(-2.5, decimals: 3) == "-2.5")
        #expect(NumberText.trimmed(-0.01, decimals: 1) == "0")
        #expect(NumberText.trimmed(2.675, decimals: 2) == "2.68")
        var out = Array("x=".utf8)
        NumberText.appendTrimmed(0.25, decimals: 1, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "x=0.3")
    }

    @Test func fitsStopsWhereADoubleHasNoDecimalsLeft() {
        #expect(NumberText.fits(8.9e14, decimals: 1))
        #expect(!NumberText.fits(9e14, decimals: 1))
        #expect(!NumberText.fits(.infinity, decimals: 0))
        #expect(!NumberText.fits(.nan, decimals: 0))
    }

    @Test func shortestHasNoNeedlessPointZero() {
        #expect(NumberText.shortest(5) == "5")
        #expect(NumberText.shortest(-0.0) == "0")
        #expect(NumberText.shortest(0.5) == "0.5")
        #expect(NumberText.shortest(1e15) == "1000000000000000.0")  // from 1e15, as Swift prints it
        #expect(NumberText.shortest(1e16) == "1e+16")
    }

    /// `printf` is C's `%.Nf`: the exact binary value, ties to even, unlike `fixed`.
    @Test func printfRoundsAsCDoes() {
        #expect(NumberText.printf(1.25, decimals: 1) == "1.2")
        #expect(NumberText.printf(1.35, decimals: 1) == "1.4")
        #expect(NumberText.printf(0.15, decimals: 1) == "0.1")
        #expect(NumberText.printf(1e20, decimals: 1) == "100000000000000000000.0")
        #expect(NumberText.printf(.infinity, decimals: 1) == "inf")
        var rng = SplitMix64(seed: 0x9_1E7F)
        for _ in 0..<20_000 {
            let v = Foundation.pow(10, rng.uniform(-3, 8)) * rng.uniform(-1, 1)
            for decimals in 0...3 { #expect(NumberText.printf(v, decimals: decimals) == String(format: "%.\(decimals)f", v), "\(v)") }
        }
    }

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
