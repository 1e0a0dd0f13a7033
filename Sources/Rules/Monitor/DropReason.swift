import Geo

/// Why a fix was not used.
public enum DropReason: String, Sendable, CaseIterable {
    /// No 2D/3D fix.
    case noFix = "no_fix"
    /// No date yet: the time is not known, so nothing can be ordered or timed.
    case noTime = "no_time"
    /// Horizontal error above `maxErrorMetres`, or one that is not a distance (negative, NaN).
    case inaccurate
    /// Not after the last accepted fix.
    case notAfterLast = "not_after_last"
    /// Reaching it from the last accepted fix would need more than `maxSpeed`.
    case impossibleJump = "impossible_jump"
}
