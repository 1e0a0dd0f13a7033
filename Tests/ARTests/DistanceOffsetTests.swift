import AR
import Testing

@Suite struct DistanceOffsetWritten {
    @Test func readsTheThreeForms() {
        #expect(DistanceOffset(written: "none") == DistanceOffset.none)
        #expect(DistanceOffset(written: "automatic") == .automatic)
        #expect(DistanceOffset(written: "manual:50:0.2") == .manual(threshold: 50, pixelsPerMetre: 0.2))
        #expect(DistanceOffset(written: "manual:0:1") == .manual(threshold: 0, pixelsPerMetre: 1))
    }

    @Test func refusesEverythingElse() {
        for text in ["", "None", "auto", "manual", "manual:5", "manual:5:", "manual::1", "manual:a:1", "manual:5:1:2", "linear:5:1"] {
            #expect(DistanceOffset(written: text) == nil, "\(text)")
        }
    }
}
