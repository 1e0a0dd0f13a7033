import Geo

/// A fix dropped as an impossible jump: its time and position.
public struct PendingJump: Sendable, Equatable {
    /// When the dropped fix was taken, receiver UTC.
    public var time: UTCTime
    /// Where it put the receiver, WGS84.
    public var coordinate: Coordinate

    /// A dropped fix's time and position.
    public init(time: UTCTime, coordinate: Coordinate) {
        self.time = time
        self.coordinate = coordinate
    }
}
