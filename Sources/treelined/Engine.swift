import AR
import Foundation
import Geo
import GPSD
import Logging
import Rules
import Server
import Store
import Synchronization

/// The daemon's core: fixes in, events committed to the journal with the state they leave, then
/// published. One at a time (an actor): fixes, `water`, a reload.
///
/// An event is published only after its commit returned, so a subscriber never sees an event
/// that a crash could take back, and a seq is never given twice. When a commit fails (disk full,
/// say) the events wait in memory and go with the next commit; they are not dropped.
actor Engine: ServerDelegate {
    nonisolated let store: Store
    nonisolated let hub: Hub
    nonisolated let version: String
    private nonisolated let seq: Atomic<Int64>
    private let logger: Logger

    private(set) var monitor: RegionMonitor
    /// The species catalog (nil: none could be read; planting commands say so).
    private(set) var catalog: SpeciesCatalog?
    private var catalogProblem = "no species catalog"
    private var gpsdStatus = "not connected yet"
    private var fixes = 0
    private var eventsByType: [String: Int] = [:]
    /// Committed nowhere yet: the commit failed; sent with the next one.
    private var unsaved: [JournalEntry] = []
    private var unsavedRegions: Set<Int> = []
    /// Commits and their durations (ns): the disk's share of an event's latency.
    private var commits = 0
    private var commitNanos: UInt64 = 0
    private var slowestCommit: UInt64 = 0
    /// The last fix as stored: a fix that changes nothing of it, and no region, costs no write.
    private var storedFix: LastFix?
    /// Called when the gpsd status or the regions change (systemd's STATUS=).
    private let onStatus: @Sendable (String) -> Void

    init(store: Store, monitor: RegionMonitor, hub: Hub, version: String, logger: Logger,
         onStatus: @escaping @Sendable (String) -> Void) throws(StoreError) {
        self.store = store
        self.hub = hub
        self.version = version
        self.logger = logger
        self.onStatus = onStatus
        seq = Atomic(try store.lastSeq())
        var monitor = monitor
        let stored = try store.state()
        monitor.restore(last: stored.lastFix, regions: stored.regions)
        _ = monitor.takeChangedRegions()
        self.monitor = monitor
        storedFix = stored.lastFix
    }

    nonisolated func lastSeq() -> Int64 { seq.load(ordering: .acquiring) }

    var statusLine: String {
        "\(gpsdStatus); \(monitor.regions.count) regions; \(fixes) fixes, \(monitor.gate.accepted) used; last seq \(lastSeq())"
    }

    // MARK: fixes

    func gpsd(_ status: GPSDStatus) {
        switch status {
        case .connected, .disconnected: gpsdStatus = status.description
        case .device(let d): gpsdStatus = "connected, receiver \(d)"
        case .noFix: gpsdStatus = "connected, no fix"
        case .fix: gpsdStatus = "connected, fix"
        }
        switch status {
        case .disconnected: logger.warning("gpsd: \(status)")
        default: logger.info("gpsd: \(status)")
        }
        onStatus(statusLine)
    }

    /// One fix from gpsd, received at `receivedNanos` (monotonic clock).
    func process(_ fix: Fix, receivedNanos: UInt64) {
        fixes += 1
        var entries = unsaved
        let regions = monitor.regions
        monitor.process(fix) { e in entries.append(Self.entry(e, regions)) }
        unsavedRegions.formUnion(monitor.takeChangedRegions())
        // A dropped fix changes nothing to keep (unless it is a jump the next fix may confirm).
        guard monitor.lastFix != storedFix || !entries.isEmpty || !unsavedRegions.isEmpty else { return }
        commit(entries, receivedNanos: receivedNanos)
    }

    static func entry(_ e: RegionEvent, _ regions: RegionSet) -> JournalEntry {
        var json: [UInt8] = []
        e.appendJSON(to: &json, regions: regions)
        let r = regions.regions[e.region]
        return JournalEntry(time: e.time, type: e.type.rawValue, region: r.id, kind: r.kind.rawValue, json: json)
    }

    @discardableResult
    private func commit(_ entries: [JournalEntry], receivedNanos: UInt64?) -> [JournalEvent]? {
        unsavedRegions.formUnion(monitor.takeChangedRegions())
        let changed = unsavedRegions.sorted().map { (id: monitor.regions.regions[$0].id, state: monitor.state(of: $0)) }
        do {
            let started = monotonicNanos()
            let committed = try store.commit(entries, lastFix: monitor.lastFix, regions: changed)
            let took = monotonicNanos() - started
            commits += 1
            commitNanos += took
            if took > slowestCommit { slowestCommit = took }
            if took > 250_000_000 { logger.warning("a commit took \(took / 1_000_000) ms: the disk is slow; events wait for it") }
            unsaved = []
            unsavedRegions = []
            storedFix = monitor.lastFix
            if let last = committed.last { seq.store(last.seq, ordering: .releasing) }
            for e in committed { eventsByType[e.entry.type, default: 0] += 1 }
            hub.publish(Batch(committed, receivedNanos: receivedNanos))
            return committed
        } catch {
            if unsaved.isEmpty { logger.error("\(error); the events wait in memory and go with the next commit") }
            unsaved = entries
            return nil
        }
    }

    // MARK: commands

    func water(plant: String) -> Result<JournalEvent, RequestError> {
        guard let i = monitor.regions.regions.firstIndex(where: { $0.id == plant }) else {
            return .failure(RequestError("no region '\(plant)': `treeline state` or {\"cmd\":\"regions\"} lists them"))
        }
        // The time of the last fix (event times are GPS times); before any fix, the clock's.
        let time = monitor.lastFix?.time ?? UTCTime(nanoseconds: Int64(Date().timeIntervalSince1970 * 1e9))
        guard let event = monitor.water(i, at: time) else {
            return .failure(RequestError("'\(plant)' is a\(monitor.regions.regions[i].kind == .album ? "n" : "") \(monitor.regions.regions[i].kind.rawValue), not a plant"))
        }
        guard let committed = commit(unsaved + [Self.entry(event, monitor.regions)], receivedNanos: nil), let last = committed.last else {
            return .failure(RequestError("the watering could not be saved (the database failed: see the daemon's log); it is kept and saved with the next fix"))
        }
        logger.info("\(plant) watered at \(time.iso8601)")
        return .success(last)
    }

    func state() -> [UInt8] {
        var out: [UInt8] = []
        out.append(contentsOf: #"{"class":"STATE","version":"#.utf8)
        JSONBytes.appendString(version, to: &out)
        out.append(contentsOf: #","seq":"#.utf8)
        out.append(contentsOf: String(lastSeq()).utf8)
        out.append(contentsOf: #","gpsd":"#.utf8)
        JSONBytes.appendString(gpsdStatus, to: &out)
        out.append(contentsOf: #","last_fix":"#.utf8)
        if let f = monitor.lastFix {
            out.append(contentsOf: #"{"time":""#.utf8)
            f.time.appendISO8601(to: &out)
            out.append(contentsOf: #"","lat":"#.utf8)
            JSONBytes.appendFixed(f.coordinate.latitude, decimals: 7, to: &out)
            out.append(contentsOf: #","lon":"#.utf8)
            JSONBytes.appendFixed(f.coordinate.longitude, decimals: 7, to: &out)
            out.append(contentsOf: #","error_m":"#.utf8)
            JSONBytes.appendFixed(f.error, decimals: 2, to: &out)
            out.append(UInt8(ascii: "}"))
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(contentsOf: #","inside":["#.utf8)
        var first = true
        for (i, r) in monitor.regions.regions.enumerated() where monitor.inside[i] {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONBytes.appendString(r.id, to: &out)
        }
        out.append(contentsOf: #"],"regions":"#.utf8)
        out.append(contentsOf: String(monitor.regions.count).utf8)
        out.append(contentsOf: #","fixes":"#.utf8)
        out.append(contentsOf: String(fixes).utf8)
        out.append(contentsOf: #","used":"#.utf8)
        out.append(contentsOf: String(monitor.gate.accepted).utf8)
        out.append(contentsOf: #","dropped":{"#.utf8)
        first = true
        for r in DropReason.allCases {
            guard let n = monitor.gate.dropped[r] else { continue }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONBytes.appendString(r.rawValue, to: &out)
            out.append(contentsOf: ":\(n)".utf8)
        }
        out.append(contentsOf: #"},"events":{"#.utf8)
        first = true
        for (type, n) in eventsByType.sorted(by: { $0.key < $1.key }) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONBytes.appendString(type, to: &out)
            out.append(contentsOf: ":\(n)".utf8)
        }
        out.append(contentsOf: #"},"commits":"#.utf8)
        out.append(contentsOf: String(commits).utf8)
        out.append(contentsOf: #","commit_ms":{"mean":"#.utf8)
        JSONBytes.appendFixed(commits == 0 ? 0 : Double(commitNanos) / Double(commits) / 1e6, decimals: 2, to: &out)
        out.append(contentsOf: #","max":"#.utf8)
        JSONBytes.appendFixed(Double(slowestCommit) / 1e6, decimals: 2, to: &out)
        out.append(contentsOf: #"},"subscribers":"#.utf8)
        out.append(contentsOf: String(hub.count).utf8)
        out.append(UInt8(ascii: "}"))
        return out
    }

    func regionIDs() -> Set<String> { Set(monitor.regions.regions.map(\.id)) }

    func regions() -> [UInt8] {
        var out: [UInt8] = []
        out.append(contentsOf: #"{"class":"REGIONS","regions":["#.utf8)
        for (i, r) in monitor.regions.regions.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"id":"#.utf8)
            JSONBytes.appendString(r.id, to: &out)
            out.append(contentsOf: #","kind":"#.utf8)
            JSONBytes.appendString(r.kind.rawValue, to: &out)
            out.append(contentsOf: #","name":"#.utf8)
            JSONBytes.appendString(r.name, to: &out)
            out.append(contentsOf: #","inside":"#.utf8)
            out.append(contentsOf: (monitor.inside[i] ? "true" : "false").utf8)
            if r.kind == .plant {
                let s = monitor.state(of: i)
                if let days = r.intervalDays { out.append(contentsOf: #","interval_days":\#(days)"#.utf8) }
                if let w = s.lastWatered {
                    out.append(contentsOf: #","last_watered":""#.utf8)
                    w.appendISO8601(to: &out)
                    out.append(UInt8(ascii: "\""))
                }
            }
            if r.kind == .reforestation && !r.species.isEmpty {
                out.append(contentsOf: #","species":["#.utf8)
                for (k, s) in r.species.enumerated() {
                    if k > 0 { out.append(UInt8(ascii: ",")) }
                    JSONBytes.appendString(s, to: &out)
                }
                out.append(UInt8(ascii: "]"))
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }

    // MARK: planting

    func setCatalog(_ c: Result<SpeciesCatalog, DaemonError>) {
        switch c {
        case .success(let c): catalog = c
        case .failure(let e):
            catalogProblem = e.description
            logger.warning("planting commands are off: \(e.description)")
        }
    }

    private func planting(at: Coordinate?) -> Result<(PlantingRules, Coordinate), RequestError> {
        guard let catalog else { return .failure(RequestError("\(catalogProblem): set species: in the config to the catalog's path")) }
        guard let c = at ?? monitor.lastFix?.coordinate else {
            return .failure(RequestError("no fix yet: wait for one, or give \"at\":[lat, lon]"))
        }
        return .success((PlantingRules(regions: monitor.regions, catalog: catalog), c))
    }

    private static func verdictJSON(_ cls: String, _ v: PlantingVerdict, tree: PlantedTree?, species: String?, at c: Coordinate) -> [UInt8] {
        var out: [UInt8] = Array(#"{"class":"#.utf8)
        JSONBytes.appendString(cls, to: &out)
        out.append(contentsOf: #","lat":"#.utf8)
        JSONBytes.appendFixed(c.latitude, decimals: 7, to: &out)
        out.append(contentsOf: #","lon":"#.utf8)
        JSONBytes.appendFixed(c.longitude, decimals: 7, to: &out)
        if let tree { out.append(contentsOf: #","tree":\#(tree.id)"#.utf8) }
        v.appendJSONFields(species: species, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    func canPlant(species: String?, area: String?, at: Coordinate?) -> Result<[UInt8], RequestError> {
        planting(at: at).flatMap { rules, c in
            do {
                let verdict = rules.check(at: c, species: species, area: area, trees: try store.trees())
                return .success(Self.verdictJSON("CAN_PLANT", verdict, tree: nil, species: species.flatMap { rules.catalog.named($0)?.latin } ?? species, at: c))
            } catch {
                return .failure(RequestError("cannot read the trees: \(error)"))
            }
        }
    }

    func plant(species: String, area: String?, at: Coordinate?) -> Result<[UInt8], RequestError> {
        planting(at: at).flatMap { rules, c in
            let latin = rules.catalog.named(species)?.latin ?? species
            do {
                let time = monitor.lastFix?.time ?? UTCTime(nanoseconds: Int64(Date().timeIntervalSince1970 * 1e9))
                let (verdict, tree) = try store.plant(species: latin, at: c, planted: time) { trees in
                    rules.check(at: c, species: species, area: area, trees: trees)
                }
                if let tree { logger.info("tree #\(tree.id) planted: \(latin) in \(tree.area)") }
                return .success(Self.verdictJSON("PLANT", verdict, tree: tree, species: latin, at: c))
            } catch {
                return .failure(RequestError("the tree could not be recorded: \(error)"))
            }
        }
    }

    func plan(area: String, species name: String, count: Int, at: Coordinate?, maxDistance: Double?, seed: UInt64) -> Result<[UInt8], RequestError> {
        planting(at: at).flatMap { rules, c in
            let i: Int, species: Species
            do throws(PlantingVerdict.Refusal) { (i, species) = try rules.resolve(area: area, species: name) } catch { return .failure(RequestError(error.message)) }
            let existing: [Coordinate]
            do { existing = try store.trees().map(\.coordinate) } catch { return .failure(RequestError("cannot read the trees: \(error)")) }
            let result = PlantingPlanner(regions: monitor.regions).plan(area: i, species: species, count: count, at: c,
                                                                        maxDistance: maxDistance, existing: existing, seed: seed)
            return .success(Self.planJSON(result, area: area, species: species))
        }
    }

    static func planJSON(_ result: PlanResult, area: String, species: Species) -> [UInt8] {
        var out: [UInt8] = Array(#"{"class":"PLAN","area":"#.utf8)
        JSONBytes.appendString(area, to: &out)
        out.append(contentsOf: #","species":"#.utf8)
        JSONBytes.appendString(species.latin, to: &out)
        out.append(contentsOf: #","spacing_m":"#.utf8)
        JSONBytes.appendFixed(species.spacing, decimals: 2, to: &out)
        out.append(contentsOf: #","asked":\#(result.requested),"placed":\#(result.positions.count),"trees":["#.utf8)
        for (k, p) in result.positions.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"lat":"#.utf8)
            JSONBytes.appendFixed(p.latitude, decimals: 7, to: &out)
            out.append(contentsOf: #","lon":"#.utf8)
            JSONBytes.appendFixed(p.longitude, decimals: 7, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        if let reason = result.reason {
            out.append(contentsOf: #","reason":"#.utf8)
            JSONBytes.appendString(reason, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    // MARK: layout

    func layout(camera: Camera, options: LayoutOptions, at: Coordinate?) -> Result<[UInt8], RequestError> {
        guard let c = at ?? monitor.lastFix?.coordinate else {
            return .failure(RequestError("no fix yet: wait for one, or give \"at\":[lat, lon]"))
        }
        let pois = monitor.regions.regions.map(POI.init(region:))
        let layout = StackingProjector(camera: camera, options: options).layout(observer: c, pois: pois)
        var out: [UInt8] = Array(#"{"class":"LAYOUT","lat":"#.utf8)
        JSONBytes.appendFixed(c.latitude, decimals: 7, to: &out)
        out.append(contentsOf: #","lon":"#.utf8)
        JSONBytes.appendFixed(c.longitude, decimals: 7, to: &out)
        out.append(contentsOf: #","pois":\#(layout.poiCount),"visible":\#(layout.visibleCount),"hidden":\#(layout.hiddenCount),"items":["#.utf8)
        for (k, item) in layout.items.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            item.appendJSON(to: &out)
        }
        out.append(contentsOf: "]}".utf8)
        return .success(out)
    }

    // MARK: reload

    /// New regions and monitor settings (SIGHUP): the state carries over by region id.
    func reload(regions: RegionSet, config: MonitorConfig) {
        unsavedRegions.formUnion(monitor.takeChangedRegions())
        let old = monitor
        monitor = old.carried(to: regions, config: config)
        // Indices changed: what waited to be saved is saved under the new ones (all of them,
        // as the carry may have merged a file's watering dates).
        unsavedRegions = Set(0..<regions.count)
        _ = monitor.takeChangedRegions()
        commit(unsaved, receivedNanos: nil)
        onStatus(statusLine)
    }

    /// For the watchdog: the actor answers, so it is not stuck.
    func heartbeat() -> String { statusLine }
}
