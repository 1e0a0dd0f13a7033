#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo
import Regions

/// Planting plans in reforestation areas: N trees from one tapped point (`plan`), or a whole area
/// (`fill`), each tree at least a species' spacing from every other and from the trees already
/// recorded, all inside the area and never in a hole.
///
/// ## Geometry
///
/// Work is done in the area fence's own local frame (`Fence.frame`, the orthographic plane the
/// monitor measures the same fence in), so that "inside" here is the monitor's "inside": the
/// containment test is `FenceCore`'s crossing test on the same planar vertices, and a point within
/// a millimetre of the boundary (or of `margin`) is settled by the `RegionSet` itself
/// (`contains` and `signedDistance ≥ margin`). A tree is inside when the set contains it and its
/// signed distance is at least `margin` (0 by default: on or inside the boundary; a hole's inside
/// is outside the area).
///
/// Spacing is kept in the plane with a micrometre to spare (`spacing·(1 + 10⁻⁹) + 10⁻⁶ m`).
/// Orthographic projection never lengthens a distance (the plane distance is a projection of the
/// chord, the chord is never longer than the geodesic), so two trees that far apart in the plane
/// are farther than the spacing on the ellipsoid, by Karney's measure, whatever the frame. The
/// maximum distance from the first tree is checked on the ellipsoid (`Geodesic.isWithin`).
///
/// ## `plan`: the reforestation app's placement, and better where geometry allows
///
/// The first tree is the tapped point. Each further tree gets `attemptsPerTree` (20) random
/// positions in the annulus between the spacing and the maximum distance around the first tree,
/// uniform by area, as the original app drew them. When all of them fail, the original gave up;
/// here a deterministic fallback scans candidates instead:
///
/// - points on a circle at the spacing around every tree (placed or recorded, within reach), at
///   most `h` apart along it: Bridson's annulus, packed tight;
/// - a square grid of step `h` over the disc of the maximum distance;
///
/// with `h = spacing · planResolution` (1/16 of the spacing: 31 cm at 5 m), grown to 1/512 of
/// the disc's radius when the disc is very large (its radius is `maxDistance`, or less where the
/// area does not reach that far). It takes the free candidate nearest the first
/// tree, circle points before grid points (which packs trees around the first one tightly), and
/// gives up only when no candidate is free. Then no free disc of radius `h/√2` is left: any such
/// disc holds a point of the grid. Placements are deterministic for a seed.
///
/// ## `fill`: the whole area
///
/// `FillPattern.hexagonal` (default) lays a triangular lattice of side the spacing, choosing the
/// best of 12 orientations and offsets (by the number of its points that fit), the densest
/// packing there is; `.poisson` is Bridson's Poisson-disk sampling (30 tries a tree), irregular
/// like a natural stand. Both are then gap-filled: every tree's spacing circle is walked at steps
/// of at most `h = spacing · fillResolution` (1/8) and every point of a grid of step `h` is
/// tried, placing whatever fits; so when `fill` returns, no free disc of radius `h/√2` is left
/// anywhere in the area (at 2 m spacing, 18 cm). A background grid of cells `spacing/√2` (one
/// tree a cell) keeps every test local: a 10 ha area at 2 m (some 29,000 trees) fills in a
/// small fraction of a second in release builds. Parts of a multipolygon far from each other get
/// grids of their own.
public struct PlantingPlanner: Sendable {
    /// `plan` and `fill` take an area by its index here.
    public let regions: RegionSet
    /// Random positions tried for each tree before the fallback (the original app's 20).
    public var attemptsPerTree = 20
    /// Whether `plan` falls back to its deterministic candidate scan after the random attempts
    /// (false: the original app's behaviour, giving up).
    public var fallback = true
    /// Metres every tree keeps from the area's boundary (signed distance at least this).
    public var margin = 0.0
    /// `plan`'s fallback resolution as a fraction of the spacing.
    public var planResolution = 1.0 / 16
    /// `fill`'s gap-filling resolution as a fraction of the spacing.
    public var fillResolution = 1.0 / 8

    /// A planner over `regions` with the default settings.
    public init(regions: RegionSet) { self.regions = regions }

    // MARK: Plan

