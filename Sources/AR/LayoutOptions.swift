#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything about the layout that is not the camera.
public struct LayoutOptions: Sendable, Equatable {
    /// The annotation box, pixels, placed by its top-left corner.
    public var boxWidth = 100.0
    public var boxHeight = 40.0
    /// Boxes of their own size, by POI id (a view sizes each box to its text); the others are
    /// `boxWidth`×`boxHeight`. Ids that are not active are not used.
    public var sizes: [String: BoxSize] = [:]
    /// How far down each box starts, by its POI's distance.
    public var offset = DistanceOffset.none
    /// Metres; POIs farther are not active. 0: no limit.
    public var maxDistance = 0.0
    /// How many POIs are active: the first by priority, then the nearest.
    public var maxVisible = 100
    /// At most this many lifts per box; a box that needs more is hidden. nil: no limit.
    public var maxLevels: Int?
    /// Keep boxes on the screen: the starting y is clamped to [0, H − h], and a box that would be
    /// lifted above the top edge is hidden.
    public var clampToScreen = false

    /// Options; nothing is checked (see `problems`).
    public init(boxWidth: Double = 100, boxHeight: Double = 40, sizes: [String: BoxSize] = [:], offset: DistanceOffset = .none,
                maxDistance: Double = 0, maxVisible: Int = 100, maxLevels: Int? = nil, clampToScreen: Bool = false) {
        self.boxWidth = boxWidth
        self.boxHeight = boxHeight
        self.sizes = sizes
        self.offset = offset
        self.maxDistance = maxDistance
        self.maxVisible = maxVisible
        self.maxLevels = maxLevels
        self.clampToScreen = clampToScreen
    }

    /// The largest box side, pixels (a box is at most a screen).
    public static let maxBox = Camera.maxScreen
    /// The farthest a distance may be, metres: half the Earth's circumference.
    public static let maxMetres = 20_038_000.0
    /// The most pixels per metre a manual offset may take.
    public static let maxPixelsPerMetre = 10_000.0
    /// The most active POIs, and the most lifts of one box.
    public static let maxCount = 10_000
    /// The most boxes of their own size: a view sizes the boxes it shows (100 by default).
    public static let maxSizes = 1_000

    /// What is wrong with these values; empty when they can be used. Every value is bounded to what
    /// makes sense: the stacking's work grows with the boxes and their levels.
    public var problems: [SettingProblem] {
        var p: [SettingProblem] = []
        let sides = 1...Self.maxBox
        if !(sides.contains(boxWidth) && sides.contains(boxHeight)) {
            p.append(SettingProblem(.box, "the box must be 1 to \(Int(Self.maxBox)) pixels wide and tall"))
        }
        if sizes.count > Self.maxSizes {
            p.append(SettingProblem(.sizes, "at most \(Self.maxSizes) boxes may have their own size (\(sizes.count) given): size the boxes a view shows"))
        } else if let id = sizes.keys.sorted().first(where: { !(sides.contains(sizes[$0]!.width) && sides.contains(sizes[$0]!.height)) }) {
            p.append(SettingProblem(.sizes, "the box of '\(id.prefix(40))' must be 1 to \(Int(Self.maxBox)) pixels wide and tall"))
        }
        if case let .manual(t, m) = offset, !((0...Self.maxMetres).contains(t) && (0...Self.maxPixelsPerMetre).contains(m)) {
            p.append(SettingProblem(.offset, "a manual offset needs a threshold of 0 to \(Int(Self.maxMetres)) metres and 0 to \(Int(Self.maxPixelsPerMetre)) pixels per metre"))
        }
        if !(0...Self.maxMetres).contains(maxDistance) {
            p.append(SettingProblem(.maxDistance, "the maximum distance must be 0 (no limit) to \(Int(Self.maxMetres)) metres"))
        }
        if !(1...Self.maxCount).contains(maxVisible) {
            p.append(SettingProblem(.maxVisible, "the number of active POIs must be 1 to \(Self.maxCount)"))
        }
        if let maxLevels, !(0...Self.maxCount).contains(maxLevels) {
            p.append(SettingProblem(.maxLevels, "the level cap must be 0 to \(Self.maxCount)"))
        }
        return p
    }
}
