/// Heading and pitch smoothed together, each by its own `AngleSmoother` (the heading on the
/// circle, the pitch on the line), so a front-end feeds the raw compass and tilt and lays out with
/// the result.
public struct OrientationSmoother: Sendable, Equatable {
    /// Degrees clockwise from north, smoothed on the circle.
    public var heading: AngleSmoother
    /// Degrees, as the camera's `pitch`, smoothed on the line.
    public var pitch: AngleSmoother

    /// Both smoothers with the same settings (see `AngleSmoother`). Traps unless 0 < `factor` ≤ 1.
    public init(factor: Double = 0.4, jumpDegrees: Double = 20, settlingSeconds: Double = 10) {
        heading = AngleSmoother(factor: factor, circular: true, jumpDegrees: jumpDegrees, settlingSeconds: settlingSeconds)
        pitch = AngleSmoother(factor: factor, circular: false, jumpDegrees: jumpDegrees, settlingSeconds: settlingSeconds)
    }

    /// Adds a heading and a pitch sampled at `time` (seconds, any monotonic clock); returns both
    /// smoothed.
    @discardableResult
    public mutating func add(heading h: Double, pitch p: Double, at time: Double) -> (heading: Double, pitch: Double) {
        (heading.add(h, at: time), pitch.add(p, at: time))
    }
}
