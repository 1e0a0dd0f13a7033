import Geo

/// A fix dropped as an impossible jump: its time and position.
public struct PendingJump: Sendable, Equatable {
    public var time: UTCTime
    public var coordinate: Coordinate

    public init(time: UTCTime, coordinate: Coordinate) {
        self.time = time
        self.coordinate = coordinate
    }
}
