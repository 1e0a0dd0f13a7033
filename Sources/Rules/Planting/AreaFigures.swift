#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

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
