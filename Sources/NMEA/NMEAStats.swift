/// What a reader saw, for `treeline replay --stats` and for telling a bad log from a quiet one.
public struct NMEAStats: Sendable, Equatable {
    /// Non-empty lines.
    public var lines = 0
    /// Sentences with a valid checksum, by type (`GGA`, `RMC`, …; proprietary as `P` + maker).
    public var sentencesByType: [SentenceType: Int] = [:]
    /// Sentences whose checksum did not match: never used.
    public var badChecksum = 0
    /// Sentences without a `*hh` checksum (including lines cut short): never used.
    public var missingChecksum = 0
    /// Valid sentences that were not decoded: unknown, proprietary, AIS, satellites in view.
    public var skipped = 0
    /// Sentences of a decoded type whose fields were malformed or out of range: not used.
    public var invalid = 0
    /// Lines or line prefixes that were not NMEA at all (binary bytes, text, broken address).
    public var garbage = 0
    /// Comment lines (`#` first), as in gpsd's regression logs.
    public var comments = 0
    /// Lines longer than `NMEAReader.maxLineLength`, dropped.
    public var overlong = 0
    /// Epochs reported, by mode.
    public var fixes = 0
    public var noFix = 0
    public var fixes2D = 0
    public var fixes3D = 0

    public init() {}

    /// Valid sentences of all types.
    public var sentences: Int { sentencesByType.values.reduce(0, +) }

    public mutating func add(_ other: NMEAStats) {
        lines += other.lines
        for (k, v) in other.sentencesByType { sentencesByType[k, default: 0] += v }
        badChecksum += other.badChecksum
        missingChecksum += other.missingChecksum
        skipped += other.skipped
        invalid += other.invalid
        garbage += other.garbage
        comments += other.comments
        overlong += other.overlong
        fixes += other.fixes
        noFix += other.noFix
        fixes2D += other.fixes2D
        fixes3D += other.fixes3D
    }
}
