
/// Which events a subscriber wants: nil lists mean all. Kinds are region kinds (`plant`,
/// `album`, `reforestation`), regions are ids, types are event types (`enter`, `water_due`, …).
public struct EventFilter: Sendable, Equatable {
    public var kinds: Set<String>?
    public var regions: Set<String>?
    public var types: Set<String>?

    public init(kinds: Set<String>? = nil, regions: Set<String>? = nil, types: Set<String>? = nil) {
        self.kinds = kinds
        self.regions = regions
        self.types = types
    }

    public static let all = EventFilter()
}
