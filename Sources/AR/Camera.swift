#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
