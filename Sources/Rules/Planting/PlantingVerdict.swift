import Geo
import JSON
import Regions

/// "May I plant here?": the answer and why.
public struct PlantingVerdict: Sendable, Equatable {
    /// Why a tree may not go there, or why a plan's area and species do not go together.
    public enum Refusal: Error, Sendable, Equatable {
        /// Not inside any reforestation area (or not inside the one asked for).
        case outsideEveryArea(nearest: (id: String, metres: Double)?)
        /// Outside the area asked for, or in one of its holes, `metres` from its edge.
        case outsideArea(id: String, metres: Double)
        /// No region has this id.
        case unknownArea(id: String)
        /// The region asked for is not a reforestation area; `kind` is what it is.
        case notAnArea(id: String, kind: RegionKind)
        /// The catalog has no species of this name; `suggestion` is the Latin name of a close one, if any.
        case unknownSpecies(name: String, suggestion: String?)
        /// The area does not list this species.
        case speciesNotAllowed(species: String, area: String, allowed: [String])
        /// Closer than the species' spacing to a recorded tree.
        case tooNear(tree: Int64, metres: Double, spacing: Double)

        /// Equal when the messages are (so distances compare to a tenth of a metre).
        public static func == (a: Refusal, b: Refusal) -> Bool { a.message == b.message }

        /// Metres to a tenth, without a needless ".0": 2.1, 3.
        static func metres(_ d: Double) -> String { NumberText.shortest((d * 10).rounded() / 10) }

        /// The refusal in words, distances in metres to one decimal.
        public var message: String {
            switch self {
            case .outsideEveryArea(let nearest):
                let hint = nearest.map { "; the nearest, \($0.id), is \(Self.metres($0.metres)) m away" } ?? ""
                return "outside every reforestation area\(hint)"
            case let .outsideArea(id, metres):
                return "outside area \(id) (\(Self.metres(metres)) m from its edge, or in one of its holes)"
            case .unknownArea(let id):
                return "no region '\(id)': `treeline check` lists the regions of a file"
            case let .notAnArea(id, kind):
                return "'\(id)' is a\(kind == .album ? "n" : "") \(kind.rawValue), not a reforestation area"
            case let .unknownSpecies(name, suggestion):
                return "no species '\(name)' in the catalog" + (suggestion.map { " (did you mean \($0)?)" } ?? "")
            case let .speciesNotAllowed(species, area, allowed):
                return "\(species) is not planted in \(area): it takes " + (allowed.isEmpty ? "no species listed" : allowed.joined(separator: ", "))
            case let .tooNear(tree, metres, spacing):
                return "\(Self.metres(metres)) m from tree #\(tree) but the spacing is \(Self.metres(spacing)) m"
            }
        }
    }

    /// The area the point is in (nil when outside every one).
    public var area: String?
    /// The species' spacing, metres (nil when no species was asked about).
    public var spacing: Double?
    /// The nearest recorded tree and its distance.
    public var nearest: (tree: PlantedTree, metres: Double)?
    /// Why not, nil when allowed.
    public var refusal: Refusal?

    /// Whether the tree may be planted: there is no refusal.
    public var allowed: Bool { refusal == nil }

    /// A verdict; with no refusal it allows.
    public init(area: String? = nil, spacing: Double? = nil, nearest: (tree: PlantedTree, metres: Double)? = nil, refusal: Refusal? = nil) {
        self.area = area
        self.spacing = spacing
        self.nearest = nearest
        self.refusal = refusal
    }

    /// Every field equal, the nearest tree and its distance included.
    public static func == (a: PlantingVerdict, b: PlantingVerdict) -> Bool {
        a.area == b.area && a.spacing == b.spacing && a.refusal == b.refusal
            && a.nearest?.tree == b.nearest?.tree && a.nearest?.metres == b.nearest?.metres
    }
}
