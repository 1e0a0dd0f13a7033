#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo
import Regions

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
