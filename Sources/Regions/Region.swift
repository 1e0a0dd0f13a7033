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
    /// The properties most regions go without, in one box shared by copies: a bare fence (most of
    /// a country's) costs no more than its id, name and shape; nil when all are unset.
    private var details: DetailsBox?

    /// Plants: days between waterings (`intervalLimits`).
    public var intervalDays: Int? {
        get { self[\.intervalDays] }
        set { self[\.intervalDays] = newValue }
    }
    /// Plants: when the plant was last watered (`last_watered`); nil when never (it is due now).
    public var lastWatered: UTCTime? {
        get { self[\.lastWatered] }
        set { self[\.lastWatered] = newValue }
    }
    /// Reforestation areas: species that may be planted. A plant: its species, one name (`species`
    /// in its feature is a string), or none.
    public var species: [String] {
        get { self[\.species] }
        set { self[\.species] = newValue }
    }
    /// Optional ordering hint for AR front-ends.
    public var priority: Double? {
        get { self[\.priority] }
        set { self[\.priority] = newValue }
    }
    /// A free note (`note`): what the plant is, where the album's pictures go.
    public var note: String? {
        get { self[\.note] }
        set { self[\.note] = newValue }
    }
    /// The planting project an area belongs to (`project`), for `treeline project export`.
    public var project: String? {
        get { self[\.project] }
        set { self[\.project] = newValue }
    }

    /// A region as given; nothing is checked (`RegionFile` checks what it reads).
    public init(id: String, kind: RegionKind, name: String, shape: Shape, intervalDays: Int? = nil,
                lastWatered: UTCTime? = nil, species: [String] = [], priority: Double? = nil, note: String? = nil,
                project: String? = nil) {
        self.id = id
        self.kind = kind
        self.name = name
        self.shape = shape
        let d = Details(intervalDays: intervalDays, lastWatered: lastWatered, species: species, priority: priority,
                        note: note, project: project)
        details = d.isEmpty ? nil : DetailsBox(d)
    }

    /// One of the boxed properties. Setting one makes a new box (copies of this region keep
    /// theirs), or none when all are unset.
    private subscript<T>(_ property: WritableKeyPath<Details, T>) -> T {
        get { (details?.value ?? Details())[keyPath: property] }
        set {
            var d = details?.value ?? Details()
            d[keyPath: property] = newValue
            details = d.isEmpty ? nil : DetailsBox(d)
        }
    }

    private struct Details: Sendable, Equatable {
        var intervalDays: Int?
        var lastWatered: UTCTime?
        var species: [String] = []
        var priority: Double?
        var note: String?
        var project: String?

        var isEmpty: Bool { self == Details() }
    }

    private final class DetailsBox: Sendable, Equatable {
        let value: Details
        init(_ value: Details) { self.value = value }
        static func == (a: DetailsBox, b: DetailsBox) -> Bool { a === b || a.value == b.value }
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
