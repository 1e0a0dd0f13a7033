#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

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
