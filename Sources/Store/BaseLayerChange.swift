/// How the base layer (the regions files' regions) differs from what the journal last announced:
/// the rows to write, and no more. A reload of an unchanged file is an empty change; an edited
/// fence is one row. Pure: `between` compares, `Store.announceBase` writes.
public struct BaseLayerChange: Sendable, Equatable {
    /// A row of the layer: its place in file order and its region.
    public struct Row: Sendable, Equatable {
        public var position: Int
        public var feature: StoredFeature
    }

    /// Ids not announced before (a `region_added` each), with their rows.
    public var added: [Row] = []
    /// Ids whose Feature changed (a `region_updated` each), with their new rows.
    public var updated: [Row] = []
    /// Ids whose Feature is the same but whose place in the files moved: only the position.
    public var moved: [Row] = []
    /// Ids announced before and no longer in the files (a `region_removed` each), with the
    /// Feature last announced (its kind names the removal).
    public var removed: [StoredFeature] = []

    /// Whether the added rows' Features are left to the writer (`firstAnnouncement`): their
    /// `feature.feature` is empty, and `Store.announceBase` asks for them a stretch at a time.
    public private(set) var featuresDeferred = false

    /// Whether the layer is as announced.
    public var isEmpty: Bool { added.isEmpty && updated.isEmpty && moved.isEmpty && removed.isEmpty }

    public init() {}

    /// A layer of `ids`, in file order, when none was announced before: every region added,
    /// without its Feature. 100,000 Features are 85 MB; the writer makes them a stretch at a time
    /// (`Store.announceBase`'s `features`), so they are never all held at once.
    public static func firstAnnouncement(ids: [String]) -> BaseLayerChange {
        var change = BaseLayerChange()
        change.added = ids.enumerated().map { Row(position: $0, feature: StoredFeature(id: $1, feature: "")) }
        change.featuresDeferred = true
        return change
    }

    /// The change from `announced` (as `Store.announcedBase()` reads it, in file order) to `now`.
    public static func between(announced: [StoredFeature], now: [StoredFeature]) -> BaseLayerChange {
        var before: [String: (position: Int, feature: String)] = [:]
        before.reserveCapacity(announced.count)
        for (k, a) in announced.enumerated() where before[a.id] == nil { before[a.id] = (k, a.feature) }
        var change = BaseLayerChange()
        var present = Set<String>()
        present.reserveCapacity(now.count)
        for (k, r) in now.enumerated() {
            present.insert(r.id)
            let row = Row(position: k, feature: r)
            switch before[r.id] {
            case nil: change.added.append(row)
            case let old? where old.feature != r.feature: change.updated.append(row)
            case let old? where old.position != k: change.moved.append(row)
            default: break
            }
        }
        change.removed = announced.filter { !present.contains($0.id) }
        return change
    }
}
