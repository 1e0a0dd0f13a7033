import Foundation
import Geo
import GRDB
import Rules

/// What the store holds of the monitor: the last fix it used and each region's state, by id.
public struct StoredState: Sendable, Equatable {
    public var lastFix: LastFix?
    public var regions: [String: RegionState]
    public init(lastFix: LastFix? = nil, regions: [String: RegionState] = [:]) {
        self.lastFix = lastFix
        self.regions = regions
    }
}
