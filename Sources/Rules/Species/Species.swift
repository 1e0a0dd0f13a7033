import Geo

/// A species that may be planted in reforestation areas.
public struct Species: Sendable, Equatable {
    /// Scientific name, e.g. `Quercus robur`; regions' `species` lists use it.
    public var latin: String
    /// English common name, e.g. `Pedunculate oak`.
    public var common: String
    /// Distance between planting spots, metres.
    public var spacing: Double
    /// Usual height range of a mature plant, metres.
    public var minHeight: Double
    public var maxHeight: Double

    /// A species; nothing is checked (the catalog checks what it reads).
    public init(latin: String, common: String, spacing: Double, minHeight: Double, maxHeight: Double) {
        self.latin = latin
        self.common = common
        self.spacing = spacing
        self.minHeight = minHeight
        self.maxHeight = maxHeight
    }

    /// Plants per hectare on a square grid at this spacing.
    public var plantsPerHectare: Double { 10_000 / (spacing * spacing) }
}
