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

    /// The largest screen side, pixels (a 16K display).
    public static let maxScreen = 16_384.0
    /// The fields of view allowed, degrees: what a camera lens or a phone's screen can show.
    public static let fovLimits = 1.0...179.0
    /// The headings allowed, degrees (a compass gives 0–360; one turn either way is allowed).
    public static let headingLimits = -360.0...720.0

    /// What is wrong with these values; empty when they can be used. Each value is bounded to
    /// what makes sense, and what is derived from them (pixels per degree, focal lengths) must be
    /// finite and above 0: each input in range can still divide into infinity.
    public var problems: [SettingProblem] {
        var p: [SettingProblem] = []
        let sides = 1...Self.maxScreen
        if !(sides.contains(screenWidth) && sides.contains(screenHeight)) {
            p.append(SettingProblem(.screen, "the screen must be 1 to \(Int(Self.maxScreen)) pixels wide and tall"))
        }
        let fov = Self.fovLimits
        if !(fov.contains(horizontalFOV) && fov.contains(verticalFOV)) {
            p.append(SettingProblem(.fieldOfView, "each field of view must be \(Int(fov.lowerBound)) to \(Int(fov.upperBound)) degrees"))
        }
        if !Self.headingLimits.contains(heading) {
            p.append(SettingProblem(.heading, "the heading must be degrees clockwise from true north, from -360 to 720"))
        }
        let maxPitch = 90.0
        if !(pitch.isFinite && abs(pitch) <= maxPitch && (projection == .linear || abs(pitch) < maxPitch)) {
            p.append(SettingProblem(.pitch, projection == .pinhole ? "a pinhole camera's pitch must be between -90 and 90 degrees, exclusive"
                : "the pitch must be between -90 and 90 degrees"))
        }
        if p.isEmpty {
            let derived = [horizontalPixelsPerDegree, verticalPixelsPerDegree, focalLength, verticalFocalLength, pitchOffset]
            if !derived.allSatisfy(\.isFinite) || !(horizontalPixelsPerDegree > 0 && verticalPixelsPerDegree > 0 && focalLength > 0 && verticalFocalLength > 0) {
                p.append(SettingProblem(.screen, "this screen and field of view give no usable pixels per degree: use a screen of 1 to \(Int(Self.maxScreen)) pixels and a field of view of 1 to 179 degrees"))
            }
        }
        return p
    }
}
