import Geo

/// The last accepted fix: what the quality gate and transit need.
public struct LastFix: Sendable, Equatable {
    public var time: UTCTime
    public var coordinate: Coordinate
    /// Its horizontal error, metres (see `QualityGate.horizontalError`).
    public var error: Double
    /// A later fix the gate dropped as an impossible jump, still pending: the next fix that
    /// agrees with it is accepted (the receiver really moved). Changes with dropped fixes too.
    public var pendingJump: PendingJump?

    public init(time: UTCTime, coordinate: Coordinate, error: Double, pendingJump: PendingJump? = nil) {
        self.time = time
        self.coordinate = coordinate
        self.error = error
        self.pendingJump = pendingJump
    }
}
