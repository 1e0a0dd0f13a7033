import Geo
import Regions

/// The monitor's persistent state, for a daemon that stores it after every fix and restores it
/// on start, or hands it to a monitor over a reloaded regions file.
///
/// Stored: `lastFix` (compare it after each fix, dropped ones included) and, by region id, the
/// `state(of:)` of the regions `takeChangedRegions()` lists. Restored with `restore(last:regions:)`,
/// the next fix gives the events it would have given had the monitor never stopped.
extension RegionMonitor {
    /// State of region `i` (an index in `regions`).
    public func state(of i: Int) -> RegionState {
        RegionState(inside: table.inside[i], enteredAt: table.enteredAt[i], dwellDone: table.dwellDone[i],
                    lastWatered: table.lastWatered[i], alertedFor: table.alertedFor[i])
    }

    /// The last accepted fix, with a jump dropped after it; nil before the first.
    public var lastFix: LastFix? {
        guard let p = previous else { return nil }
        return LastFix(time: p.time, coordinate: p.coordinate, error: p.error,
                       pendingJump: gate.lastJump.map { PendingJump(time: $0.time, coordinate: $0.coordinate) })
    }

    /// The regions whose `state(of:)` changed since the last call (or since `restore`, or the
    /// start), each once, ascending; and clears the list. Every change counts: the first fix
    /// setting the state silently, enter and exit, dwell, `water_due` (transit ones too),
    /// `water(_:at:)`. Costs O(changes); nothing in `process` allocates for it.
    public mutating func takeChangedRegions() -> [Int] {
        guard !changedRegions.isEmpty else { return [] }
        changedRegions.sort()
        let list = changedRegions.map(Int.init)
        for i in changedRegions { table.stateChanged[Int(i)] = false }
        changedRegions.removeAll(keepingCapacity: true)
        return list
    }

    /// Region `i`'s state changed (for `takeChangedRegions`). Only on the rare paths (an event or
    /// a watering), and not inlined there: inlined, it made `whileInside` too big to inline into
    /// the per-region loop (2 % more instructions in `process` on the pipeline benchmark).
    @inline(never)
    mutating func noteStateChange(_ i: Int) {
        if !table.stateChanged[i] {
            table.stateChanged[i] = true
            changedRegions.append(Int32(i))
        }
    }

    /// Puts a stored state back, replacing this monitor's: the last accepted fix (the gate drops
    /// fixes not after it, judges jumps from it, and transit starts from it; the next fix is not
    /// the first) and the regions' states by id.
    ///
    /// Regions whose id is not in `stored` start fresh (outside); ids not in `regions` are
    /// ignored. A plant keeps the later of the stored `lastWatered` and the regions file's (a
    /// keeper may have edited the file). Without `last` no fix has been used, so every region is
    /// outside (only the waterings are kept). The distance bounds the monitor keeps between
    /// fixes start unknown. Afterwards `takeChangedRegions()` lists the stored regions whose
    /// state differs from what was stored (a later watering from the file). The gate's counts
    /// stay.
    public mutating func restore(last: LastFix?, regions stored: [String: RegionState]) {
        let regions = self.regions
        restore(last: last) { stored[regions.regions[$0].id] }
    }

    /// `restore` with the stored state of region `i` given by `stored(i)`.
    mutating func restore(last: LastFix?, stored: (Int) -> RegionState?) {
        let n = regions.count
        insideList.removeAll(keepingCapacity: true)
        for i in changedRegions { table.stateChanged[Int(i)] = false }
        changedRegions.removeAll(keepingCapacity: true)
        // The table's copies of each region's kind and watering: a `Region` read per region
        // would cost its reference counting, a country's worth of times.
        for i in 0..<n {
            let file = table.wateredInFile[i]
            let given = stored(i)
            var s = given ?? RegionState(lastWatered: file)
            s.lastWatered = watering(i, kept: s.lastWatered)
            if last == nil {
                s.inside = false
                s.enteredAt = nil
                s.dwellDone = false
            }
            table.inside[i] = s.inside
            table.enteredAt[i] = s.enteredAt
            table.dwellDone[i] = s.dwellDone
            table.lastWatered[i] = s.lastWatered
            table.alertedFor[i] = s.alertedFor
            if s.inside { insideList.append(Int32(i)) }
            if let given, given != s { noteStateChange(i) }
        }
        resume(last: last, resetTable: true)
    }

