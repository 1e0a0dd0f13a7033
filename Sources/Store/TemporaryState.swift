// Stand-ins for the monitor's state types, until Rules has them (branch monitor-state).
import Geo
import Rules

public struct RegionState: Sendable, Equatable {
    public var inside: Bool
    public var enteredAt: UTCTime?
    public var dwellDone: Bool
    public var lastWatered: UTCTime?
    public var alertedFor: UTCTime?
    public init(inside: Bool = false, enteredAt: UTCTime? = nil, dwellDone: Bool = false, lastWatered: UTCTime? = nil, alertedFor: UTCTime? = nil) {
        self.inside = inside
        self.enteredAt = enteredAt
        self.dwellDone = dwellDone
        self.lastWatered = lastWatered
        self.alertedFor = alertedFor
    }
}

public struct LastFix: Sendable, Equatable {
    public var time: UTCTime
    public var coordinate: Coordinate
    public var error: Double
    public init(time: UTCTime, coordinate: Coordinate, error: Double) {
        self.time = time
        self.coordinate = coordinate
        self.error = error
    }
}
