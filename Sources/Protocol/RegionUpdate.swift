import Geo
import Regions

/// What `update_region` changes; nil members stay as they are. A double optional is a member
/// that may be cleared: `.some(nil)` (JSON `null`) clears it.
public struct RegionUpdate: Equatable, Sendable {
    public var name: String?
    public var radius: Double?
    public var intervalDays: Int?
    /// An area's species allowed, or a plant's (one); `[]` (JSON `null`): a plant's no longer said.
    public var species: [String]?
    /// `.some(nil)`: never watered (due now).
    public var lastWatered: UTCTime??
    public var note: String??

    public init(name: String? = nil, radius: Double? = nil, intervalDays: Int? = nil, species: [String]? = nil,
                lastWatered: UTCTime?? = nil, note: String?? = nil) {
        self.name = name
        self.radius = radius
        self.intervalDays = intervalDays
        self.species = species
        self.lastWatered = lastWatered
        self.note = note
    }

    /// `region` with these changes, or why they do not apply to it.
    public func applied(to region: Region) -> Result<Region, CommandError> {
        var r = region
        if let name { r.name = name }
        if let radius {
            guard case let .circle(center, _) = r.shape else {
                return .failure(CommandError("'\(region.id)' is a polygon: \"radius_m\" applies to circles (points with a radius) only"))
            }
            r.shape = .circle(center: center, radius: radius)
        }
        func only(_ kind: RegionKind, _ key: String) -> CommandError {
            CommandError("\"\(key)\" applies to \(kind.rawValue)s only; '\(region.id)' is a\(region.kind == .album ? "n" : "") \(region.kind.rawValue)")
        }
        if let intervalDays {
            guard r.kind == .plant else { return .failure(only(.plant, "interval_days")) }
            r.intervalDays = intervalDays
        }
        if let lastWatered {
            guard r.kind == .plant else { return .failure(only(.plant, "last_watered")) }
            r.lastWatered = lastWatered
        }
        if let species {
            switch r.kind {
            case .reforestation:
                guard !species.isEmpty else {
                    return .failure(CommandError("'\(region.id)' is a reforestation area: its \"species\" is a non-empty list of the species allowed"))
                }
                r.species = species
            case .plant:
                guard species.count <= 1 else {
                    return .failure(CommandError("'\(region.id)' is a plant: its \"species\" is one name, not a list of \(species.count)"))
                }
                r.species = species
            case .album:
                return .failure(CommandError("\"species\" applies to reforestation areas (the species allowed) and plants (its species); '\(region.id)' is an album"))
            }
        }
        if let note { r.note = note }
        return .success(r)
    }
}
