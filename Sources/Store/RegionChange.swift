/// A change to the user layer of regions, as the database applies it with its event.
public enum RegionChange: Sendable, Equatable {
    /// A new region: its id (never used before) and its Feature (`Region.featureJSON`).
    case add(id: String, feature: String)
    /// The region's new Feature.
    case update(id: String, feature: String)
    case remove(id: String)

    public var id: String {
        switch self {
        case let .add(id, _), let .update(id, _), let .remove(id): return id
        }
    }
}
