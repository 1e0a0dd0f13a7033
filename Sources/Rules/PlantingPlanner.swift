#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

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

    public init(regions: RegionSet) { self.regions = regions }

    // MARK: Plan

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
        let region = regions.regions[area]
        guard region.kind == .reforestation else { return result([], .notReforestation(region: region.id, kind: region.kind)) }

        guard first.isValid else { return result([], .invalidFirstPoint) }
        let context = AreaContext(regions: regions, index: area, margin: margin)
        if let why = context.refusal(first) { return result([], why) }

        // The first tree against the recorded ones, on the ellipsoid.
        let pFirst = ECEF(first)
        var nearest = Double.infinity
        for e in existing where e.isValid && ECEF(e).distance(to: pFirst) < spacing {
            nearest = min(nearest, Geodesic.wgs84.distance(first, e))
        }
        if nearest < spacing { return result([], .firstNearRecordedTree(distance: nearest, spacing: spacing)) }

        var positions = [first]
        guard count > 1 else { return result(positions, nil) }
        let minDistance = Self.planarSpacing(spacing)
        guard reach > minDistance else { return result(positions, .reachBelowSpacing(maxDistance: reach, spacing: spacing)) }

        let frame = context.frame
        let q0 = frame.project(pFirst)
        // The disc that matters: no farther than the area reaches (a huge maxDistance costs nothing).
        let extent = min(reach, pFirst.distance(to: ECEF(frame.frame.origin)) + context.reach + 1)
        let window = PlanarBox(minX: q0.x - extent, minY: q0.y - extent, maxX: q0.x + extent, maxY: q0.y + extent)
            .grown(1e-3 + 1e-6 * extent)
        let admission = context.admission(window: window, cellSize: spacing)
        var grid = TreeGrid(box: window.grown(minDistance), minDistance: minDistance)
        grid.insert(q0)
        for e in existing where e.isValid {
            // Only those that can matter (farther ones could fold over in the orthographic plane).
            let p = ECEF(e)
            if p.distance(to: pFirst) <= extent + minDistance + 1 { grid.insert(frame.project(p)) }
        }
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
        let origin = ECEF(frame.frame.origin)
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

/// How `fill` lays trees out.
public enum FillPattern: String, Sendable, CaseIterable {
    /// A triangular lattice at the spacing (the densest packing), then gap-filled.
    case hexagonal
    /// Bridson's Poisson-disk sampling (irregular), then gap-filled.
    case poisson
}

/// A planting plan: the positions placed, the first being the tapped point, and why there are
/// fewer than asked, if there are.
public struct PlanResult: Sendable, Equatable {
    public var positions: [Coordinate]
    public var requested: Int
    public var shortfall: PlanShortfall?

    public init(positions: [Coordinate], requested: Int, shortfall: PlanShortfall?) {
        self.positions = positions
        self.requested = requested
        self.shortfall = shortfall
    }

    public var isComplete: Bool { shortfall == nil }

    /// "only K of N trees fit: …why", when fewer than asked fit.
    public var reason: String? {
        shortfall.map { "only \(positions.count) of \(requested) tree\(requested == 1 ? "" : "s") fit: \($0)" }
    }
}

/// Why a plan has fewer trees than asked.
public enum PlanShortfall: Sendable, Equatable, CustomStringConvertible {
    /// The region is not a reforestation area.
    case notReforestation(region: String, kind: RegionKind)
    /// The first point is not a position (not finite, or beyond ±90° / ±180°).
    case invalidFirstPoint
    /// The first point is outside the area, `distance` metres from its boundary.
    case firstOutside(distance: Double)
    /// The first point is in a hole of the area, `distance` metres from the hole's edge.
    case firstInHole(distance: Double)
    /// The first point is inside, but nearer the boundary than the planner's margin.
    case firstNearEdge(distance: Double, margin: Double)
    /// The first point is `distance` metres from a recorded tree, less than the spacing.
    case firstNearRecordedTree(distance: Double, spacing: Double)
    /// The maximum distance from the first tree is not more than the spacing: nothing else fits.
    case reachBelowSpacing(maxDistance: Double, spacing: Double)
    /// No room is left within `maxDistance` of the first tree (at the fallback's resolution).
    case full(maxDistance: Double, spacing: Double)

