#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a direction becomes a screen column.
public enum Projection: String, Sendable, CaseIterable {
    /// HDAugmentedReality's mapping: a fixed number of pixels per degree, `W/hFov` across and
    /// `H/vFov` down, so the whole 360° panorama has a place on a strip 360·W/hFov wide.
    case linear
    /// A real camera's mapping (`x = W/2 + f·tan Δ`, `f = (W/2)/tan(hFov/2)`; vertically
    /// `fv·tan(pitch)` with `fv = (H/2)/tan(vFov/2)`), for drawing over video. Directions 90° or more
    /// from the heading have no place on the image plane.
    case pinhole
}

/// The vertical offset by distance, in pixels (negative: up).
public enum DistanceOffset: Sendable, Equatable {
    /// No offset: every box starts on the same row.
    case none
    /// `−(d − threshold)·pixelsPerMetre` for POIs farther than `threshold` metres, 0 nearer.
    case manual(threshold: Double, pixelsPerMetre: Double)
    /// `manual` with the threshold at the nearest active POI and the rate that puts the farthest
    /// at 30 px from the top: `(H·0.55 − 30)/(dmax − dmin)`, 0 when all are as far.
    case automatic
}

extension DistanceOffset {
    /// The written forms, for messages: `none`, `automatic`, `manual:T:M`.
    public static let writtenForms = "none, automatic or manual:T:M (T metres, M pixels per metre)"

    /// Reads `none`, `automatic` or `manual:T:M` (e.g. `manual:50:0.2`), as the command line
    /// (`--offset`) and the socket (`"offset"`) take it; nil for anything else. Ranges are
    /// checked with the other settings (`SettingProblem`).
    public init?(written s: String) {
        switch s {
        case "none": self = .none
        case "automatic": self = .automatic
        default:
            let parts = s.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "manual", let t = Double(parts[1]), let m = Double(parts[2]) else { return nil }
            self = .manual(threshold: t, pixelsPerMetre: m)
        }
    }
}

/// One thing wrong with a camera or the layout options, worded for a user, and which setting.
public struct SettingProblem: Sendable, Equatable, CustomStringConvertible {
    /// The setting a problem is about.
    public enum Setting: Sendable, Equatable {
        /// `screen` and `box`: width and height; `fieldOfView`: either angle; the others: the field of
        /// that name.
        case screen, fieldOfView, heading, pitch, box, offset, maxDistance, maxVisible, maxLevels
    }

    /// Which setting is wrong.
    public var setting: Setting
    /// What is wrong and what is allowed, worded for a user.
    public var message: String
    /// The message.
    public var description: String { message }

    /// A problem with `setting`, worded as `message`.
    public init(_ setting: Setting, _ message: String) {
        self.setting = setting
        self.message = message
    }
}

/// Where the observer looks and with what: the screen, the field of view, heading and pitch.
public struct Camera: Sendable, Equatable {
    /// Screen size, pixels.
    public var screenWidth: Double
    public var screenHeight: Double
    /// Field of view across and down the screen, degrees.
    public var horizontalFOV: Double
    public var verticalFOV: Double
    /// Degrees clockwise from true north.
    public var heading: Double
    /// Degrees, positive when the camera looks up (the boxes move down the screen).
    public var pitch: Double
    /// How directions map to the screen.
    public var projection: Projection

    /// A camera; nothing is checked (see `problems`).
    public init(screenWidth: Double, screenHeight: Double, horizontalFOV: Double, verticalFOV: Double,
                heading: Double, pitch: Double = 0, projection: Projection = .linear) {
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.horizontalFOV = horizontalFOV
        self.verticalFOV = verticalFOV
        self.heading = heading
        self.pitch = pitch
        self.projection = projection
    }

    /// Pixels per degree of the linear mapping.
    public var horizontalPixelsPerDegree: Double { screenWidth / horizontalFOV }
    public var verticalPixelsPerDegree: Double { screenHeight / verticalFOV }

    /// The pinhole's focal lengths in pixels.
    public var focalLength: Double { (screenWidth / 2) / tan(horizontalFOV / 2 * .pi / 180) }
    public var verticalFocalLength: Double { (screenHeight / 2) / tan(verticalFOV / 2 * .pi / 180) }

    /// Pixels right of the screen's centre at which a direction `delta` degrees right of the
    /// heading appears; nil where the projection shows none (a pinhole: |delta| ≥ 90°). The one
    /// definition of the horizontal projection, for the projector and the pictures.
    @inlinable
    public func horizontalOffset(delta: Double) -> Double? {
        switch projection {
        case .linear: return delta * horizontalPixelsPerDegree
        case .pinhole: return abs(delta) < 90 ? focalLength * tan(delta * .pi / 180) : nil
        }
    }

    /// Pixels by which the camera's pitch moves everything down the screen (the horizon sits at
    /// `screenHeight / 2 + pitchOffset`).
    @inlinable
    public var pitchOffset: Double {
        switch projection {
        case .linear: return pitch * verticalPixelsPerDegree
        case .pinhole: return verticalFocalLength * tan(pitch * .pi / 180)
        }
    }

    /// What is wrong with these values; empty when they can be used.
    public var problems: [SettingProblem] {
        var p: [SettingProblem] = []
        if !(screenWidth > 0 && screenWidth.isFinite && screenHeight > 0 && screenHeight.isFinite) {
            p.append(SettingProblem(.screen, "the screen must be wider and taller than 0 pixels"))
        }
        let maxH = projection == .pinhole ? 180.0 : 360.0
        if !(horizontalFOV > 0 && horizontalFOV < maxH || projection == .linear && horizontalFOV == 360) {
            p.append(SettingProblem(.fieldOfView, projection == .pinhole
                ? "a pinhole camera's horizontal field of view must be more than 0 and less than 180 degrees"
                : "the horizontal field of view must be more than 0 and at most 360 degrees"))
        }
        if !(verticalFOV > 0 && verticalFOV < 180) {
            p.append(SettingProblem(.fieldOfView, "the vertical field of view must be more than 0 and less than 180 degrees"))
        }
        if !heading.isFinite { p.append(SettingProblem(.heading, "the heading must be a number of degrees")) }
        let maxPitch = 90.0
        if !(pitch.isFinite && abs(pitch) <= maxPitch && (projection == .linear || abs(pitch) < maxPitch)) {
            p.append(SettingProblem(.pitch, projection == .pinhole ? "a pinhole camera's pitch must be between -90 and 90 degrees, exclusive"
                : "the pitch must be between -90 and 90 degrees"))
        }
        return p
    }
}

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
