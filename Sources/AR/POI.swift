import Geo
import Regions

/// A point of interest: a plant, an album zone, a planting area, a viewpoint.
public struct POI: Sendable, Equatable {
    /// Unique within a layout; the last tie-break of every ordering.
    public var id: String
    /// What a front-end shows; the id when none is given.
    public var name: String
    /// Where it is, WGS84.
    public var coordinate: Coordinate
    /// Higher comes first: when choosing the active POIs and when stacking (placed first, so
    /// lifted least). 0 when the source gives none, which keeps the reference's order.
    public var priority: Double

    /// A POI; `name` defaults to the id.
    public init(id: String, name: String? = nil, coordinate: Coordinate, priority: Double = 0) {
        self.id = id
        self.name = name ?? id
        self.coordinate = coordinate
        self.priority = priority
    }

    /// A region as a POI: a circle's centre or the polygons' area centroid, with its name and priority.
    public init(region: Region) {
        self.init(id: region.id, name: region.name, coordinate: region.shape.centroid, priority: region.priority ?? 0)
    }
}
