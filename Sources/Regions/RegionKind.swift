import Geo
/// What a region is for.
public enum RegionKind: String, Sendable, CaseIterable, Comparable {
    /// An area where trees may be planted, of the species it lists.
    case reforestation
    /// A plant to be watered every `intervalDays` days.
    case plant
    /// A photo-album zone: capture is allowed inside.
    case album

    /// Alphabetical by raw value: album, plant, reforestation.
    public static func < (a: RegionKind, b: RegionKind) -> Bool { a.rawValue < b.rawValue }
}
