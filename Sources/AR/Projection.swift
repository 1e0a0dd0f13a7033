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