    public var description: String {
        typealias T = PlannerText
        switch self {
        case let .notReforestation(id, kind):
            return "region '\(id)' is \(kind == .album ? "an" : "a") \(kind.rawValue) area, not a reforestation area"
        case .invalidFirstPoint:
            return "the first point is not a valid position"
        case let .firstOutside(d):
            return "the first point is outside the area (\(T.nonzero(d)) m from its edge)"
        case let .firstInHole(d):
            return "the first point is in a hole of the area (\(T.nonzero(d)) m from the hole's edge)"
        case let .firstNearEdge(d, margin):
            return "the first point is \(T.measured(d, below: margin)) m from the area's edge, the margin is \(T.metres(margin)) m"
        case let .firstNearRecordedTree(d, spacing):
            return "the first point is \(T.measured(d, below: spacing)) m from a recorded tree, spacing is \(T.metres(spacing)) m"
        case let .reachBelowSpacing(reach, spacing):
            return "the maximum distance from the first tree (\(T.metres(reach)) m) is not more than the spacing (\(T.metres(spacing)) m)"
        case let .full(reach, spacing):
            return "the area within \(T.metres(reach)) m of the first tree is full at \(T.metres(spacing)) m spacing"
        }
    }
}

/// A fill: the positions, and the area's figures to compare them with.
public struct FillResult: Sendable {
    public var positions: [Coordinate]
    public var figures: AreaFigures
    /// Why nothing was placed (the region is not a reforestation area); nil otherwise.
    public var refusal: String?
}

/// An area's size and the bounds on how many trees fit in it at a spacing.
public struct AreaFigures: Sendable, Equatable {
    /// Square metres: outer rings less holes.
    public var squareMetres: Double
    /// Metres of boundary, holes included.
    public var perimeter: Double
    public var spacing: Double

    public init(squareMetres: Double, perimeter: Double, spacing: Double) {
        self.squareMetres = squareMetres
        self.perimeter = perimeter
        self.spacing = spacing
    }

    /// `area / spacing²`: trees on a square grid (the catalog's plants per hectare).
    public var squareBound: Double { squareMetres / (spacing * spacing) }
    /// `2/√3 · area / spacing²`: the densest packing's density (a triangular lattice); a finite
    /// area can hold a few more along its boundary (for a convex one at most
    /// `hexagonalBound + perimeter/(2·spacing) + 1`, Oler's bound).
    public var hexagonalBound: Double { 2 / 3.0.squareRoot() * squareBound }
}

// MARK: - The area, in its fence's frame

/// A region's rings in its fence's local frame, and how to ask whether a planar point may hold a
/// tree.
struct AreaContext {
    let regions: RegionSet
    let index: Int
    let margin: Double
    let frame: PlanarFrame
    /// Polygons: each part's rings (outer first), open.
    let parts: [[[Planar]]]
    /// Circles: the radius (centred at the frame's origin); 0 for polygons.
    let radius: Double
    /// The largest chord from the frame's origin to a vertex (circles: the radius).
    let reach: Double

    /// Millimetres within which the planar answer defers to the region set.
    static let tolerance = 1e-3

    init(regions: RegionSet, index: Int, margin: Double) {
        self.regions = regions
        self.index = index
        self.margin = margin
        let fence = Fence(regions.regions[index].shape)
        frame = PlanarFrame(fence.frame)
        switch regions.regions[index].shape {
        case let .circle(_, r):
            radius = r
            parts = []
            reach = r
        case let .polygons(shape):
            radius = 0
            var parts: [[[Planar]]] = []
            var ring = 0, start = 0
            for p in shape {
                var rings: [[Planar]] = []
                for _ in p {
                    let end = Int(fence.ringEnds[ring])
                    rings.append(Array(fence.vertices[start..<end]))
                    start = end
                    ring += 1
                }
                parts.append(rings)
            }
            self.parts = parts
            let o = ECEF(fence.frame.origin)
            reach = shape.flatMap { $0.flatMap { $0 } }.reduce(0) { max($0, ECEF($1).distance(to: o)) }
        }
    }

    /// Why `first` may not hold the first tree, if it may not.
    func refusal(_ first: Coordinate) -> PlanShortfall? {
        let sd = regions.signedDistance(index, first)
        let inside = regions.contains(index, first)
        if inside, sd >= margin { return nil }
        if inside, sd >= 0 { return .firstNearEdge(distance: sd, margin: margin) }
        let q = frame.project(first)
        for rings in parts where PlanarArea.ringContains(rings[0], q) && rings.count > 1 {
            return .firstInHole(distance: abs(sd))
        }
        return .firstOutside(distance: abs(sd))
    }

