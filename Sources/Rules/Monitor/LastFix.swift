import Geo

/// The last accepted fix: what the quality gate and transit need.
public struct LastFix: Sendable, Equatable {
    /// When the fix was taken, receiver UTC.
    public var time: UTCTime
    /// Where it was, WGS84.
    public var coordinate: Coordinate
    /// Its horizontal error, metres (see `QualityGate.horizontalError`).
    public var error: Double
    /// A later fix the gate dropped as an impossible jump, still pending: the next fix that
    /// agrees with it is accepted (the receiver really moved). Changes with dropped fixes too.
    public var pendingJump: PendingJump?

    /// A last accepted fix; `pendingJump` nil when no jump is pending.
    public init(time: UTCTime, coordinate: Coordinate, error: Double, pendingJump: PendingJump? = nil) {
        self.time = time
        self.coordinate = coordinate
        self.error = error
        self.pendingJump = pendingJump
    }
}
