/// A box on the screen before stacking.
public struct ScreenBox: Sendable, Equatable {
    /// Top-left corner, pixels.
    public var x: Double
    public var y: Double
    public var distance: Double
    public var id: String
    public var priority: Double

    public init(x: Double, y: Double, distance: Double, id: String, priority: Double = 0) {
        self.x = x
        self.y = y
        self.distance = distance
        self.id = id
        self.priority = priority
    }
}
