import Geo
import Testing
import JSON

@Suite struct WordingTests {
    @Test func numbersAsAPersonWritesThem() {
        #expect(Wording.number(5) == "5")
        #expect(Wording.number(-30) == "-30")
        #expect(Wording.number(0.5) == "0.5")
        #expect(Wording.number(1_000_000) == "1000000")
        // Past Int's exact range, and the values that have no integer: no trap.
        #expect(Wording.number(1e300) == "1e+300")
        #expect(Wording.number(.infinity) == "inf")
        #expect(Wording.number(.nan) == "nan")
    }

    @Test func editDistanceCountsInsertionsDeletionsAndSubstitutions() {
        func d(_ a: String, _ b: String) -> Int { Wording.editDistance(Array(a), Array(b)) }
        #expect(d("kitten", "sitting") == 3)
        #expect(d("", "abc") == 3)
        #expect(d("abc", "") == 3)
        #expect(d("dwell_s", "dwell_s") == 0)
        #expect(d("hysterisis_m", "hysteresis_m") == 1)
        #expect(d("ab", "ba") == 2)  // a transposition is two edits
    }

    @Test func nearestSuggestsOnlyWhatIsClose() {
        let keys = ["hysteresis_m", "accuracy_factor", "max_error_m", "max_speed_mps", "dwell_s"]
        #expect(Wording.nearest("hysterisis_m", in: keys) == "hysteresis_m")
        #expect(Wording.nearest("max_eror_m", in: keys) == "max_error_m")
        #expect(Wording.nearest("colour", in: keys) == nil)
        // Two candidates at the same distance: the earlier one.
        #expect(Wording.nearest("ab", in: ["ax", "xb"]) == "ax")
        #expect(Wording.nearest(String(repeating: "x", count: 41), in: [String(repeating: "x", count: 41)]) == nil)
    }
}
