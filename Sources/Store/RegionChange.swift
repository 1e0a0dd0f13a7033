/// A change to the user layer of regions, as the database applies it with its event.
public enum RegionChange: Sendable, Equatable {
    /// A new region: its id (never used before) and its Feature (`Region.featureJSON`).
    case add(id: String, feature: String)
    /// The region's new Feature.
    case update(id: String, feature: String)
    case remove(id: String)
    /// A region removed from the user layer brought back with its own id (`restore_region`):
    /// the id is the user layer's already, so it is not recorded as used again.
    case restore(id: String, feature: String)

    public var id: String {
        switch self {
        case let .add(id, _), let .update(id, _), let .remove(id), let .restore(id, _): return id
        }
    }
}
