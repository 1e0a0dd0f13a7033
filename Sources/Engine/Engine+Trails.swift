import Geo
import Protocol
import Regions
import Rules
import Store
import Walks

/// Trails: defined and removed by command (each a transaction with its event), started and
/// stopped by command, and moved by the regions the walker enters. A fix's trail events are
/// journaled after its region events, in the same commit as the progress they leave.
extension Engine {
    /// The regions in force among `ids`, by id: one pass over the regions, however many.
    func indices(of ids: Set<String>) -> [String: Int] {
        var out: [String: Int] = [:]
        guard !ids.isEmpty else { return out }
        for (i, r) in monitor.regions.regions.enumerated() where ids.contains(r.id) { out[r.id] = i }
        return out
    }

    /// Whether the walker is inside each of trail `t`'s checkpoints, as the monitor has it now.
    func insideCheckpoints(of t: Trail) -> (String) -> Bool {
        let found = indices(of: Set(t.checkpoints.map(\.region)))
        let inside = monitor.inside
        return { id in found[id].map { inside[$0] } ?? false }
    }

    /// A trail event as the journal keeps it.
    static func entry(_ e: TrailEvent) -> JournalEntry {
        JournalEntry(time: e.time, type: e.type.rawValue, region: e.region, kind: TrailEvent.kind, json: e.json)
    }

    /// The run changed (and perhaps a trail was completed): saved with the next commit.
    func noteTrailProgress(_ events: [TrailEvent]) {
        var p = unsavedTrail ?? TrailProgress(run: nil)
        p.run = trails.run
        for e in events where e.type == .trailCompleted { p.completed[e.trail] = e.time }
        unsavedTrail = p
    }

    /// The trail events of the regions a fix entered (in the order entered), for the commit of
    /// the fix's own events.
    func trailEvents(entered: [(region: Int, time: UTCTime, at: Coordinate)]) -> [JournalEntry] {
        guard let run = trails.run, let t = trails.trail(run.trail) else { return [] }
        let inside = insideCheckpoints(of: t)
        var events: [TrailEvent] = []
        for e in entered {
            events += trails.entered(monitor.regions.regions[e.region].id, at: e.time, e.at, inside: inside)
        }
        guard !events.isEmpty else { return [] }
        noteTrailProgress(events)
        for e in events { logger.info("trail '\(e.trail)': \(e.type.rawValue) \(e.region)") }
        return events.map(Self.entry)
    }

    /// The walker's recorded track grew by `p`: the run's distance walked with it.
    func walkedOn(_ p: TrackPoint) {
        guard trails.run != nil else { return }
        trails.walked(to: p.coordinate)
        noteTrailProgress([])
    }

    // MARK: commands

    package func addTrail(_ t: Trail) -> Result<[UInt8], CommandError> {
        if let refusal = trails.refusal(toAdd: t) { return .failure(CommandError(refusal)) }
        let found = indices(of: Set(t.checkpoints.map(\.region)))
        for (k, c) in t.checkpoints.enumerated() {
            guard let i = found[c.region] else {
                return .failure(CommandError("checkpoint \(k + 1): no region '\(c.region)' is in force: {\"cmd\":\"regions\"} lists them"))
            }
            if let problem = c.problem(regionKind: monitor.regions.regions[i].kind) {
                return .failure(CommandError("checkpoint \(k + 1): \(problem)"))
            }
        }
        guard flushUnsaved() else { return .failure(Self.databaseFailed) }
        var e = TrailEvent(time: eventTime, type: .trailAdded, trail: t, region: t.checkpoints[0].region)
        e.definition = t
        let event: JournalEvent
        do { event = try store.addTrail(t, event: Self.entry(e)) } catch {
            logger.error("\(error)")
            return .failure(Self.databaseFailed)
        }
        trails.add(t)
        published([event])
        logger.info("trail added: '\(t.id)' (\(t.checkpoints.count) checkpoints)")
        return .success(Self.line(event))
    }

    package func removeTrail(_ id: String) -> Result<[UInt8], CommandError> {
        if let refusal = trails.refusal(toRemove: id) { return .failure(CommandError(refusal)) }
        guard let t = trails.trail(id) else { return .failure(CommandError("no trail '\(id)'")) }
        guard flushUnsaved() else { return .failure(Self.databaseFailed) }
        let e = TrailEvent(time: eventTime, type: .trailRemoved, trail: t, region: t.checkpoints[0].region)
        let event: JournalEvent
        do { event = try store.removeTrail(id, event: Self.entry(e)) } catch {
            logger.error("\(error)")
            return .failure(Self.databaseFailed)
        }
        trails.remove(id)
        published([event])
        logger.info("trail removed: '\(id)'")
        return .success(Self.line(event))
    }

    /// Starts trail `id` where the walker is: its first checkpoint is reached at once when the
    /// walker is inside it. Answers `trail_started`; the rest follows on the stream.
    package func startTrail(_ id: String) -> Result<[UInt8], CommandError> {
        if let refusal = trails.refusal(toStart: id) { return .failure(CommandError(refusal)) }
        guard let t = trails.trail(id) else { return .failure(CommandError("no trail '\(id)'")) }
        let here: Coordinate
        switch freshFix(for: "a trail is timed and measured from where it starts") {
        case .success(let f): here = f.coordinate
        case .failure(let e): return .failure(e)
        }
        let found = indices(of: Set(t.checkpoints.map(\.region)))
        if let k = t.checkpoints.firstIndex(where: { found[$0.region] == nil }) {
            return .failure(CommandError("checkpoint \(k + 1) of '\(id)', region '\(t.checkpoints[k].region)', is no longer in force: remove the trail and add it again without it"))
        }
        let events = trails.start(id, at: eventTime, from: here, inside: insideCheckpoints(of: t))
        noteTrailProgress(events)
        guard let committed = commit(events.map(Self.entry), receivedNanos: nil), let first = committed.first(where: { $0.entry.type == "trail_started" }) else {
            return .failure(CommandError("the start could not be saved (the database failed: see the daemon's log); it is kept and saved with the next fix"))
        }
        logger.info("trail started: '\(id)'")
        return .success(Self.line(first))
    }

    package func stopTrail() -> Result<[UInt8], CommandError> {
        guard let e = trails.stop(at: eventTime) else { return .failure(CommandError("no trail is under way: start one with start_trail")) }
        noteTrailProgress([e])
        guard let committed = commit([Self.entry(e)], receivedNanos: nil), let last = committed.last else {
            return .failure(CommandError("the stop could not be saved (the database failed: see the daemon's log); it is kept and saved with the next fix"))
        }
        logger.info("trail stopped: '\(e.trail)'")
        return .success(Self.line(last))
    }
}