    func figures(spacing: Double) -> AreaFigures {
        if radius > 0 { return AreaFigures(squareMetres: .pi * radius * radius, perimeter: 2 * .pi * radius, spacing: spacing) }
        var area = 0.0, perimeter = 0.0
        for rings in parts {
            for (k, ring) in rings.enumerated() {
                area += (k == 0 ? 1 : -1) * PlanarArea.ringArea(ring)
                perimeter += PlanarArea.ringLength(ring)
            }
        }
        return AreaFigures(squareMetres: area, perimeter: perimeter, spacing: spacing)
    }

    /// Groups of parts whose boxes, grown by `pad`, meet: trees in different groups are farther
    /// apart than the spacing, so each group is filled on its own grid.
    func clusters(pad: Double) -> [(box: PlanarBox, rings: [[Planar]], longestEdgeAngle: Double)] {
        if radius > 0 {
            let r = radius * (1 + 1e-6) + 1e-3
            return [(PlanarBox(minX: -r, minY: -r, maxX: r, maxY: r), [], 0)]
        }
        var groups: [(box: PlanarBox, parts: [Int])] = parts.enumerated().map { k, rings in
            var b = PlanarBox.empty
            for p in rings[0] { b.add(p) }
            return (b, [k])
        }
        var merged = true
        while merged {
            merged = false
            outer: for i in groups.indices {
                for j in groups.indices where j > i && groups[i].box.grown(pad).intersects(groups[j].box.grown(pad)) {
                    groups[i].box = groups[i].box.union(groups[j].box)
                    groups[i].parts += groups[j].parts
                    groups.remove(at: j)
                    merged = true
                    break outer
                }
            }
        }
        return groups.map { g in
            let rings = g.parts.sorted().flatMap { parts[$0] }
            var longest = 0.0, angle = 0.0
            for ring in rings {
                var b = ring[ring.count - 1]
                for a in ring {
                    let dx = a.x - b.x, dy = a.y - b.y
                    if dx * dx + dy * dy > longest {
                        longest = dx * dx + dy * dy
                        angle = atan2(dy, dx)
                    }
                    b = a
                }
            }
            return (g.box, rings, angle)
        }
    }

    /// The admission test over `window`, for all the area's rings or just `rings`.
    func admission(window: PlanarBox, cellSize: Double, rings: [[Planar]]? = nil) -> Admission {
        let area = PlanarArea(rings: radius > 0 ? [] : rings ?? parts.flatMap { $0 }, window: window,
                              proximity: margin + Self.tolerance, cellSize: cellSize)
        return Admission(area: area, radius: radius, margin: margin, context: self)
    }
}

/// Whether a planar point may hold a tree: inside the area by at least the margin. A class, so
/// that closures and the filler share it instead of copying the region set it holds.
final class Admission {
    /// Polygons' rings (none for a circle).
    let area: PlanarArea
    /// Circles: the radius; 0 for polygons.
    let radius: Double
    let margin: Double
    let context: AreaContext

    init(area: PlanarArea, radius: Double, margin: Double, context: AreaContext) {
        self.area = area
        self.radius = radius
        self.margin = margin
        self.context = context
    }

    func admits(_ q: Planar) -> Bool {
        let tolerance = AreaContext.tolerance
        if radius > 0 {
            // A circle: the plane's distance from the centre is at most the geodesic one.
            let d = radius - (q.x * q.x + q.y * q.y).squareRoot()
            if d < margin { return false }
            if d >= margin + tolerance + radius * radius * radius / (6_000_000.0 * 6_000_000.0) { return true }
            return authority(q)
        }
        switch area.state(q) {
        case .outside: return false
        case .inside: return true
        case .mixed:
            guard area.contains(q) else { return false }
            let d = area.nearEdgeDistance(q)
            if d >= margin + tolerance { return true }
            if d < margin - tolerance { return false }
            return authority(q)
        }
    }

    /// False only where `admits` is surely false, from one cell look-up.
    func mayAdmit(_ q: Planar) -> Bool { radius > 0 || area.state(q) != .outside }

    /// The region set's own answer.
    func authority(_ q: Planar) -> Bool {
        let c = context.frame.coordinate(q)
        return context.regions.contains(context.index, c) && context.regions.signedDistance(context.index, c) >= margin
    }
}

// MARK: - Plan's fallback

/// Candidates for `plan` once random attempts fail: grid points over the disc and points on
/// spacing circles, nearest the first tree first (circle points before grid points). A candidate
/// found taken is dropped for good: trees are only ever added.
struct FallbackScan {
    struct Candidate {
        var onCircle: Bool
        var distance2: Double
        var order: Int32
        var q: Planar
    }

    let center: Planar
    let reach: Double
    let step: Double
    let ringRadius: Double
    private var heap = MinHeap<Candidate> { a, b in
        (a.onCircle ? 0 : 1, a.distance2, a.order) < (b.onCircle ? 0 : 1, b.distance2, b.order)
    }
    private var order: Int32 = 0

