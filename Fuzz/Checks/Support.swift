#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Stops the process with a message naming the property that failed: libFuzzer records the input
/// as a crash, and the replayer's caller sees the message.
public func fuzzFailure(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("fuzz property violated: " + message(), file: file, line: line)
}

/// FNV-1a over the input: a deterministic seed, so a reproducer replays the same way.
func fnv1a(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    return h
}

/// SplitMix64: small, deterministic, good enough to choose chunk sizes and query points.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in 0..<n (n > 0), with the negligible modulo bias fuzzing can live with.
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    /// Uniform in [a, b].
    mutating func double(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(next() >> 11) / Double(1 << 53) }
}

/// Bitwise equality of doubles: NaN equals NaN, 0 and -0 differ. Determinism means the same bits.
func same(_ a: Double?, _ b: Double?) -> Bool {
    switch (a, b) {
    case (nil, nil): return true
    case let (x?, y?): return x.bitPattern == y.bitPattern
    default: return false
    }
}