    /// The area's context when the first tree may stand at `first`: in a reforestation area, by
    /// its rules, at least `spacing` from every recorded tree (on the ellipsoid); else why not.
    func firstTree(area: Int, at first: Coordinate, spacing: Double, existing: [Coordinate]) -> FirstTree {
        let region = regions.regions[area]
        guard region.kind == .reforestation else { return .refused(.notReforestation(region: region.id, kind: region.kind)) }
        guard first.isValid else { return .refused(.invalidFirstPoint) }
        let context = AreaContext(regions: regions, index: area, margin: margin)
        if let why = context.refusal(first) { return .refused(why) }
        let pFirst = ECEF(first)
        var nearest = Double.infinity
        for e in existing where e.isValid && ECEF(e).distance(to: pFirst) < spacing {
            nearest = min(nearest, Geodesic.wgs84.distance(first, e))
        }
        if nearest < spacing { return .refused(.firstNearRecordedTree(distance: nearest, spacing: spacing)) }
        return .allowed(context)
    }

    /// The background grid of trees for a plan: the first, and the recorded trees within
    /// `within` metres of it in space (farther ones could fold over in the orthographic plane).
    static func grid(window: PlanarBox, minDistance: Double, first: Planar, existing: [Coordinate], near pFirst: ECEF,
                     within: Double, frame: LocalFrame) -> TreeGrid {
        var grid = TreeGrid(box: window.grown(minDistance), minDistance: minDistance)
        grid.insert(first)
        for e in existing where e.isValid {
            let p = ECEF(e)
            if p.distance(to: pFirst) <= within { grid.insert(frame.project(p)) }
        }
        return grid
    }

    enum FirstTree {
        case allowed(AreaContext)
        case refused(PlanShortfall)
    }

    /// Places `count` trees of `species` in reforestation area `area` (an index in `regions`):
    /// the first at `at`, the others at least the species' spacing from it, from each other and
    /// from every tree in `existing`, at most `maxDistance` (default: 3 × spacing) from the first.
    /// When fewer than `count` fit, the result says why.
    public func plan(area: Int, species: Species, count: Int, at first: Coordinate, maxDistance: Double? = nil,
                     existing: [Coordinate] = [], seed: UInt64) -> PlanResult {
        precondition(regions.regions.indices.contains(area), "no region \(area)")
        let spacing = species.spacing
        precondition(spacing > 0 && spacing.isFinite, "spacing must be a positive number of metres")
        let reach = maxDistance ?? 3 * spacing
        precondition(!reach.isNaN, "maxDistance must be a number")
        func result(_ positions: [Coordinate], _ why: PlanShortfall?) -> PlanResult {
            PlanResult(positions: positions, requested: count, shortfall: why)
        }
        guard count > 0 else { return result([], nil) }
        let context: AreaContext
        switch firstTree(area: area, at: first, spacing: spacing, existing: existing) {
        case let .allowed(c): context = c
        case let .refused(why): return result([], why)
        }
        let pFirst = ECEF(first)

        var positions = [first]
        guard count > 1 else { return result(positions, nil) }
        let minDistance = Self.planarSpacing(spacing)
        guard reach > minDistance else { return result(positions, .reachBelowSpacing(maxDistance: reach, spacing: spacing)) }

        let frame = context.frame
        let q0 = frame.project(pFirst)
        // The disc that matters: no farther than the area reaches (a huge maxDistance costs nothing).
        let extent = min(reach, pFirst.distance(to: ECEF(frame.origin)) + context.reach + 1)
        let window = PlanarBox(minX: q0.x - extent, minY: q0.y - extent, maxX: q0.x + extent, maxY: q0.y + extent)
            .grown(1e-3 + 1e-6 * extent)
        let admission = context.admission(window: window, cellSize: spacing)
        var grid = Self.grid(window: window, minDistance: minDistance, first: q0, existing: existing, near: pFirst,
                             within: extent + minDistance + 1, frame: frame)
        let reach2 = reach * reach
        func withinReach(_ q: Planar) -> Bool {
            let dx = q.x - q0.x, dy = q.y - q0.y
            return dx * dx + dy * dy <= reach2
        }
        /// The coordinate of `q` if it lies within `reach` of the first tree on the ellipsoid.
        func onEllipsoid(_ q: Planar) -> Coordinate? {
            let c = frame.coordinate(q)
            return Geodesic.isWithin(reach, first, pFirst, c, ECEF(c)) ? c : nil
        }

        var rng = PlannerRandom(seed: seed)
        var scan: FallbackScan?
        let inner2 = minDistance * minDistance * (1 + 1e-12)
        for _ in 1..<count {
            var chosen: (Planar, Coordinate)?
            for _ in 0..<max(0, attemptsPerTree) {
                let r = (inner2 + rng.unit() * (reach2 - inner2)).squareRoot(), theta = 2 * Double.pi * rng.unit()
                let q = Planar(x: q0.x + r * cos(theta), y: q0.y + r * sin(theta))
                guard withinReach(q), grid.isFree(q), admission.admits(q), let c = onEllipsoid(q) else { continue }
                chosen = (q, c)
                break
            }
            if chosen == nil, fallback {
                if scan == nil {
                    let h = max(spacing * planResolution, extent / 512)
                    scan = FallbackScan(center: q0, reach: extent, step: h, ringRadius: Self.ringRadius(minDistance))
                    scan!.addGrid(admits: { withinReach($0) && admission.admits($0) })
                    for p in grid.points { scan!.addRing(around: p) { withinReach($0) && admission.admits($0) } }
                }
                while let q = scan!.next(isFree: grid.isFree) {
                    if let c = onEllipsoid(q) {
                        chosen = (q, c)
                        break
                    }
                }
            }
            guard let (q, c) = chosen else {
                return result(positions, .full(maxDistance: reach, spacing: spacing))
            }
            grid.insert(q)
            positions.append(c)
            scan?.addRing(around: q) { withinReach($0) && admission.admits($0) }
        }
        return result(positions, nil)
    }

