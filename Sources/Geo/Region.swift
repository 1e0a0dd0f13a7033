/// What a region is for.
public enum RegionKind: String, Sendable, CaseIterable, Comparable {
    case reforestation
    case plant
    case album

    public static func < (a: RegionKind, b: RegionKind) -> Bool { a.rawValue < b.rawValue }
}

/// A fence with the properties its rule needs.
public struct Region: Sendable {
    public var id: String
    public var kind: RegionKind
    public var name: String
    public var shape: Shape
    /// Plants: days between waterings (1–30) and when the plant was last watered.
    public var intervalDays: Int?
    public var lastWatered: UTCTime?
    /// Reforestation areas: species that may be planted.
    public var species: [String]
    /// Optional ordering hint for AR front-ends.
    public var priority: Double?

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
    public static let defaultPlantRadius = 30.0
}

/// One problem in a regions file, naming where it is and what is wrong.
public struct RegionIssue: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 0-based index of the feature, nil for a problem with the file as a whole.
    public var feature: Int?
    public var id: String?
    /// Line and column, for syntax errors.
    public var line: Int?
    public var column: Int?
    public var message: String

    public init(file: String, feature: Int?, id: String?, line: Int? = nil, column: Int? = nil, message: String) {
        self.file = file
        self.feature = feature
        self.id = id
        self.line = line
        self.column = column
        self.message = message
    }

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
    public var issues: [RegionIssue]
    public init(issues: [RegionIssue]) { self.issues = issues }
    public var description: String {
        let n = issues.count
        return "\(n) error\(n == 1 ? "" : "s") in regions file:\n" + issues.map { "  " + $0.description }.joined(separator: "\n")
    }
}
