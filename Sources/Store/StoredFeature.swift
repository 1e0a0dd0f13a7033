/// A region as the database keeps it: its id and its GeoJSON Feature's text.
public struct StoredFeature: Sendable, Equatable {
    public var id: String
    public var feature: String

    public init(id: String, feature: String) {
        self.id = id
        self.feature = feature
    }
}
