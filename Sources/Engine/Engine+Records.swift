import Geo
import Rules
import Server
import Store
import JSON
import Protocol

/// Records beside the journal: captures in albums, trees, the track; and retention.
extension Engine {
    // MARK: captures

    /// Records a capture at the last fix when it is inside the album; else the distance to walk.
    package func capture(album: String, file: String?, note: String?) -> Result<[UInt8], CommandError> {
        guard let i = index(of: album) else { return .failure(CommandError("no album '\(album)': treeline albums lists them")) }
        let r = monitor.regions.regions[i]
        guard r.kind == .album else { return .failure(CommandError("'\(album)' is a \(r.kind.rawValue), not an album")) }
        let fix: LastFix
        switch freshFix(for: "a capture is recorded where you stand") {
        case .success(let f): fix = f
        case .failure(let e): return .failure(e)
        }
        let d = monitor.regions.signedDistance(i, fix.coordinate)
        guard d >= 0 else {
            let reason = "outside the album '\(r.name)': \(Int((-d).rounded())) m from its edge at the last fix; walk that far towards it"
            return .success(RecordReplies.capture(album: album, distance: d, recorded: nil, outsideReason: reason))
        }
        let c: Capture
        do { c = try store.recordCapture(album: album, time: fix.time, at: fix.coordinate, error: fix.error, file: file, note: note) } catch {
            logger.error("\(error)")
            return .failure(CommandError("the capture could not be recorded (the database failed: see the daemon's log)"))
        }
        logger.info("capture #\(c.id) in '\(album)'")
        return .success(RecordReplies.capture(album: album, distance: d, recorded: c, outsideReason: nil))
    }

    package nonisolated func captures(album: String?) async -> Result<[UInt8], CommandError> {
        let list: [Capture]
        do { list = try store.captures(album: album) } catch { return .failure(CommandError("cannot read the captures: \(error)")) }
        if let album, list.isEmpty, await index(of: album) == nil {
            return .failure(CommandError("no album '\(album)' and no captures in one by that id: treeline albums lists them"))
        }
        return .success(RecordReplies.captures(list))
    }

    /// The oldest last fix a capture takes, seconds.
    static let freshFix: UInt64 = 30

    /// Where the walker stands now, not where the receiver last was: the last fix, if it was
    /// received in the last `freshFix` seconds (not one restored from before a restart).
    /// `purpose` says in the refusal why a fresh one is needed.
    func freshFix(for purpose: String) -> Result<LastFix, CommandError> {
        guard let fix = monitor.lastFix else { return .failure(CommandError("no fix yet: \(purpose), so wait for a fix")) }
        guard let received = lastFixReceived else {
            return .failure(CommandError("no fix since treelined started (the last one is from before): \(purpose), so wait for a fix"))
        }
        let age = (monotonicNanos() - received) / 1_000_000_000
        guard age <= Self.freshFix else {
            return .failure(CommandError("the last fix is \(age) s old (gpsd: \(counters.gpsd)): \(purpose), so wait for a fresh fix"))
        }
        return .success(fix)
    }

    // MARK: trees

    package nonisolated func trees(area: String?, project: String?) -> Result<[UInt8], CommandError> {
        let list: [PlantedTree]
        do { list = try store.trees(area: area, project: project) } catch { return .failure(CommandError("cannot read the trees: \(error)")) }
        return .success(RecordReplies.trees(list))
    }

    /// Removes a tree (nil: the last recorded).
    package func removeTree(_ id: Int64?) -> Result<[UInt8], CommandError> {
        let tree: PlantedTree?
        do { tree = try store.removeTree(id) } catch { return .failure(CommandError("the tree could not be removed: \(error)")) }
        guard let tree else {
            return .failure(CommandError(id.map { "no tree #\($0): treeline trees lists them" } ?? "no tree is recorded: nothing to undo"))
        }
        logger.info("tree #\(tree.id) removed")
        return .success(RecordReplies.treeRemoved(tree))
    }

    // MARK: track

    package nonisolated func track(since: UTCTime?, until: UTCTime?) -> Result<[UInt8], CommandError> {
        let points: [TrackPoint]
        do { points = try store.track(from: since, through: until) } catch { return .failure(CommandError("cannot read the track: \(error)")) }
        return .success(RecordReplies.track(points))
    }

    // MARK: retention

    /// Prunes events older than `journal: keep_days` and track points older than `track:
    /// keep_days`, at most once an hour (checked after fixes; the first check at start), and at
    /// once when those settings changed since the last pruning.
    func pruneIfDue() {
        let clock = monotonicNanos()
        if let last = lastPruneCheck, clock - last < 3_600 * 1_000_000_000 { return }
        lastPruneCheck = clock
        let now = UTCTime.now
        do {
            let last = try store.retention()
            if let at = last.prunedAt, now.nanoseconds - at.nanoseconds < 3_600 * UTCTime.nanosPerSecond, last.settings == retention.settings { return }
            try prune(now: now)
        } catch {
            logger.error("pruning failed, tried again in an hour: \(error)")
        }
    }

    /// Prunes as of `now` (the clock: on a board it follows GPS time; a clock behind the last
    /// fix, not yet set since boot, gives way to the fix's time).
    func prune(now clock: UTCTime) throws(StoreError) {
        let now = max(clock, monitor.lastFix?.time ?? clock)
        let day = UTCTime.nanosPerDay
        let result = try store.prune(journalBefore: UTCTime(nanoseconds: now.nanoseconds - Int64(retention.journalDays) * day),
                                     trackBefore: UTCTime(nanoseconds: now.nanoseconds - Int64(retention.trackDays) * day),
                                     keeping: regionIDs(), now: now, settings: retention.settings,
                                     notAfter: mqttBridged ? (try store.mqttProgress()?.acked ?? 0) : .max)
        pruned.store(result.prunedThrough, ordering: .releasing)
        if result.events > 0 || result.points > 0 {
            logger.notice("retention: \(result.events) events (through seq \(result.prunedThrough)) and \(result.points) track points pruned")
        }
    }

    package nonisolated func prunedThrough() -> Int64 { pruned.load(ordering: .acquiring) }
}
