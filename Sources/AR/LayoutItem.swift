#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// One active POI on the screen.
public struct LayoutItem: Sendable, Equatable {
    public var poi: Int
    public var id: String
    public var distance: Double
    public var bearing: Double
    /// bearing − heading, wrapped into (−180, 180].
    public var delta: Double
    /// Left edge, pixels; nil when a pinhole camera cannot see that direction (|delta| ≥ 90°).
    public var x: Double?
    /// Top edge before stacking (after clamping, with `clampToScreen`).
    public var anchorY: Double
    /// Top edge after stacking.
    public var y: Double
    /// The box's size: its own (`LayoutOptions.sizes`), else the options' box.
    public var width: Double
    public var height: Double
    /// How many times stacking lifted the box.
    public var level: Int
    /// |delta| < the horizontal field of view (the reference's test for putting a view on screen).
    public var inNearView: Bool
    /// The box intersects the screen (and is not hidden).
    public var visible: Bool
    /// Stacking gave up on the box (`maxLevels`, or the top edge with `clampToScreen`).
    public var hidden: Bool
}
