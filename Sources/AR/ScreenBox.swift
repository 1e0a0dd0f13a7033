/// A box's size on the screen, pixels.
public struct BoxSize: Sendable, Equatable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// A box on the screen before stacking.
public struct ScreenBox: Sendable, Equatable {
    /// Top-left corner, pixels.
    public var x: Double
    public var y: Double
    public var distance: Double
    public var id: String
    public var priority: Double
    /// Its own size; nil: the stacking's box.
    public var size: BoxSize?

    public init(x: Double, y: Double, distance: Double, id: String, priority: Double = 0, size: BoxSize? = nil) {
        self.x = x
        self.y = y
        self.distance = distance
        self.id = id
        self.priority = priority
        self.size = size
    }
}
