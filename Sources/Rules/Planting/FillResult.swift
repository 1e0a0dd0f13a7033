#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// A fill: the positions, and the area's figures to compare them with.
public struct FillResult: Sendable {
    /// The trees placed, WGS84; empty when the fill was refused.
    public var positions: [Coordinate]
    /// The area's size and bounds at the species' spacing.
    public var figures: AreaFigures
    /// Why nothing was placed (the region is not a reforestation area); nil otherwise.
    public var refusal: String?
}
