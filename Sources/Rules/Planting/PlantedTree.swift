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
    /// The trees as a GeoJSON FeatureCollection of points, each with `writeMembers`' properties
    /// (`treeline trees`, the web's `/api/trees.geojson`).
    public static func featureCollection(_ trees: [PlantedTree]) -> [UInt8] {
        JSONWriter.object { o in
            o.member("type", "FeatureCollection")
            o.member("features") { w in
                w.array(trees) { w, t in
                    w.object { f in
                        f.member("type", "Feature")
                        f.member("properties") { $0.object { t.writeMembers(to: &$0) } }
                        f.member("geometry") { w in
                            w.object { g in
                                g.member("type", "Point")
                                g.member("coordinates") { w in
                                    w.array { c in
                                        c.value(t.coordinate.longitude, decimals: 7)
                                        c.value(t.coordinate.latitude, decimals: 7)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
