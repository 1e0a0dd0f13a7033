import AR
import Foundation
import Geo
import GPSD
import Logging
import MQTT
import Rules
import Server
import Store
import Synchronization
import JSON
import Regions
import Protocol
import Walks

/// The daemon's core: fixes in, events committed to the journal with the state they leave, then
/// published. One at a time (an actor): fixes, `water`, a reload.
///
/// An event is published only after its commit returned, so a subscriber never sees an event
/// that a crash could take back, and a seq is never given twice. When a commit fails (disk full,
/// say) the events wait in memory and go with the next commit; they are not dropped.
package actor Engine: ServerDelegate {
    package nonisolated let store: Store
    package nonisolated let hub: Hub
    package nonisolated let version: String
    package nonisolated let seq: Atomic<Int64>
    /// The highest seq retention pruned (for subscribers asking from before it).
    nonisolated let pruned: Atomic<Int64>
    /// One heavy read (round, plan, layout, the trails list) computes at a time: the others wait,
    /// holding no thread.
    nonisolated let heavyReads = HeavyReads()
    package let logger: Logger

    package var monitor: RegionMonitor
    /// The two layers: the regions files' (read-only here; `baseFiles` names each one's file)
    /// and the database's, which commands change. The monitor watches `base + user`, in that order.
    package var base: [Region]
    var baseFiles: BaseFiles
    /// The regions files' key (`BaseLayerKey`): files with the key the journal last announced
    /// are that layer, and a start on them compares nothing. Nil: always compare.
    var baseKey: String?
    package var user: [Region]
    /// Every id either layer ever had (never given again by a command) but the base layer's in
    /// force (`baseFile(of:)` knows those), and those the user layer had (a regions file may not
    /// take one).
    var usedIDs: Set<String>
    var userUsedIDs: Set<String>
    /// Whether an MQTT bridge publishes the journal: retention keeps what it has not sent.
    var mqttBridged = false
    package func setMQTTBridged() { mqttBridged = true }
    /// The user layer's regions that came from the fleet's collection (`mergeFleet`).
    var fleetIDs: Set<String>
    /// The species catalog, or what planting commands answer without one.
    package var catalog: Result<SpeciesCatalog, CommandError> = .failure(Engine.noCatalog("no species catalog"))
    /// What the engine counted of its own work (fixes, events, commits, gpsd's state).
    var counters = Snapshot.Counters()
    /// Committed nowhere yet: the commit failed; sent with the next one.
    /// Idempotency keys whose record failed, with their answers (Engine+Once.swift).
    var unrecordedKeys: [String: [UInt8]] = [:]
    var unsaved: [JournalEntry] = []
    var unsavedRegions: Set<Int> = []
    /// The last fix as stored: a fix that changes nothing of it, and no region, costs no write.
    private var storedFix: LastFix?
    /// Thins the used fixes into the track.
    private var thinner: TrackThinner
    /// When (monotonic ns) the last used fix was received: a capture needs a fresh one.
    var lastFixReceived: UInt64?
    /// The last used fix as gpsd gave it (altitude, speed, course: for OwnTracks).
    var lastUsedFix: Fix?
    /// When each region in force was first announced, read from the store when first wanted
    /// (OwnTracks' waypoints): a country's 100,000 ids cost a tenth of a second that a start
    /// need not wait for. Then a count of changes to the regions.
    var regionsAddedRead: [String: UTCTime]?
    var regionsAdded: [String: UTCTime] {
        get {
            if let known = regionsAddedRead { return known }
            do {
                let read = try store.regionsAdded()
                regionsAddedRead = read
                return read
            } catch {
                logger.error("\(error): the waypoints' creation times are 0 until the next try")
                return [:]
            }
        }
        set { regionsAddedRead = newValue }
    }
    package var regionsVersion = 0
    /// How long events and track points are kept, and when pruning last ran (monotonic ns).
    package var retention: Retention
    var lastPruneCheck: UInt64?
    /// Whether the monitor's set still lacks its rasters (`unrasteredSet`).
    var rastersPending = true
    /// The trails, which are completed, and the one under way; what of that waits to be saved.
    var trails: TrailBook
    var unsavedTrail: TrailProgress?
    /// The other boards and phones seen on the broker (`crew`); empty without MQTT.
    var crew = CrewBook(own: nil)
    /// Called when the gpsd status or the regions change (systemd's STATUS=).
    package let onStatus: @Sendable (String) -> Void

    /// Opens the engine on `store`: the user layer is read from it, the base layer (`base`, from
    /// the regions files) is compared with what the journal last announced and the difference
    /// journaled, and the monitor's state is restored.
    package init(store: Store, base: [(region: Region, file: String)], baseKey: String? = nil, config: MonitorConfig, retention: Retention, hub: Hub,
         version: String, logger: Logger, onStatus: @escaping @Sendable (String) -> Void) throws(DaemonError) {
        self.store = store
        self.hub = hub
        self.version = version
        self.logger = logger
        self.onStatus = onStatus
        self.retention = retention
        self.base = base.map(\.region)
        self.baseKey = baseKey
        baseFiles = BaseFiles(base)
        do {
            seq = Atomic(try store.lastSeq())
            pruned = Atomic(try store.retention().prunedThrough)
            user = try Self.userLayer(store)
            usedIDs = try store.usedIDsBesideTheBaseLayer()
            userUsedIDs = try store.usedIDs(layer: "user")
            fleetIDs = try store.usedIDs(layer: "fleet")
            thinner = TrackThinner(last: try store.lastTrackPoint())
            trails = try store.trails()
        } catch {
            throw DaemonError("\(error)")
        }
        // The base layer's ids as announced matter only beside ids the user layer once had.
        var announced: Set<String> = []
        if !userUsedIDs.isEmpty {
            do { announced = try store.baseIDs() } catch { throw DaemonError(error.description) }
        }
        let userIDs = Set(user.map(\.id))
        for (r, file) in base where userUsedIDs.contains(r.id) && !userIDs.contains(r.id) && !announced.contains(r.id) {
            throw DaemonError("\(file): region '\(r.id)' has the id of a region once added at runtime and removed; ids are never given again (old events name it): rename it in the file")
        }
        var fileOfBaseID: [String: String] = [:]
        if !user.isEmpty { for (r, file) in base where userIDs.contains(r.id) { fileOfBaseID[r.id] = file } }
        for r in user {
            if let file = fileOfBaseID[r.id] {
                throw DaemonError("\(file): region '\(r.id)' has the id of a region added at runtime (in \(store.path)): rename it in the file, or remove the runtime one first (treeline regions remove \(r.id))")
            }
        }
        if let dropped = trails.dropRunThatDoesNotFit() {
            logger.warning("\(store.path): \(dropped): the run is dropped (start the trail again)")
            unsavedTrail = TrailProgress(run: nil)
        }
        let stored: StoredState
        do { stored = try store.state() } catch { throw DaemonError(error.description) }
        // Without the rasters: the daemon is up sooner, and marks them after (`unrasteredSet`).
        var monitor = RegionMonitor(regions: RegionSet(Self.inForce(self.base, user), rasters: false), config: config)
        monitor.restore(last: stored.lastFix, regions: stored.regions)
        _ = monitor.takeChangedRegions()
        self.monitor = monitor
        storedFix = stored.lastFix
    }

    /// Journals what changed in the regions files while the daemon was stopped (their regions
    /// new since then are new to the monitor too), then prunes if it is time.
    package func start() throws(DaemonError) {
        do {
            let added = try announceBase(time: eventTime)
            for id in added { if let i = index(of: id) { monitor.treatAsNew(i) } }
            // A region added around the walker just before a stop, not yet settled by a fix:
            // still new (`treatAsNew` leaves it be unless it holds the last fix).
            let stored = try store.state().regions
            for r in user where stored[r.id] == nil { if let i = index(of: r.id) { monitor.treatAsNew(i) } }
        } catch {
            throw DaemonError(error.description)
        }
        pruneIfDue()
    }

    package nonisolated func lastSeq() -> Int64 { seq.load(ordering: .acquiring) }

    /// The set watched and the regions' version, while it still lacks its rasters (the set
    /// `init` builds): the caller marks them off the actor (`RegionSet.withRasters`, a quarter
    /// of the build) and hands the set back to `takeRasters`. Nil once a set has them.
    package func unrasteredSet() -> (set: RegionSet, version: Int)? { rastersPending ? (monitor.regions, regionsVersion) : nil }

    /// The set `unrasteredSet` gave, marked: taken when the regions have not changed since
    /// (else the set in force was built again, with its rasters).
    package func takeRasters(_ set: RegionSet, builtAt version: Int) {
        guard rastersPending, version == regionsVersion, monitor.takeRasters(set) else { return }
        rastersPending = false
    }

    var statusLine: String {
        "\(counters.gpsd); \(monitor.regions.count) regions; \(counters.fixes) fixes, \(monitor.gate.accepted) used; last seq \(lastSeq())"
    }

    // MARK: fixes

    package func gpsd(_ status: GPSDStatus) {
        switch status {
        case .connected, .disconnected: counters.gpsd = status.description
        case .device(let d): counters.gpsd = "connected, receiver \(d)"
        case .noFix: counters.gpsd = "connected, no fix"
        case .fix: counters.gpsd = "connected, fix"
        }
        switch status {
        case .disconnected: logger.warning("gpsd: \(status)")
        default: logger.info("gpsd: \(status)")
        }
        onStatus(statusLine)
    }

    /// One fix from gpsd, received at `receivedNanos` (monotonic clock).
    package func process(_ fix: Fix, receivedNanos: UInt64) {
        counters.fixes += 1
        var entries: [JournalEntry] = []
        let regions = monitor.regions
        let before = monitor.lastFix?.time
        // The regions entered, for the trail under way (none kept when there is none).
        let onTrail = trails.run != nil
        var entered: [(region: Int, time: UTCTime, at: Coordinate)] = []
        monitor.process(fix) { e in
            entries.append(Self.entry(e, regions))
            if onTrail && e.type == .enter { entered.append((e.region, e.time, e.coordinate)) }
        }
        if !entered.isEmpty { entries += trailEvents(entered: entered) }
        unsavedRegions.formUnion(monitor.takeChangedRegions())
        // A dropped fix changes nothing to keep (unless it is a jump the next fix may confirm).
        if monitor.lastFix?.time != before {
            lastFixReceived = receivedNanos
            lastUsedFix = fix
        }
        guard monitor.lastFix != storedFix || !entries.isEmpty || !unsaved.isEmpty || !unsavedRegions.isEmpty || unsavedTrail != nil else { return }
        // A used fix goes into the track when it moved 2 m or 30 s passed.
        var point: TrackPoint?
        if let f = monitor.lastFix, f.time != before {
            let p = TrackPoint(time: f.time, coordinate: f.coordinate, error: f.error)
            if thinner.admit(p) {
                point = p
                walkedOn(p)
            }
        }
        commit(entries, receivedNanos: receivedNanos, track: point)
        if let f = monitor.lastFix, f.time != before { publishPosition(f, speed: fix.speed, course: fix.course) }
        pruneIfDue()
    }

    /// The used fix to those who asked for positions (the web app's map), after its events: the
    /// track point's members, and the receiver's `speed` (m/s) and `course` (degrees from true
    /// north) where it gave them (the map's heading arrow while moving without a compass).
    func publishPosition(_ f: LastFix, speed: Double?, course: Double?) {
        guard hub.wantsPositions else { return }
        let head = Array(#"{"class":"POSITION","#.utf8)
        var out = head
        TrackPoint(time: f.time, coordinate: f.coordinate, error: f.error).appendJSON(to: &out)
        out.remove(at: head.count)  // the point's own "{"
        out.removeLast()  // and its "}"
        if let speed, speed.isFinite, speed >= 0 {
            out.append(contentsOf: #","speed":"#.utf8)
            JSONBytes.appendFixed(speed, decimals: 2, to: &out)
        }
        if let course, course.isFinite, (0...360).contains(course) {
            out.append(contentsOf: #","course":"#.utf8)
            JSONBytes.appendFixed(course, decimals: 1, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        hub.publish(position: out)
    }

    package static func entry(_ e: RegionEvent, _ regions: RegionSet) -> JournalEntry {
        var json: [UInt8] = []
        e.appendJSON(to: &json, regions: regions)
        let r = regions.regions[e.region]
        return JournalEntry(time: e.time, type: e.type.rawValue, region: r.id, kind: r.kind.rawValue, json: json)
    }

    @discardableResult
    /// Commits what waits from a failed commit (`unsaved`), then `entries`, with the regions'
    /// changed state and the last fix; publishes them. Nil when the database failed: then they
    /// all wait for the next commit.
    func commit(_ new: [JournalEntry], receivedNanos: UInt64?, track: TrackPoint? = nil) -> [JournalEvent]? {
        let entries = unsaved + new
        unsavedRegions.formUnion(monitor.takeChangedRegions())
        let changed = unsavedRegions.sorted().map { (id: monitor.regions.regions[$0].id, state: monitor.state(of: $0)) }
        do {
            let started = monotonicNanos()
            let committed = try store.commit(entries, lastFix: monitor.lastFix, regions: changed, track: track, trails: unsavedTrail)
            let took = monotonicNanos() - started
            counters.committed(took: took)
            if took > 250_000_000 { logger.warning("a commit took \(took / 1_000_000) ms: the disk is slow; events wait for it") }
            unsaved = []
            unsavedRegions = []
            unsavedTrail = nil
            storedFix = monitor.lastFix
            published(committed, receivedNanos: receivedNanos)
            return committed
        } catch {
            if unsaved.isEmpty { logger.error("\(error); the events wait in memory and go with the next commit") }
            unsaved = entries
            return nil
        }
    }

    // MARK: commands

    /// Reads are answered beside the actor: records (trees, captures, the track) from the store,
    /// as WAL lets them, and the rest from a snapshot, so a long track, a country's regions or a
    /// layout does not hold up the fixes. Changes, in turn on the actor.
    package nonisolated func answer(_ command: Command) async -> Result<[UInt8], CommandError> {
        switch command {
        case .round, .plan, .layout, .trails:
            let kind: HeavyReads.Kind
            if case .layout = command { kind = .layout } else { kind = .other }
            switch await heavyReads.run(kind, { await self.read(command) }) {
            case .success(let result): return result
            case .failure(.busy):
                return .failure(CommandError("busy: \(HeavyReads.maxWaiting) rounds, plans, layouts or trail lists are waiting already; try again in a moment"))
            case .failure(.cancelled): return .failure(CommandError("cancelled: the client went away"))
            }
        default:
            return await read(command)
        }
    }

    /// `answer`, once a heavy read's turn has come.
    nonisolated func read(_ command: Command) async -> Result<[UInt8], CommandError> {
        switch command {
        case let .trees(area, project): return trees(area: area, project: project)
        case let .track(since, until): return track(since: since, until: until)
        case .captures(let album): return await captures(album: album)
        case .state: return .success(await state())
        case .regions(let query): return .success(await snapshot().regions.regionsReply(query))
        case .export: return .success(await snapshot().regions.exportReply())
        case .species(let query): return await snapshot().speciesReply(query)
        case let .layout(camera, options, at, panorama):
            return await snapshot().layoutReply(camera: camera, options: options, at: at, panorama: panorama)
        case let .canPlant(species, area, at): return await canPlant(species: species, area: area, at: at)
        case let .plan(area, species, count, at, maxDistance, seed):
            return await plan(area: area, species: species, count: count, at: at, maxDistance: maxDistance, seed: seed)
        case let .round(stops, at): return await snapshot().roundReply(stops, at: at)
        case .trails: return .success(await snapshot().trailsReply())
        case .crew: return .success(await crewReply())
        case let .journal(before, limit): return journalPage(before: before, limit: limit)
        case .subscribe: return .failure(CommandError("subscribe is the connection's, not the engine's"))
        default: return await change(command)
        }
    }

    /// The commands that change something, one at a time.
    func change(_ command: Command) -> Result<[UInt8], CommandError> {
        switch command {
        case let .water(plant, ago): return water(plant: plant, ago: ago).map(Self.line)
        case .undoWater(let plant): return undoWater(plant: plant)
        case .addRegion(let new): return addRegion(new)
        case .addRegions(let regions): return addRegions(regions)
        case let .updateRegion(id, update): return updateRegion(id, update)
        case .removeRegion(let id): return removeRegion(id)
        case .restoreRegion(let id): return restoreRegion(id)
        case let .plant(species, area, at, project, planted, ago):
            return plant(species: species, area: area, at: at, project: project, planted: planted, ago: ago)
        case .removeTree(let id): return removeTree(id)
        case let .capture(album, file, note, ago): return capture(album: album, file: file, note: note, ago: ago)
        case .addTrail(let t): return addTrail(t)
        case .removeTrail(let id): return removeTrail(id)
        case .startTrail(let id): return startTrail(id)
        case .stopTrail: return stopTrail()
        case .subscribe, .state, .regions, .export, .trees, .track, .captures, .species, .layout, .canPlant, .plan, .round, .trails, .journal, .crew:
            return .failure(CommandError("\(command.name) is a read, answered beside the engine"))
        }
    }

    /// Records a watering now, or `ago` seconds back (one done while the phone could not reach
    /// the board), unless a later one is recorded already.
    package func water(plant: String, ago: Double? = nil) -> Result<JournalEvent, CommandError> {
        let i: Int
        switch plantIndex(plant) {
        case .success(let k): i = k
        case .failure(let e): return .failure(e)
        }
        var time = eventTime
        if let ago {
            switch boardTime(ago: ago) {
            case .success(let t): time = t
            case .failure(let e): return .failure(e)
            }
        }
        let previous = monitor.lastWatered[i]
        if ago != nil, let previous, previous >= time {
            return .failure(CommandError("'\(plant)' has a later watering recorded (\(previous.iso8601)) than this one (\(time.iso8601)): nothing to add"))
        }
        guard let event = monitor.water(i, at: time) else { return .failure(CommandError("'\(plant)' is not a plant")) }
        // With the watering it replaced, so that `undo_water` can put it back.
        var entry = Self.entry(event, monitor.regions)
        entry.appendMember("previous", json: previous.map { "\"\($0.iso8601)\"" } ?? "null")
        guard let committed = commit([entry], receivedNanos: nil), let last = committed.last else {
            return .failure(CommandError("the watering could not be saved (the database failed: see the daemon's log); it is kept and saved with the next fix"))
        }
        logger.info("\(plant) watered at \(time.iso8601)")
        return .success(last)
    }

    /// Region `id` as a plant: its index, or why not (no such region, or another kind), for
    /// `water` and `undo_water`.
    func plantIndex(_ id: String) -> Result<Int, CommandError> {
        guard let i = index(of: id) else {
            return .failure(CommandError("no region '\(id)': `treeline state` or {\"cmd\":\"regions\"} lists them"))
        }
        let kind = monitor.regions.regions[i].kind
        guard kind == .plant else { return .failure(CommandError("'\(id)' is a\(kind == .album ? "n" : "") \(kind.rawValue), not a plant")) }
        return .success(i)
    }

    /// What the engine holds now, for the read-only replies written beside it.
    /// `added`: with when each region was first announced (OwnTracks' waypoints), read from the
    /// store the first time.
    package func snapshot(added: Bool = false) -> Snapshot {
        let at = monitor.lastFix.map { TrackPoint(time: $0.time, coordinate: $0.coordinate, error: $0.error) }
        let regions = RegionsInForce(set: monitor.regions, baseCount: base.count, inside: monitor.inside, lastWatered: monitor.lastWatered, at: at, now: eventTime)
        let status = Snapshot.Status(version: version, journal: store.journal, seq: lastSeq(), counters: counters, used: monitor.gate.accepted, dropped: monitor.gate.dropped)
        var snapshot = Snapshot(regions: regions, lastFix: monitor.lastFix, lastUsedFix: lastUsedFix, lastFixReceived: lastFixReceived,
                                regionsVersion: regionsVersion, catalog: catalog, trails: trails, status: status)
        if added { snapshot.regionsAdded = regionsAdded }
        return snapshot
    }

    /// `state`'s reply, now.
    package nonisolated func state() async -> [UInt8] { await snapshot().stateReply(subscribers: hub.count) }

    // MARK: reload

    /// New regions files and settings (SIGHUP): the base layer is replaced (the user layer
    /// stays), the difference journaled, the state carried over by region id. Refused, with the
    /// old one kept, when a file's id is one the user layer has. `plan` was made by `prepare`
    /// without the actor, so fixes flow while a large layer is built; here only its difference
    /// is journaled and its set swapped in (built again only if the user layer changed meanwhile).
    package func reload(_ plan: consuming BasePlan, config: MonitorConfig, retention: Retention) -> Result<Retired, DaemonError> {
        let userIDs = Set(user.map(\.id))
        if !userIDs.isEmpty, let clash = plan.base.first(where: { userIDs.contains($0.id) }) {
            return .failure(DaemonError("\(plan.files.file(of: clash.id, in: plan.base) ?? ""): region '\(clash.id)' has the id of a region added at runtime: rename it in the file, or remove the runtime one first (treeline regions remove \(clash.id))"))
        }
        // The regions not announced before are the plan's added ones.
        if let reused = plan.change.added.first(where: { userUsedIDs.contains($0.feature.id) }) {
            let id = reused.feature.id
            return .failure(DaemonError("\(plan.files.file(of: id, in: plan.base) ?? ""): region '\(id)' has the id of a region once added at runtime and removed; ids are never given again (old events name it): rename it in the file"))
        }
        _ = flushUnsaved()  // the fixes' events before the files' (best effort: else they follow)
        let previous = (base, baseFiles, self.retention, baseKey)
        base = plan.base
        baseFiles = plan.files
        baseKey = plan.key
        self.retention = retention
        var retired = Retired(base: previous.0, files: previous.1)
        do {
            // Only a reload changes the announced layer, one at a time: the plan's difference holds.
            let added = try announceBase(plan.change, time: eventTime)
            retired.monitor = rebuild(config: config, new: added, prepared: plan.monitor.take(), builtAt: plan.regionsVersion)
            lastPruneCheck = nil  // a shorter retention takes effect now
            pruneIfDue()
        } catch {
            (base, baseFiles, self.retention, baseKey) = previous
            return .failure(DaemonError("\(error)"))
        }
        onStatus(statusLine)
        return .success(retired)
    }

    /// What a reload replaced: freeing a country's worth of fences takes time too, so it goes
    /// back to the caller, which lets it go off the actor.
    package struct Retired: Sendable {
        package var base: [Region]
        package var files: BaseFiles
        package var monitor: RegionMonitor?
    }

    /// The time of region changes and waterings: the last fix's (event times are GPS times);
    /// before any fix, the clock's.
    var eventTime: UTCTime { monitor.lastFix?.time ?? UTCTime.now }

    /// For the watchdog: the actor answers, so it is not stuck.
    package func heartbeat() -> String { statusLine }
}