    /// `restore` from `old`, a monitor over the same ids in the same places, into this monitor
    /// just made (`RegionMonitor(regions:config:)`, its table as new): the same state as
    /// `restore(last: old.lastFix) { old.state(of: $0) }`, with the states' arrays taken whole
    /// rather than region by region (a reload of 100,000 fences does this on the engine's time).
    mutating func restore(aligned old: RegionMonitor) {
        guard let last = old.lastFix else { return restore(last: nil) { old.state(of: $0) } }
        let n = regions.count
        insideList.removeAll(keepingCapacity: true)
        for i in changedRegions { table.stateChanged[Int(i)] = false }
        changedRegions.removeAll(keepingCapacity: true)
        table.inside = old.table.inside
        table.enteredAt = old.table.enteredAt
        table.dwellDone = old.table.dwellDone
        table.alertedFor = old.table.alertedFor
        // Only the watering follows the new file (the later of it and the kept one, for plants).
        var watered = old.table.lastWatered
        var changed: [Int] = []
        for i in 0..<n {
            let kept = watered[i], w = watering(i, kept: kept)
            if w != kept {
                watered[i] = w
                changed.append(i)
            }
        }
        table.lastWatered = watered
        for i in changed { noteStateChange(i) }
        table.inside.withUnsafeBufferPointer { inside in
            for i in 0..<n where inside[i] { insideList.append(Int32(i)) }
        }
        resume(last: last, resetTable: false)
    }

    /// Region `i`'s watering after a restore that kept `kept`: for a plant the later of it and
    /// the file's (a keeper may have edited the file), for others the file's.
    private func watering(_ i: Int, kept: UTCTime?) -> UTCTime? {
        let file = table.wateredInFile[i]
        guard table.kinds[i] == .plant else { return file }
        guard let file else { return kept }
        return kept.map { max($0, file) } ?? file
    }

    /// The rest of a restore: the gate and the last fix, nothing trusted between fixes (the
    /// table's bounds and stamps reset, unless it is new), and which regions contain the last fix.
    private mutating func resume(last: LastFix?, resetTable: Bool) {
        let n = regions.count
        gate.resume(last: last.map { ($0.time, $0.coordinate) },
                    jump: last?.pendingJump.map { ($0.time, $0.coordinate) })
        previous = last.map { ($0.time, $0.coordinate, $0.error) }
        previousSpace = gate.lastSpace

        // Nothing known between fixes is trusted: no bounds, no stamps, no cached query, no quiet ball.
        nearby = NearbyCache()
        quiet = QuietBall()
        watched.removeAll(keepingCapacity: true)
        previousQuiet = false
        // No region is new: the state put back is the whole of it (`carried` makes regions new
        // again after this).
        if newRegions > 0 {
            for i in 0..<n where table.new[i] { table.new[i] = false }
            newRegions = 0
        }
        for i in 0..<n where resetTable {
            table.visited[i] = 0
            table.changed[i] = 0
            table.containedAt[i] = 0
            table.searched[i].at = 0
            table.searched[i].beforeAt = 0
            table.bound[i] = .unknown
        }
        fixNumber = 0
        // Except which regions contain the last fix, as evaluating it had recorded: transit
        // asks it of the fix before (see `transits`). The last fix becomes fix 1.
        if let last {
            fixNumber = 1
            let c = last.coordinate, p = previousSpace, set = regions
            var contained: [Int] = []
            set.forEachRegion(near: c, within: 0) { i in
                if set.classify(i, c, p).inside { contained.append(i) }
            }
            for i in contained { table.containedAt[i] = 1 }
        }
    }

    /// A monitor over `regions` (a reloaded regions file, say) with `config` that takes over
    /// this one's state: the last fix and the gate (its counts too), and each region's state by
    /// id, as `restore(last:regions:)` does. Regions no longer there are dropped, new ones start
    /// fresh (outside; `treatAsNew` makes their first enter `initial`), regions new in this one
    /// stay new. Produces no events. Its `takeChangedRegions()` lists the regions whose
    /// state changed here and was not yet taken, and those whose watering the new file moves later.
    public func carried(to regions: RegionSet, config: MonitorConfig) -> RegionMonitor {
        carried(into: RegionMonitor(regions: regions, config: config))
    }

    /// `carried(to:config:)` into `fresh`, a monitor just made (off the owner's time, say) over
    /// the new regions with the new settings.
    /// Take `fresh` by move (`consume`): a copy still held elsewhere would make every table
    /// array be copied at its first write.
    public func carried(into next: consuming RegionMonitor) -> RegionMonitor {
        let regions = next.regions, config = next.config
        // The same ids in the same places (a reload of an unchanged or edited file): by index,
        // without a dictionary of a country's worth of ids on the monitor's time.
        let old = self.regions.regions, now = regions.regions
        if old.count == now.count, old.indices.allSatisfy({ old[$0].id == now[$0].id }) {
            next.restore(aligned: self)
        } else {
            var states: [String: RegionState] = [:]
            states.reserveCapacity(old.count)
            for i in old.indices { states[old[i].id] = state(of: i) }
            next.restore(last: lastFix, regions: states)
        }
        next.gate = gate
        next.gate.config = config
        // Regions still waiting to be found inside stay new.
        var new = Set<String>()
        for i in 0..<self.regions.count where table.new[i] { new.insert(self.regions.regions[i].id) }
        if !new.isEmpty {
            for i in 0..<regions.count where new.contains(regions.regions[i].id) { next.treatAsNew(i) }
        }
        if !changedRegions.isEmpty {
            var pending = Set<String>()
            for i in changedRegions { pending.insert(self.regions.regions[Int(i)].id) }
            for i in 0..<regions.count where pending.contains(regions.regions[i].id) { next.noteStateChange(i) }
        }
        return next
    }
}