    init(center: Planar, reach: Double, step: Double, ringRadius: Double) {
        self.center = center
        self.reach = reach
        self.step = step
        self.ringRadius = ringRadius
    }

    private mutating func push(_ q: Planar, onCircle: Bool) {
        let dx = q.x - center.x, dy = q.y - center.y
        heap.push(Candidate(onCircle: onCircle, distance2: dx * dx + dy * dy, order: order, q: q))
        order &+= 1
    }

    mutating func addGrid(admits: (Planar) -> Bool) {
        let n = Int((reach / step).rounded(.down))
        for j in -n...n {
            for i in -n...n {
                let q = Planar(x: center.x + Double(i) * step, y: center.y + Double(j) * step)
                if admits(q) { push(q, onCircle: false) }
            }
        }
    }

    mutating func addRing(around p: Planar, admits: (Planar) -> Bool) {
        let dx = p.x - center.x, dy = p.y - center.y
        guard (dx * dx + dy * dy).squareRoot() <= reach + ringRadius else { return }
        let m = max(8, Int((2 * Double.pi * ringRadius / step).rounded(.up)))
        for k in 0..<m {
            let a = 2 * Double.pi * Double(k) / Double(m)
            let q = Planar(x: p.x + ringRadius * cos(a), y: p.y + ringRadius * sin(a))
            if admits(q) { push(q, onCircle: true) }
        }
    }

    /// The best candidate still free.
    mutating func next(isFree: (Planar) -> Bool) -> Planar? {
        while let c = heap.pop() {
            if isFree(c.q) { return c.q }
        }
        return nil
    }
}

// MARK: - Fill

/// One group of parts being filled.
struct Filler {
    let admission: Admission
    let box: PlanarBox
    let minDistance: Double
    let ringRadius: Double
    let step: Double
    var grid: TreeGrid
    /// Trees placed, in order.
    private(set) var placed: [Planar] = []
    /// Indices in the grid's points whose circles are still to be walked.
    private var queue: [Int] = []
    /// Recorded trees in the grid.
    private var recorded = 0
    /// The tree that last ruled a candidate out: the next candidate, beside it, is often ruled
    /// out by the same one, which is one distance to check instead of a search.
    private var lastBlocker = -1

    init(admission: Admission, box: PlanarBox, minDistance: Double, step: Double) {
        self.admission = admission
        self.box = box
        self.minDistance = minDistance
        ringRadius = PlantingPlanner.ringRadius(minDistance)
        self.step = step
        grid = TreeGrid(box: box.grown(minDistance), minDistance: minDistance)
    }

    mutating func record(_ q: Planar) {
        queue.append(grid.insert(q))
        recorded += 1
    }

    @discardableResult
    mutating func place(_ q: Planar) -> Bool {
        guard box.contains(q), admission.mayAdmit(q) else { return false }
        if lastBlocker >= 0, grid.blocks(lastBlocker, q) { return false }
        let b = grid.blocker(q)
        if b >= 0 {
            lastBlocker = b
            return false
        }
        guard admission.admits(q) else { return false }
        insert(q)
        return true
    }

    private mutating func insert(_ q: Planar) {
        queue.append(grid.insert(q))
        placed.append(q)
    }

    /// The triangular lattice (of the 12 tried) with the most points that fit.
    mutating func lattice(edgeAngle: Double, rng: inout PlannerRandom) {
        let side = ringRadius
        var best: (count: Int, angle: Double, origin: Planar)?
        let admission = admission, grid = grid, anyRecorded = recorded > 0
        for trial in 0..<12 {
            let angle = edgeAngle + Double(trial % 4) * .pi / 12
            let origin = Planar(x: box.minX + rng.unit() * side, y: box.minY + rng.unit() * side)
            var n = 0
            Self.forEachLatticePoint(origin: origin, angle: angle, side: side, box: box) { q in
                if admission.mayAdmit(q), !anyRecorded || grid.isFree(q), admission.admits(q) { n += 1 }
            }
            if best == nil || n > best!.count { best = (n, angle, origin) }
        }
        guard let best else { return }
        var points: [Planar] = []
        Self.forEachLatticePoint(origin: best.origin, angle: best.angle, side: side, box: box) { points.append($0) }
        for q in points {
            // Lattice points are `side` apart, more than `minDistance`: only recorded trees can be in the way.
            if recorded == 0 {
                if admission.mayAdmit(q), admission.admits(q) { insert(q) }
            } else {
                place(q)
            }
        }
    }

