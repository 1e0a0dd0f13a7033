import Geo
/// A fence with the properties its rule needs.
public struct Region: Sendable, Equatable {
    /// Unique within a regions file (`properties.id`); event JSON and messages name the region by it.
    public var id: String
    /// What the region is for, which decides the monitor's rules for it.
    public var kind: RegionKind
    /// Display name; the id when the file gives none.
    public var name: String
    /// The fence, WGS84 degrees.
    public var shape: Shape
    /// Plants: days between waterings (`intervalLimits`).
    public var intervalDays: Int?
    /// Plants: when the plant was last watered (`last_watered`); nil when never (it is due now).
    public var lastWatered: UTCTime?
    /// Reforestation areas: species that may be planted. A plant: its species, one name (`species`
    /// in its feature is a string), or none.
    public var species: [String]
    /// Optional ordering hint for AR front-ends.
    public var priority: Double?
    /// A free note (`note`): what the plant is, where the album's pictures go.
    public var note: String?
    /// The planting project an area belongs to (`project`), for `treeline project export`.
    public var project: String?

    /// A region as given; nothing is checked (`RegionFile` checks what it reads).
    public init(id: String, kind: RegionKind, name: String, shape: Shape, intervalDays: Int? = nil,
                lastWatered: UTCTime? = nil, species: [String] = [], priority: Double? = nil, note: String? = nil,
                project: String? = nil) {
        self.id = id
        self.kind = kind
        self.name = name
        self.shape = shape
        self.intervalDays = intervalDays
        self.lastWatered = lastWatered
        self.species = species
        self.priority = priority
        self.note = note
        self.project = project
    }

    /// Default radii when a Point feature has no `radius_m`.
    public static let defaultAlbumRadius = 150.0
    /// The radii a circle fence may have, metres: a metre (finer than a GPS can tell) to 1,000 km
    /// (as far as a polygon may reach from its centre).
    public static let radiusLimits = 1.0...1_000_000.0
    /// Radius in metres a plant's Point feature gets when it has no `radius_m`.
    public static let defaultPlantRadius = 30.0
    /// The watering intervals a plant may have, days: daily to yearly (a cactus wants about 40).
    public static let intervalLimits = 1...365
    /// The longest `note` or `project`, bytes.
    public static let maxTextBytes = 4096
}
