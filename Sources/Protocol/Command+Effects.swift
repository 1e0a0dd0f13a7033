extension Command {
    /// Whether the command changes something (a watering, a region, a tree, a capture, a trail):
    /// such a command runs on the engine, one at a time, and an idempotency key makes it run at
    /// most once. A read (`state`, `regions`, a layout, a plan) changes nothing, so a repeat of
    /// it is simply answered again.
    /// The request a repeat must match for an idempotency key to answer it: the command without
    /// what a retry changes (`ago_s` grows while it waits; a photo's stored file is named anew).
    public var asRequested: Command {
        switch self {
        case let .water(plant, _): .water(plant: plant)
        case let .capture(album, _, note, _): .capture(album: album, file: nil, note: note)
        case let .plant(species, area, at, project, planted, _): .plant(species: species, area: area, at: at, project: project, planted: planted)
        case .addRegion(.short(var s)):
            { s.ago = nil; return .addRegion(.short(s)) }()
        default: self
        }
    }

    /// A digest of `asRequested` (64-bit FNV-1a of its JSON, hex): an idempotency key is kept
    /// with the request it was first given for, so the same key on another request is another key.
    public var requestDigest: String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in asRequested.json {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return String(h, radix: 16)
    }

    /// `key` (a source's idempotency key) as kept for this request: with its digest.
    public func keyed(_ key: String) -> String { key + "#" + requestDigest }

    public var isChange: Bool {
        switch self {
        case .water, .undoWater, .addRegion, .addRegions, .updateRegion, .removeRegion, .restoreRegion, .plant, .removeTree, .capture,
            .addTrail, .removeTrail, .startTrail, .stopTrail:
            true
        case .subscribe, .state, .regions, .export, .canPlant, .trees, .captures, .track, .plan, .species, .layout, .round, .trails, .journal, .crew:
            false
        }
    }
}
