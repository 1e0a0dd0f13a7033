import Geo

/// A tree already in the ground (recorded in the store): where, what, in which area.
public struct PlantedTree: Sendable, Equatable {
    /// Its number in the store (`#12` in messages).
    public var id: Int64
    /// The id of the reforestation area it was recorded in.
    public var area: String
    /// Its species, as recorded (the Latin name).
    public var species: String
    /// Where it stands, WGS84.
    public var coordinate: Coordinate
    /// When it was recorded.
    public var planted: UTCTime?
    /// The planting project it belongs to, if any (`treeline project export`).
    public var project: String?

    /// A recorded tree; `planted` nil when its time is not known.
    public init(id: Int64, area: String, species: String, coordinate: Coordinate, planted: UTCTime? = nil, project: String? = nil) {
        self.id = id
        self.area = area
        self.species = species
        self.coordinate = coordinate
        self.planted = planted
        self.project = project
    }
}
