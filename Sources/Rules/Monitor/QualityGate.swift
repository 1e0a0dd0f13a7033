import Geo

/// Decides which fixes the monitor may use, and counts the others by reason.
///
/// A jump is judged against the last accepted fix. A single outlier is dropped; but when the fix
/// after a dropped jump agrees with that jump (the receiver really moved, or the last accepted
/// fix was the outlier), it is accepted, so the gate cannot lock itself out.
public struct QualityGate: Sendable {
    /// The thresholds it applies: `maxErrorMetres` and `maxSpeed`.
    public var config: MonitorConfig
    /// Fixes dropped so far, by reason; a reason with none is absent.
    public private(set) var dropped: [DropReason: Int] = [:]
    /// Fixes accepted so far.
    public private(set) var accepted = 0
    /// The last accepted fix: its time and position (kept apart from `Fix`, whose copies per fix
    /// cost more than the rest of the gate).
    public private(set) var last: (time: UTCTime, coordinate: Coordinate)?
    /// The last accepted fix's position in space (for the monitor, which needs it too).
    public private(set) var lastSpace = ECEF(x: 0, y: 0, z: 0)
    /// A fix dropped as a jump since `last`: the next fix that agrees with it is accepted.
    private(set) var lastJump: (time: UTCTime, coordinate: Coordinate)?
    /// The fix being judged, in space.
    private var space = ECEF(x: 0, y: 0, z: 0)

    /// A gate that has seen no fix.
    public init(config: MonitorConfig) { self.config = config }

    /// Puts back a stored last accepted fix and the jump dropped after it (see
    /// `RegionMonitor.restore`); the counts stay.
    mutating func resume(last: (time: UTCTime, coordinate: Coordinate)?, jump: (time: UTCTime, coordinate: Coordinate)?) {
        self.last = last
        lastSpace = last.map { ECEF($0.coordinate) } ?? ECEF(x: 0, y: 0, z: 0)
        lastJump = last == nil ? nil : jump
    }

    /// The fix's horizontal error in metres: its own estimate (GST), else HDOP × 5 m, else 0.
    public static func horizontalError(_ fix: Fix) -> Double {
        if let e = fix.horizontalError { return e }
        if let h = fix.hdop { return h * MonitorConfig.metresPerHDOP }
        return 0
    }

    /// Nil when `fix` may be used, else why not (and it is counted).
    public mutating func check(_ fix: Fix) -> DropReason? {
        let reason = judge(fix)
        if let reason {
            dropped[reason, default: 0] += 1
        } else if let t = fix.time, let c = fix.coordinate {
            accepted += 1
            last = (t, c)
            lastSpace = space
            lastJump = nil
        }
        return reason
    }

    private mutating func judge(_ fix: Fix) -> DropReason? {
        guard fix.mode >= .twoD, let c = fix.coordinate else { return .noFix }
        guard let t = fix.time else { return .noTime }
        // NaN or negative: not an error estimate at all (the NMEA decoders refuse signed DOPs
        // and sigmas; a Fix made elsewhere may still carry one).
        let error = Self.horizontalError(fix)
        guard error >= 0, error <= config.maxErrorMetres else { return .inaccurate }
        space = ECEF(c)
        guard let (lt, lc) = last else { return nil }
        guard t > lt else { return .notAfterLast }
        let seconds = t.seconds(since: lt)
        if Geodesic.isWithin(config.maxSpeed * seconds, lc, lastSpace, c, space) { return nil }
        // A jump. Accept it if it agrees with the jump just before it.
        if let (jt, jc) = lastJump, t > jt,
           Geodesic.isWithin(config.maxSpeed * t.seconds(since: jt), jc, c) {
            return nil
        }
        lastJump = (t, c)
        return .impossibleJump
    }
}
