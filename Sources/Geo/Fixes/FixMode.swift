/// What the receiver said about the position at one epoch.
public enum FixMode: Int, Sendable, Hashable, Comparable {
    case noFix = 1
    case twoD = 2
    case threeD = 3

    /// Orders by what the receiver knows: no fix, then 2D, then 3D.
    public static func < (a: FixMode, b: FixMode) -> Bool { a.rawValue < b.rawValue }
}
