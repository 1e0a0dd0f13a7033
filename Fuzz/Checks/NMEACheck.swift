import Geo
import NMEA

/// `nmea`: the reader gives the same fixes and the same statistics whether the input comes whole,
/// byte by byte, or in chunks of sizes drawn from the input's own hash (some empty, some around
/// the longest line kept, so that carried and over-long lines are cut everywhere).
public enum NMEAFuzz {
    public static func check(_ input: UnsafeRawBufferPointer) {
        let whole = read(input, chunkSizes: nil)
        validate(whole)
        var one = read(input, chunkSizes: { _ in 1 })
        compare(whole, one, "byte by byte")
        var random = SplitMix64(seed: fnv1a(input))
        let chunked = read(input, chunkSizes: { _ in
            switch random.below(5) {
            case 0: return random.below(4)  // 0 to 3: empty chunks too
            case 1: return 1 + random.below(64)
            case 2: return NMEAReader.maxLineLength - 8 + random.below(16)
            case 3: return 1 + random.below(1024)
            default: return 1 + random.below(max(1, input.count))
            }
        })
        compare(whole, chunked, "in chunks")
        // A fresh reader fed the same way again: nothing may depend on state outside the reader.
        one = read(input, chunkSizes: nil)
        compare(whole, one, "whole, a second time")
    }

    struct Outcome {
        var fixes: [Fix] = []
        var statistics = NMEAStats()
    }

    static func read(_ input: UnsafeRawBufferPointer, chunkSizes: ((Int) -> Int)?) -> Outcome {
        var reader = NMEAReader()
        var out = Outcome()
        if let chunkSizes {
            var offset = 0
            while offset < input.count {
                let n = min(chunkSizes(offset), input.count - offset)
                reader.read(UnsafeRawBufferPointer(rebasing: input[offset..<offset + n])) { out.fixes.append($0) }
                offset += n
            }
        } else {
            reader.read(input) { out.fixes.append($0) }
        }
        reader.finish { out.fixes.append($0) }
        out.statistics = reader.statistics
        return out
    }

    static func compare(_ a: Outcome, _ b: Outcome, _ how: String) {
        guard a.statistics == b.statistics else {
            fuzzFailure("NMEA statistics differ when fed \(how): whole \(a.statistics), \(how) \(b.statistics)")
        }
        guard a.fixes.count == b.fixes.count else {
            fuzzFailure("NMEA gives \(a.fixes.count) fixes whole, \(b.fixes.count) fed \(how)")
        }
        for (k, (x, y)) in zip(a.fixes, b.fixes).enumerated() where !sameFix(x, y) {
            fuzzFailure("NMEA fix \(k) differs when fed \(how): whole \(x), \(how) \(y)")
        }
    }

    /// What `Fix` and `NMEAStats` promise whatever the input: the counts match the fixes, a
    /// no-fix has no coordinate, and a coordinate is a valid one.
    static func validate(_ o: Outcome) {
        let s = o.statistics
        guard s.fixes == o.fixes.count, s.noFix + s.fixes2D + s.fixes3D == s.fixes else {
            fuzzFailure("NMEA statistics count \(s.fixes) fixes (\(s.noFix) none, \(s.fixes2D) 2D, \(s.fixes3D) 3D) for \(o.fixes.count) reported")
        }
        for (k, f) in o.fixes.enumerated() {
            if f.mode == .noFix, f.coordinate != nil { fuzzFailure("NMEA fix \(k) is a no-fix with a coordinate: \(f)") }
            if let c = f.coordinate, !c.isValid { fuzzFailure("NMEA fix \(k) has an invalid coordinate: \(f)") }
        }
    }

    /// Field by field, doubles by their bits (a NaN equals itself).
    static func sameFix(_ a: Fix, _ b: Fix) -> Bool {
        a.time == b.time && a.timeOfDay == b.timeOfDay && a.mode == b.mode
            && same(a.coordinate?.latitude, b.coordinate?.latitude) && same(a.coordinate?.longitude, b.coordinate?.longitude)
            && same(a.altitudeMSL, b.altitudeMSL) && same(a.speed, b.speed) && same(a.course, b.course)
            && same(a.horizontalError, b.horizontalError) && same(a.hdop, b.hdop) && same(a.pdop, b.pdop)
            && same(a.vdop, b.vdop) && a.satellitesUsed == b.satellitesUsed
    }
}
