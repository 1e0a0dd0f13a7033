extension Command {
    /// Whether the command changes something (a watering, a region, a tree, a capture, a trail):
    /// such a command runs on the engine, one at a time, and an idempotency key makes it run at
    /// most once. A read (`state`, `regions`, a layout, a plan) changes nothing, so a repeat of
    /// it is simply answered again.
    public var isChange: Bool {
        switch self {
        case .water, .undoWater, .addRegion, .addRegions, .updateRegion, .removeRegion, .restoreRegion, .plant, .removeTree, .capture,
            .addTrail, .removeTrail, .startTrail, .stopTrail:
            true
        case .subscribe, .state, .regions, .export, .canPlant, .trees, .captures, .track, .plan, .species, .layout, .round, .trails, .journal:
            false
        }
    }
}
