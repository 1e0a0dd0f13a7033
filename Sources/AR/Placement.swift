/// Where stacking put a box.
public struct Placement: Sendable, Equatable {
    public var y: Double
    /// How many times the box was lifted.
    public var level: Int
    /// The box could not be placed (more than `maxLevels` lifts, or above `topLimit`); it is left
    /// where it was given up and other boxes do not stack on it.
    public var hidden: Bool

    public init(y: Double, level: Int, hidden: Bool) {
        self.y = y
        self.level = level
        self.hidden = hidden
    }
}
