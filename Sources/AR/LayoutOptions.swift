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
    public init(boxWidth: Double = 100, boxHeight: Double = 40, offset: DistanceOffset = .none, maxDistance: Double = 0,
                maxVisible: Int = 100, maxLevels: Int? = nil, clampToScreen: Bool = false) {
        self.boxWidth = boxWidth
        self.boxHeight = boxHeight
        self.offset = offset
        self.maxDistance = maxDistance
        self.maxVisible = maxVisible
        self.maxLevels = maxLevels
        self.clampToScreen = clampToScreen
    }

    /// What is wrong with these values; empty when they can be used.
    public var problems: [SettingProblem] {
        var p: [SettingProblem] = []
        if !(boxWidth > 0 && boxWidth.isFinite && boxHeight > 0 && boxHeight.isFinite) {
            p.append(SettingProblem(.box, "the box must be wider and taller than 0 pixels"))
        }
        if case let .manual(t, m) = offset, !(t >= 0 && t.isFinite && m >= 0 && m.isFinite) {
            p.append(SettingProblem(.offset, "a manual offset needs a threshold of 0 metres or more and 0 or more pixels per metre"))
        }
        if !(maxDistance >= 0 && maxDistance.isFinite) { p.append(SettingProblem(.maxDistance, "the maximum distance must be 0 (no limit) or more metres")) }
        if maxVisible < 1 { p.append(SettingProblem(.maxVisible, "the number of active POIs must be at least 1")) }
        if let maxLevels, maxLevels < 0 { p.append(SettingProblem(.maxLevels, "the level cap must be 0 or more")) }
        return p
    }
}
