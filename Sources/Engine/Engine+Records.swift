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
    /// With `ago` (a photo taken while the phone could not reach the board), where the board was
    /// `ago` seconds before its last fix, from its track.
    package func capture(album: String, file: String?, note: String?, ago: Double? = nil) -> Result<[UInt8], CommandError> {
        guard let i = index(of: album) else { return .failure(CommandError("no album '\(album)': treeline albums lists them")) }
        let r = monitor.regions.regions[i]
        guard r.kind == .album else { return .failure(CommandError("'\(album)' is a \(r.kind.rawValue), not an album")) }
        let fix: LastFix
        switch ago.map(fixAgo) ?? freshFix(for: "a capture is recorded where you stand") {
        case .success(let f): fix = f
        case .failure(let e): return .failure(e)
        }
        let d = monitor.regions.signedDistance(i, fix.coordinate)
        guard d >= 0 else {
            let at = ago == nil ? "at the last fix" : "where the board was then"
            let reason = "outside the album '\(r.name)': \(Int((-d).rounded())) m from its edge \(at); walk that far towards it"
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

    /// How far from a track point (or the last fix) in time a position `ago` seconds back may
    /// be: the track keeps a point at least every 30 s while fixes come.
    static let trackSlack: Int64 = 45 * UTCTime.nanosPerSecond

    /// The board's time `ago` seconds back: the receiver's time of the last fix of this run,
    /// carried on by the monotonic clock, so neither a phone's clock nor the board's own enters
    /// it. Before the first fix of this run (a restart) the board cannot tell its time: the
    /// action is refused for now (`retryLater`), and a queue sends it again.
    func boardTime(ago: Double) -> Result<UTCTime, CommandError> {
        guard let last = monitor.lastFix, let received = lastFixReceived else {
            return .failure(CommandError("the board has had no fix since it started, so it cannot tell when \(Int(ago)) s ago was: send it again once it has one",
                                         retryLater: true))
        }
        return .success(UTCTime(nanoseconds: last.time.nanoseconds + Int64(monotonicNanos() - received) - Int64(ago * 1e9)))
    }

    /// Where the board was `ago` seconds back (`boardTime`): the track point or the last fix of
    /// this run nearest that time, within `trackSlack`; else why not.
    func fixAgo(_ ago: Double) -> Result<LastFix, CommandError> {
        let t: UTCTime
        switch boardTime(ago: ago) {
        case .success(let time): t = time
        case .failure(let e): return .failure(e)
        }
        var candidates: [TrackPoint]
        do {
            candidates = try store.track(from: UTCTime(nanoseconds: t.nanoseconds - Self.trackSlack), through: UTCTime(nanoseconds: t.nanoseconds + Self.trackSlack))
        } catch { return .failure(CommandError("cannot read the track: \(error)")) }
        // boardTime succeeded: there is a last fix of this run.
        if let last = monitor.lastFix { candidates.append(TrackPoint(time: last.time, coordinate: last.coordinate, error: last.error)) }
        guard let nearest = candidates.min(by: { abs($0.time.nanoseconds - t.nanoseconds) < abs($1.time.nanoseconds - t.nanoseconds) }),
              abs(nearest.time.nanoseconds - t.nanoseconds) <= Self.trackSlack else {
            return .failure(CommandError("the board had no fix within 45 s of \(t.iso8601) (\(Int(ago)) s ago): it cannot tell where it was then; do it again where you are"))
        }
        return .success(LastFix(time: t, coordinate: nearest.coordinate, error: nearest.error))
    }

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

extension Engine {
    /// How far back `undo_water` looks in the journal for the watering to take back.
    static let undoReach: Int64 = 100_000

    /// Takes back plant `plant`'s last watering: the watering it replaced (its `watered` event
    /// says which) is in force again, journaled as `water_undone` with the plant's state in one
    /// commit. Refused when there is none to take back, when it was taken back already, or when
    /// the keeper set the watering since (`update_region`).
    package func undoWater(plant: String) -> Result<[UInt8], CommandError> {
        let i: Int
        switch plantIndex(plant) {
        case .success(let k): i = k
        case .failure(let e): return .failure(e)
        }
        let r = monitor.regions.regions[i]
        guard let current = monitor.lastWatered[i] else { return .failure(CommandError("'\(plant)' has no watering to take back: it was never watered")) }
        let last: JournalEvent?
        do { last = try store.lastEvent(region: plant, types: ["watered", "water_undone"], within: Self.undoReach) } catch {
            logger.error("\(error)")
            return .failure(Self.databaseFailed)
        }
        guard let watered = last, watered.entry.type == "watered" else {
            return .failure(CommandError(last == nil
                ? "no watering of '\(plant)' in the last \(Self.undoReach) events to take back"
                : "the last watering of '\(plant)' was taken back already"))
        }
        guard watered.entry.time == current else {
            return .failure(CommandError("the watering of '\(plant)' was set since it was last watered (update_region): set it again instead"))
        }
        guard let doc = try? JSONDocument.parse(watered.entry.json), let p = doc.root["previous"] else {
            return .failure(CommandError("the last watering of '\(plant)' was recorded before it could be taken back: set the watering with update_region"))
        }
        let previous = p.string.flatMap(UTCTime.init(iso8601:))
        guard flushUnsaved() else { return .failure(Self.databaseFailed) }
        monitor.setLastWatered(i, previous)
        let time = eventTime
        let json = JSONWriter.object { o in
            o.member("time", time.iso8601)
            o.member("type", "water_undone")
            o.member("region", r.id)
            o.member("kind", r.kind.rawValue)
            o.member("name", r.name)
            o.member("undone", watered.entry.time.iso8601)
            if let previous { o.member("last_watered", previous.iso8601) } else { o.name("last_watered"); o.null() }
        }
        let entry = JournalEntry(time: time, type: "water_undone", region: r.id, kind: r.kind.rawValue, json: json)
        guard let committed = commit([entry], receivedNanos: nil), let event = committed.last else {
            return .failure(CommandError("taking the watering back could not be saved (the database failed: see the daemon's log); it is kept and saved with the next fix"))
        }
        logger.info("\(plant): the watering of \(watered.entry.time.iso8601) taken back")
        return .success(Self.line(event))
    }
}
