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

    /// A recorded tree; `planted` nil when its time is not known.
    public init(id: Int64, area: String, species: String, coordinate: Coordinate, planted: UTCTime? = nil) {
        self.id = id
        self.area = area
        self.species = species
        self.coordinate = coordinate
        self.planted = planted
    }
}

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

        /// Metres with one decimal, none when whole: 2.1, 3.
        static func metres(_ d: Double) -> String {
            let tenths = (d * 10).rounded()
            return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : String(tenths / 10)
        }

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

/// The planting rules: a tree goes inside a reforestation area (not in a hole), of a species the
/// area lists (an area listing none takes any species of the catalog), at least the species'
/// spacing from every recorded tree. Pure: regions, catalog and trees in, a verdict out.
public struct PlantingRules: Sendable {
    /// The regions; the areas are its reforestation regions.
    public let regions: RegionSet
    /// The species that may be planted, with their spacings.
    public let catalog: SpeciesCatalog

    /// The rules over `regions` and `catalog`.
    public init(regions: RegionSet, catalog: SpeciesCatalog) {
        self.regions = regions
        self.catalog = catalog
    }

    /// Whether area `i` takes `species`: it lists it, or lists none.
    public func takes(_ i: Int, _ species: Species) -> Bool {
        let listed = regions.regions[i].species
        return listed.isEmpty || listed.contains { catalog.named($0) == species }
    }

    /// The area (by id) and species (by name) of a plan, or why they do not go together: no such
    /// species or region, not a reforestation area, a species the area does not take.
    public func resolve(area id: String, species name: String) throws(PlantingVerdict.Refusal) -> (area: Int, species: Species) {
        guard let species = catalog.named(name) else {
            throw .unknownSpecies(name: name, suggestion: catalog.suggestion(for: name)?.latin)
        }
        guard let i = regions.regions.firstIndex(where: { $0.id == id }) else { throw .unknownArea(id: id) }
        let region = regions.regions[i]
        guard region.kind == .reforestation else { throw .notAnArea(id: id, kind: region.kind) }
        guard takes(i, species) else { throw .speciesNotAllowed(species: species.latin, area: id, allowed: region.species) }
        return (i, species)
    }

    /// The reforestation areas containing `c`, in file order.
    public func areas(at c: Coordinate) -> [Int] {
        regions.containing(c).filter { regions.regions[$0].kind == .reforestation }.sorted()
    }

    /// Whether `species` (a name) may be planted at `c`, in `area` if given (else the first area
    /// containing `c` that takes the species), with `trees` already planted.
    public func check(at c: Coordinate, species name: String?, area: String? = nil, trees: [PlantedTree]) -> PlantingVerdict {
        var verdict = PlantingVerdict()
        let g = Geodesic.wgs84
        var nearest: (tree: PlantedTree, metres: Double)?
        for t in trees {
            let d = g.distance(c, t.coordinate)
            if nearest == nil || d < nearest!.metres { nearest = (t, d) }
        }
        verdict.nearest = nearest
        var species: Species?
        if let name {
            guard let s = catalog.named(name) else {
                verdict.refusal = .unknownSpecies(name: name, suggestion: catalog.suggestion(for: name)?.latin)
                return verdict
            }
            species = s
            verdict.spacing = s.spacing
        }
        // Which area.
        let candidates: [Int]
        if let area {
            guard let i = regions.regions.firstIndex(where: { $0.id == area }) else {
                verdict.refusal = .unknownArea(id: area)
                return verdict
            }
            guard regions.regions[i].kind == .reforestation else {
                verdict.refusal = .notAnArea(id: area, kind: regions.regions[i].kind)
                return verdict
            }
            guard regions.contains(i, c) else {
                verdict.refusal = .outsideArea(id: area, metres: abs(regions.signedDistance(i, c)))
                return verdict
            }
            candidates = [i]
        } else {
            candidates = areas(at: c)
            if candidates.isEmpty {
                let near = regions.regions.indices.filter { regions.regions[$0].kind == .reforestation }
                    .map { (id: regions.regions[$0].id, metres: -regions.signedDistance($0, c)) }
                    .min { $0.metres < $1.metres }
                verdict.refusal = .outsideEveryArea(nearest: near)
                return verdict
            }
        }
        guard let species else {
            verdict.area = regions.regions[candidates[0]].id
            return verdict
        }
        guard let i = candidates.first(where: { takes($0, species) }) else {
            let r = regions.regions[candidates[0]]
            verdict.area = r.id
            verdict.refusal = .speciesNotAllowed(species: species.latin, area: r.id, allowed: r.species)
            return verdict
        }
        verdict.area = regions.regions[i].id
        if let (tree, metres) = nearest, metres < species.spacing {
            // The nearest is the one to name: it is the tightest.
            verdict.refusal = .tooNear(tree: tree.id, metres: metres, spacing: species.spacing)
        }
        return verdict
    }
}
