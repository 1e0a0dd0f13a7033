
/// Which events a subscriber wants: nil lists mean all. Kinds are region kinds (`plant`,
/// `album`, `reforestation`), regions are ids, types are event types (`enter`, `water_due`, …).
public struct EventFilter: Sendable, Equatable {
    public var kinds: Set<String>?
    public var regions: Set<String>?
    public var types: Set<String>?
    /// Each `base_layer` record is followed by the region events it stands for (a
    /// `region_added`, `region_updated` or `region_removed` per region of the files it
    /// changed, with its Feature), as the journal had them before the base layer was
    /// announced in one record. The lists filter those events as any others.
    public var baseRegions: Bool

    public init(kinds: Set<String>? = nil, regions: Set<String>? = nil, types: Set<String>? = nil, baseRegions: Bool = false) {
        self.kinds = kinds
        self.regions = regions
        self.types = types
        self.baseRegions = baseRegions
    }

    public static let all = EventFilter()
}
