import Geo
import JSON

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

extension PlantedTree {
    /// The trees as a GeoJSON FeatureCollection of points, each with `appendJSONFields`'
    /// properties (`treeline trees`, the web's `/api/trees.geojson`).
    public static func featureCollection(_ trees: [PlantedTree]) -> [UInt8] {
        var out: [UInt8] = Array(#"{"type":"FeatureCollection","features":["#.utf8)
        for (k, t) in trees.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"type":"Feature","properties":{"#.utf8)
            t.appendJSONFields(to: &out)
            out.append(contentsOf: #"},"geometry":{"type":"Point","coordinates":["#.utf8)
            JSONBytes.appendFixed(t.coordinate.longitude, decimals: 7, to: &out)
            out.append(UInt8(ascii: ","))
            JSONBytes.appendFixed(t.coordinate.latitude, decimals: 7, to: &out)
            out.append(contentsOf: "]}}".utf8)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }
}
