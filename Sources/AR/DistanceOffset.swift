#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
