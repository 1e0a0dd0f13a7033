import Geo
import Regions

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
