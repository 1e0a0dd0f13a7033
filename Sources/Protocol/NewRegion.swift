import Geo
import Regions

/// What `add_region` asks for: a whole Feature (checked as a regions file's are), or the short
/// form for a plant or an album placed at a point (or, without one, at the last fix).
public enum NewRegion: Equatable, Sendable {
    /// A checked Feature; its id is "" when the Feature had none (the daemon gives one).
    case feature(Region)
    /// `{"kind":"plant","name":"Basil","interval_days":3}`, `{"kind":"album","name":"Beach"}`.
    case short(ShortRegion)
}

/// The short form of `add_region`, its values checked.
public struct ShortRegion: Equatable, Sendable {
    public var kind: RegionKind
    public var id: String?
    public var name: String
    /// Plants only.
    public var intervalDays: Int?
    /// Plants only: nil when never watered (due now).
    public var lastWatered: UTCTime?
    /// Plants only: its species (one name), nil when not said.
    public var species: String?
    /// nil: the kind's default (`Region.defaultPlantRadius`, `Region.defaultAlbumRadius`).
    public var radius: Double?
    /// nil: the last fix (or where the board was `ago` seconds back).
    public var at: Coordinate?
    public var note: String?
    /// Seconds before the board's time at which it was asked for (queued on a phone that could
    /// not reach the board): without `at`, placed where the board was then.
    public var ago: Double?

    public init(kind: RegionKind, id: String? = nil, name: String, intervalDays: Int? = nil, lastWatered: UTCTime? = nil,
                species: String? = nil, radius: Double? = nil, at: Coordinate? = nil, note: String? = nil) {
        self.kind = kind
        self.id = id
        self.name = name
        self.intervalDays = intervalDays
        self.lastWatered = lastWatered
        self.species = species
        self.radius = radius
        self.at = at
        self.note = note
    }

    /// The region, placed at `center`.
    public func region(id: String, at center: Coordinate) -> Region {
        let r = radius ?? (kind == .album ? Region.defaultAlbumRadius : Region.defaultPlantRadius)
        return Region(id: id, kind: kind, name: name, shape: .circle(center: center, radius: r),
                      intervalDays: kind == .plant ? intervalDays : nil, lastWatered: kind == .plant ? lastWatered : nil,
                      species: kind == .plant ? species.map { [$0] } ?? [] : [], note: note)
    }
}