    static func forEachLatticePoint(origin o: Planar, angle: Double, side: Double, box: PlanarBox, _ body: (Planar) -> Void) {
        let ux = side * cos(angle), uy = side * sin(angle)
        let vx = side * cos(angle + .pi / 3), vy = side * sin(angle + .pi / 3)
        let det = ux * vy - uy * vx
        var imin = Double.infinity, imax = -Double.infinity, jmin = Double.infinity, jmax = -Double.infinity
        for c in [Planar(x: box.minX, y: box.minY), Planar(x: box.maxX, y: box.minY),
                  Planar(x: box.minX, y: box.maxY), Planar(x: box.maxX, y: box.maxY)] {
            let dx = c.x - o.x, dy = c.y - o.y
            let i = (dx * vy - dy * vx) / det, j = (ux * dy - uy * dx) / det
            imin = min(imin, i)
            imax = max(imax, i)
            jmin = min(jmin, j)
            jmax = max(jmax, j)
        }
        for j in Int(jmin.rounded(.down))...Int(jmax.rounded(.up)) {
            // The row o + j·v + t·u meets the box for t in [lo, hi].
            let rx = o.x + Double(j) * vx, ry = o.y + Double(j) * vy
            var lo = imin, hi = imax
            for (start, u, minV, maxV) in [(rx, ux, box.minX, box.maxX), (ry, uy, box.minY, box.maxY)] where u != 0 {
                let t1 = (minV - start) / u, t2 = (maxV - start) / u
                lo = max(lo, min(t1, t2))
                hi = min(hi, max(t1, t2))
            }
            guard lo <= hi + 1 else { continue }
            for i in Int(lo.rounded(.down))...Int(hi.rounded(.up)) {
                let q = Planar(x: rx + Double(i) * ux, y: ry + Double(i) * uy)
                if box.contains(q) { body(q) }
            }
        }
    }

    /// Bridson's Poisson-disk sampling: from a random point that fits, 30 tries in the annulus
    /// between one and two spacings around a random active tree.
    mutating func bridson(rng: inout PlannerRandom) {
        var active: [Planar] = []
        for _ in 0..<64 {
            let q = Planar(x: box.minX + rng.unit() * box.width, y: box.minY + rng.unit() * box.height)
            if place(q) {
                active.append(q)
                break
            }
        }
        let r2 = ringRadius * ringRadius
        while !active.isEmpty {
            let k = Int(rng.next() % UInt64(active.count))
            let p = active[k]
            var found = false
            for _ in 0..<30 {
                let r = (r2 * (1 + 3 * rng.unit())).squareRoot(), a = 2 * Double.pi * rng.unit()
                let q = Planar(x: p.x + r * cos(a), y: p.y + r * sin(a))
                if place(q) {
                    active.append(q)
                    found = true
                    break
                }
            }
            if !found {
                active.swapAt(k, active.count - 1)
                active.removeLast()
            }
        }
    }

    /// Walks every tree's spacing circle, then every point of a grid of step at most `step`,
    /// placing whatever fits (and walking the new trees' circles at once).
    mutating func fillGaps(rng: inout PlannerRandom) {
        let m = max(8, Int((2 * Double.pi * ringRadius / step).rounded(.up)))
        var cosines: [Double] = [], sines: [Double] = []
        for k in 0..<m {
            let a = 2 * Double.pi * Double(k) / Double(m)
            cosines.append(cos(a))
            sines.append(sin(a))
        }
        var head = 0
        func drain(_ filler: inout Filler) {
            while head < filler.queue.count {
                let p = filler.grid.points[filler.queue[head]]
                head += 1
                let start = Int(rng.next() % UInt64(m))
                for t in 0..<m {
                    let k = (start + t) % m
                    filler.place(Planar(x: p.x + filler.ringRadius * cosines[k], y: p.y + filler.ringRadius * sines[k]))
                }
            }
        }
        drain(&self)
        // The fine grid: `per` points a side in each grid cell; cells holding a tree are full.
        let per = max(1, Int((grid.cell / step).rounded(.up)))
        let h = grid.cell / Double(per)
        for cy in 0..<grid.ny {
            for cx in 0..<grid.nx where !grid.isOccupied(cx, cy) {
                search: for b in 0..<per {
                    for a in 0..<per {
                        let q = Planar(x: grid.x0 + Double(cx) * grid.cell + (Double(a) + 0.5) * h,
                                       y: grid.y0 + Double(cy) * grid.cell + (Double(b) + 0.5) * h)
                        if place(q) {
                            drain(&self)
                            break search
                        }
                    }
                }
            }
        }
    }
}
