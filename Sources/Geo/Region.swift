/// What a region is for.
public enum RegionKind: String, Sendable, CaseIterable, Comparable {
    /// An area where trees may be planted, of the species it lists.
    case reforestation
    /// A plant to be watered every `intervalDays` days.
    case plant
    /// A photo-album zone: capture is allowed inside.
    case album

    /// Alphabetical by raw value: album, plant, reforestation.
    public static func < (a: RegionKind, b: RegionKind) -> Bool { a.rawValue < b.rawValue }
}

/// A fence with the properties its rule needs.
public struct Region: Sendable {
    /// Unique within a regions file (`properties.id`); event JSON and messages name the region by it.
    public var id: String
    /// What the region is for, which decides the monitor's rules for it.
    public var kind: RegionKind
    /// Display name; the id when the file gives none.
    public var name: String
    /// The fence, WGS84 degrees.
    public var shape: Shape
    /// Plants: days between waterings (1–30) and when the plant was last watered.
    public var intervalDays: Int?
    /// Plants: when the plant was last watered (`last_watered`); nil otherwise.
    public var lastWatered: UTCTime?
    /// Reforestation areas: species that may be planted.
    public var species: [String]
    /// Optional ordering hint for AR front-ends.
    public var priority: Double?

    /// A region as given; nothing is checked (`RegionFile` checks what it reads).
    public init(id: String, kind: RegionKind, name: String, shape: Shape, intervalDays: Int? = nil,
                lastWatered: UTCTime? = nil, species: [String] = [], priority: Double? = nil) {
        self.id = id
        self.kind = kind
        self.name = name
        self.shape = shape
        self.intervalDays = intervalDays
        self.lastWatered = lastWatered
        self.species = species
        self.priority = priority
    }

    /// Default radii when a Point feature has no `radius_m`.
    public static let defaultAlbumRadius = 150.0
    /// The radii a circle fence may have, metres: a metre (finer than a GPS can tell) to 1,000 km
    /// (as far as a polygon may reach from its centre).
    public static let radiusLimits = 1.0...1_000_000.0
    /// Radius in metres a plant's Point feature gets when it has no `radius_m`.
    public static let defaultPlantRadius = 30.0
}

/// One problem in a regions file, naming where it is and what is wrong.
public struct RegionIssue: Sendable, Equatable, CustomStringConvertible {
    /// The file as the caller named it.
    public var file: String
    /// 0-based index of the feature, nil for a problem with the file as a whole.
    public var feature: Int?
    /// The feature's id, when it has a usable one.
    public var id: String?
    /// Line and column, for syntax errors.
    public var line: Int?
    public var column: Int?
    /// What is wrong.
    public var message: String

    /// An issue with feature `feature` (nil: the file as a whole); `line` and `column` for syntax errors.
    public init(file: String, feature: Int?, id: String?, line: Int? = nil, column: Int? = nil, message: String) {
        self.file = file
        self.feature = feature
        self.id = id
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file[:line:column][: feature N (id "…")]: message`, with the parts that are known.
    public var description: String {
        var place = file
        if let line, let column { place += ":\(line):\(column)" }
        if let feature {
            place += ": feature \(feature)"
            if let id { place += " (id \"\(TextExcerpt.short(id))\")" }
        }
        return place + ": " + message
    }
}

/// Every problem found in a regions file; the file is refused as a whole.
public struct RegionFileError: Error, Sendable, CustomStringConvertible {
    /// Every problem, in the order found.
    public var issues: [RegionIssue]
    /// An error reporting `issues`.
    public init(issues: [RegionIssue]) { self.issues = issues }
    /// A count, then one indented line per issue.
    public var description: String {
        let n = issues.count
        return "\(n) error\(n == 1 ? "" : "s") in regions file:\n" + issues.map { "  " + $0.description }.joined(separator: "\n")
    }
}
