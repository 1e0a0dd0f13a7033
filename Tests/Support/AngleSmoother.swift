/// A low-pass filter for one angle: each sample moves the smoothed value `factor` of the way
/// towards it, `value += factor·(sample − value)`.
///
/// A heading is filtered on the circle: the step is the difference wrapped into (−180, 180], so
/// from 350 a sample of 10 is 20° ahead, not 340° back (350 → 10 gives 358.0, then 2.8, then
/// 5.68), and the value stays in [0, 360). A pitch is filtered on the line.
///
/// While a compass settles, its first readings can be far off; smoothing them would sweep the
/// boxes slowly across the screen. So during the first `settlingSeconds` after the first sample,
/// a sample more than `jumpDegrees` away from the previous sample is taken as it is (as
/// HDAugmentedReality does for its first 5 s and 10°). The first sample is always taken as it is.
public struct AngleSmoother: Sendable, Equatable {
    /// How far each sample moves the value: more than 0, at most 1 (1: no smoothing).
    public var factor: Double
    /// While settling, a sample more than this many degrees from the previous one is taken as it is.
    public var jumpDegrees: Double
    /// Seconds after the first sample during which jumps are taken as they are.
    public var settlingSeconds: Double
    /// Whether the angle is a heading, filtered on the circle and kept in [0, 360); else a pitch.
    public let circular: Bool
    /// The smoothed angle; nil before the first sample.
    public private(set) var value: Double?
    private var firstTime: Double?
    private var lastSample: Double?

    /// A smoother with no sample yet. Traps unless 0 < `factor` ≤ 1.
    public init(factor: Double = 0.4, circular: Bool, jumpDegrees: Double = 20, settlingSeconds: Double = 10) {
        precondition(factor > 0 && factor <= 1, "a smoothing factor is more than 0 and at most 1 (1: no smoothing)")
        self.factor = factor
        self.circular = circular
        self.jumpDegrees = jumpDegrees
        self.settlingSeconds = settlingSeconds
    }

    /// Adds a sample taken at `time` (seconds, any monotonic clock) and returns the smoothed angle.
    @discardableResult
    public mutating func add(_ sample: Double, at time: Double) -> Double {
        let s = circular ? Self.normalized(sample) : sample
        defer { lastSample = s }
        guard let current = value, let first = firstTime, let last = lastSample else {
            firstTime = time
            value = s
            return s
        }
        if time - first < settlingSeconds, abs(difference(s, last)) > jumpDegrees {
            value = s
            return s
        }
        var v = current + factor * difference(s, current)
        if circular { v = Self.normalized(v) }
        value = v
        return v
    }

    /// `a − b`, wrapped into (−180, 180] for a circular angle.
    func difference(_ a: Double, _ b: Double) -> Double {
        guard circular else { return a - b }
        let d = Self.normalized(a - b)
        return d > 180 ? d - 360 : d
    }

    /// Into [0, 360).
    static func normalized(_ a: Double) -> Double {
        let r = a.truncatingRemainder(dividingBy: 360)
        let v = r < 0 ? r + 360 : r
        return v == 360 ? 0 : v
    }
}
