#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

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
    /// The trees placed, WGS84, the tapped point first; empty when the first tree was refused.
    public var positions: [Coordinate]
    /// How many trees were asked for.
    public var requested: Int
    /// Why fewer than `requested` were placed; nil when all were.
    public var shortfall: PlanShortfall?

    /// A plan of `positions` for `requested` trees.
    public init(positions: [Coordinate], requested: Int, shortfall: PlanShortfall?) {
        self.positions = positions
        self.requested = requested
        self.shortfall = shortfall
    }

    /// Whether every tree asked for was placed.
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

    /// The reason in words, distances in metres.
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
    /// The trees placed, WGS84; empty when the fill was refused.
    public var positions: [Coordinate]
    /// The area's size and bounds at the species' spacing.
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
    /// Metres between trees, the spacing the bounds are for.
    public var spacing: Double

    /// Figures for an area of `squareMetres` with `perimeter` metres of boundary, at `spacing` metres.
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