    // MARK: Fill

    /// Fills reforestation area `area` with trees of `species` at its spacing, keeping clear of
    /// `existing` trees. See the type's documentation for the patterns and the guarantee.
    public func fill(area: Int, species: Species, existing: [Coordinate] = [], seed: UInt64,
                     pattern: FillPattern = .hexagonal) -> FillResult {
        precondition(regions.regions.indices.contains(area), "no region \(area)")
        let spacing = species.spacing
        precondition(spacing > 0 && spacing.isFinite, "spacing must be a positive number of metres")
        let context = AreaContext(regions: regions, index: area, margin: margin)
        let figures = context.figures(spacing: spacing)
        let region = regions.regions[area]
        guard region.kind == .reforestation else {
            return FillResult(positions: [], figures: figures,
                              refusal: PlanShortfall.notReforestation(region: region.id, kind: region.kind).description)
        }
        let minDistance = Self.planarSpacing(spacing)
        let frame = context.frame
        var rng = PlannerRandom(seed: seed)

        // Recorded trees near the area, in the plane (the chord test keeps far ones, which the
        // orthographic plane would fold over, out).
        let pad = minDistance + margin + 2e-3
        let origin = ECEF(frame.origin)
        var recorded: [Planar] = []
        for e in existing where e.isValid {
            let p = ECEF(e)
            if p.distance(to: origin) <= context.reach + pad + 1 { recorded.append(frame.project(p)) }
        }

        var out: [Coordinate] = []
        for cluster in context.clusters(pad: pad) {
            var filler = Filler(admission: context.admission(window: cluster.box.grown(pad), cellSize: max(spacing, 4 * (margin + 1e-3)),
                                                             rings: cluster.rings),
                                box: cluster.box, minDistance: minDistance, step: spacing * fillResolution)
            for q in recorded where cluster.box.grown(pad).contains(q) { filler.record(q) }
            switch pattern {
            case .hexagonal: filler.lattice(edgeAngle: cluster.longestEdgeAngle, rng: &rng)
            case .poisson: filler.bridson(rng: &rng)
            }
            filler.fillGaps(rng: &rng)
            for q in filler.placed { out.append(frame.coordinate(q)) }
        }
        return FillResult(positions: out, figures: figures, refusal: nil)
    }

    /// The area of region `area` in square metres (outer rings less holes, in the fence's local
    /// frame: within 10⁻⁶ of the ellipsoidal area for areas up to some 10 km across), its
    /// perimeter, and the bounds on trees at `spacing`.
    public func figures(area: Int, spacing: Double) -> AreaFigures {
        precondition(regions.regions.indices.contains(area), "no region \(area)")
        return AreaContext(regions: regions, index: area, margin: margin).figures(spacing: spacing)
    }

    /// The spacing kept in the plane: a micrometre (and a part in 10⁹) more than asked, so that
    /// rounding in coordinates never brings two trees under it.
    static func planarSpacing(_ spacing: Double) -> Double { spacing * (1 + 1e-9) + 1e-6 }

    /// Candidates on a tree's circle stand this far from it: just beyond `minDistance`, so that
    /// rounding never rejects them for their own tree.
    static func ringRadius(_ minDistance: Double) -> Double { minDistance * (1 + 2e-9) }
}
