import Geo
import Rules
import Server
import Store
import JSON
import Regions
import Protocol

/// The two layers of regions. The base layer comes from the regions files and changes only by
/// reload; the user layer lives in the database and changes by command. Every change is one
/// transaction with its event (`region_added`, `region_updated`, `region_removed`, each carrying
/// the region's `layer` and, but for removals, its Feature), published once committed; then the
/// monitor takes the new set at once, each region's state carried by id.
extension Engine {
    /// A new base layer made ready off the actor (`prepare`): the regions, how they differ from
    /// the journal's last announcement, and the set built over them and the user layer of
    /// `regionsVersion`.
    package struct BasePlan: Sendable {
        package var base: [Region]
        /// The file of each region.
        package var files: BaseFiles
        /// The files' key (`BaseLayerKey`); nil: compare with the journal's layer whatever it is.
        package var key: String?
        package var change: BaseLayerChange
        /// A monitor over the new set with the new settings, yet without state; `reload` takes it
        /// (moved, not copied: see `RegionMonitor.carried(into:)`).
        package var monitor: RegionMonitor?
        package var regionsVersion: Int
    }

    /// The user layer as stored, checked again as a regions file.
    static func userLayer(_ store: Store) throws -> [Region] {
        let stored = try store.userRegions()
        guard !stored.isEmpty else { return [] }
        do {
            return try readBack(stored.map(\.feature), source: "\(store.path) (regions added at runtime)")
        } catch {
            throw DaemonError("\(error.description)\nThe database's user layer does not read back: restore a backup of \(store.path)")
        }
    }

    /// Features as stored (`Region.featureJSON`), read back as a regions file of them: what is in
    /// force after a change is what a restart reads. `source` names them in issues.
    static func readBack(_ features: [String], source: String) throws(RegionFileError) -> [Region] {
        let text = #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
        return try RegionFile.parse(Array(text.utf8), file: source)
    }

    /// The index in force of region `id` (from the set's index of ids: a first start announces
    /// every region, and a scan each would be quadratic).
    package func index(of id: String) -> Int? { monitor.regions.index(ofID: id) }

    /// `base` or `user`, for region index `i`.
    package func layer(_ i: Int) -> String { i < base.count ? "base" : "user" }

    /// The regions in force, `base + user`: the base layer's own array when there is no user
    /// layer (a country's 100,000 regions are 16 MB of `Region`s; the set shares them).
    static func inForce(_ base: [Region], _ user: [Region]) -> [Region] { user.isEmpty ? base : base + user }

    /// The regions file of base region `id`, or nil when `id` is not one of the base layer.
    func baseFile(of id: String) -> String? {
        guard let i = index(of: id), i < base.count else { return nil }
        return baseFiles[i]
    }

    /// The monitor over `base + user`, taking over the state by id; `new` are ids that appeared
    /// (their first enter is `initial`). State changes not yet saved are saved under the new
    /// indices. `prepared` is a monitor without state over the new set, built off the actor at
    /// `builtAt`; it is used when that is still the `regionsVersion` in force (no region changed
    /// by command since).
    /// Returns the monitor replaced.
    @discardableResult
    func rebuild(config: MonitorConfig? = nil, new: [String] = [], prepared: consuming RegionMonitor? = nil, builtAt: Int = -1) -> RegionMonitor {
        let old = monitor
        var pending = Set(unsavedRegions.map { old.regions.regions[$0].id })
        for i in monitor.takeChangedRegions() { pending.insert(old.regions.regions[i].id) }
        // `carried` re-notes what the old monitor had not handed out: nothing, after the take above.
        if builtAt == regionsVersion, let fresh = prepared.take() {
            monitor = old.carried(into: fresh)
        } else {
            monitor = old.carried(to: RegionSet(Self.inForce(base, user)), config: config ?? old.config)
        }
        regionsVersion += 1
        rastersPending = false  // a set built here has its rasters
        for id in new { if let i = index(of: id) { monitor.treatAsNew(i) } }
        unsavedRegions = Set(monitor.takeChangedRegions())
        if !pending.isEmpty {
            for (i, r) in monitor.regions.regions.enumerated() where pending.contains(r.id) { unsavedRegions.insert(i) }
        }
        if !unsavedRegions.isEmpty { commit([], receivedNanos: nil) }
        return old
    }

    /// What a new base layer needs, made without the actor (a SIGHUP's reload runs it on one
    /// niced thread of its own, not across the cores, while fixes flow): each region's Feature, what differs from the journal's
    /// last announcement, and the monitor's set over it and `user`, the user layer in force at
    /// `regionsVersion` (`userLayerInForce`). The actor then only journals the difference and
    /// swaps the set in (`reload`).
    package static func prepare(base next: [(region: Region, file: String)], key: String? = nil, user: [Region], regionsVersion: Int, config: MonitorConfig,
                                store: Store) throws(DaemonError) -> BasePlan {
        let regions = next.map(\.region)
        let change: BaseLayerChange
        // Every Feature made here, off the actor (`reload` only journals them), even a first.
        do { change = try Self.change(to: regions, key: key, store: store, parallel: false, deferring: false) ?? BaseLayerChange() } catch {
            throw DaemonError(error.description)
        }
        return BasePlan(
            base: regions, files: BaseFiles(next), key: key,
            change: change, monitor: RegionMonitor(regions: RegionSet(inForce(regions, user), parallel: false), config: config), regionsVersion: regionsVersion)
    }

    /// What `regions`, read from files of `key`, change in the base layer the journal last
    /// announced: nil when the key is the one announced (the same files: nothing is read back or
    /// compared); else each region's Feature compared with the rows in force.
    /// `deferring`: a first announcement leaves its Features to be made as they are written
    /// (`BaseLayerChange.firstAnnouncement`), on the caller of `announceBase`.
    static func change(to regions: [Region], key: String?, store: Store, parallel: Bool, deferring: Bool = true) throws(StoreError) -> BaseLayerChange? {
        if let key, try store.baseLayerKey() == key { return nil }
        let announced = try store.announcedBase()
        // Nothing to compare with (a first start): the Features are made as they are written.
        if announced.isEmpty, deferring { return BaseLayerChange.firstAnnouncement(ids: regions.map(\.id)) }
        return .between(announced: announced, now: features(of: regions[...], parallel: parallel))
    }

    /// Each region's Feature as the journal keeps it, written across the cores when `parallel`.
    static func features(of regions: ArraySlice<Region>, parallel: Bool) -> [StoredFeature] {
        var out: [StoredFeature] = []
        out.reserveCapacity(regions.count)
        let first = regions.startIndex
        Cores.inOrder(regions.count, parallel: parallel, make: { StoredFeature(id: regions[first + $0].id, feature: regions[first + $0].featureJSON) },
                      take: { out.append($1) })
        return out
    }

    /// The user layer and the count of changes to the regions in force it belongs to.
    package func userLayerInForce() -> (user: [Region], regionsVersion: Int) { (user, regionsVersion) }

    /// Journals what changed in the base layer since the journal last announced it (all of it,
    /// the first time); returns the ids added. Files with the key last announced are the same
    /// layer: nothing is read back or compared.
    func announceBase(time: UTCTime) throws(StoreError) -> [String] {
        guard let change = try Self.change(to: base, key: baseKey, store: store, parallel: true) else { return [] }
        return try announceBase(change, time: time, parallel: true)
    }

    /// Journals `change` (the base layer in force against the journal's last announcement) as
    /// one `base_layer` record, written with the rows that changed in one transaction; returns
    /// the ids added. The record's region events (`Store.page`) are what an event per region
    /// said before: each added or changed region's Feature in file order, then the removals.
    /// `parallel`: whether deferred Features (`BaseLayerChange.firstAnnouncement`) are made
    /// across the cores.
    func announceBase(_ change: BaseLayerChange, time: UTCTime, parallel: Bool = false) throws(StoreError) -> [String] {
        var a = Store.BaseAnnouncement(key: baseKey ?? "", files: baseFiles.names, kinds: base.map(\.kind.rawValue),
                                       time: time, kindOf: Self.kind(ofFeature:))
        for row in change.updated {
            // A plant's watering as the monitor has it (the later of the file's and the keeper's).
            let r = base[row.position]
            guard r.kind == .plant, let i = index(of: r.id) else { continue }
            let kept = monitor.state(of: i).lastWatered
            let watered = r.lastWatered.map { max($0, kept ?? $0) } ?? kept
            if watered != r.lastWatered {
                var json: [UInt8] = []
                r.appendFeature(to: &json, lastWatered: .some(watered))
                a.shown[r.id] = String(decoding: json, as: UTF8.self)
            }
        }
        for r in change.removed { a.inside[r.id] = index(of: r.id).map { monitor.inside[$0] } }
        let base = self.base
        let record = try store.announceBase(change, a) { range in Self.features(of: base[range], parallel: parallel).map(\.feature) }
        // Ids the files have had are never given to a runtime region: those in force are known
        // by `baseFile(of:)`, those no longer in force are used ids from now on.
        for r in change.removed { usedIDs.insert(r.id) }
        guard let record else { return [] }
        if regionsAddedRead != nil { for row in change.added where regionsAdded[row.feature.id] == nil { regionsAdded[row.feature.id] = time } }
        published([record])
        logger.notice("regions files: \(change.added.count) added, \(change.updated.count) changed, \(change.removed.count) removed (journaled as seq \(record.seq))")
        return change.added.map(\.feature.id)
    }

    /// Committed events out: the seq, the counts, the subscribers (with the fix's receive time
    /// for `timing`).
    package func published(_ committed: [JournalEvent], receivedNanos: UInt64? = nil) {
        guard let last = committed.last else { return }
        seq.store(last.seq, ordering: .releasing)
        for e in committed {
            counters.eventsByType[e.entry.type, default: 0] += 1
            if e.entry.type == "region_added" && regionsAddedRead != nil && regionsAdded[e.entry.region] == nil { regionsAdded[e.entry.region] = e.entry.time }
        }
        hub.publish(Batch(committed, receivedNanos: receivedNanos))
    }

    /// The kind named in a stored Feature (for the removal of a region no longer read).
    package static func kind(ofFeature text: String) -> String {
        guard let doc = try? JSONDocument.parse(Array(text.utf8)), let k = doc.root["properties"]?["kind"]?.string else { return "" }
        return k
    }

    /// `region_added` / `region_updated`: the region's Feature and layer.
    /// `feature`: the region's Feature as `featureJSON` already wrote it.
    static func regionEntry(_ type: String, _ r: Region, layer: String, time: UTCTime, lastWatered: UTCTime?? = nil, feature: String? = nil) -> JournalEntry {
        .region(type, id: r.id, kind: r.kind.rawValue, layer: layer, time: time) { json in
            if let feature { json.append(contentsOf: feature.utf8) } else { r.appendFeature(to: &json, lastWatered: lastWatered) }
        }
    }

    /// Saves pending fix events first, so that a change's seq comes after theirs; false when the
    /// database is failing.
    func flushUnsaved() -> Bool {
        guard !unsaved.isEmpty else { return true }
        return commit([], receivedNanos: nil) != nil
    }

    static let databaseFailed = CommandError("the database failed (see the daemon's log): nothing was changed")

    // MARK: commands

    /// Why `time` cannot be a watering: more than a day after now (a mistyped year would silence
    /// the plant for decades).
    func futureWatering(_ time: UTCTime?) -> CommandError? {
        guard let time, time.nanoseconds > eventTime.nanoseconds + UTCTime.nanosPerDay else { return nil }
        var text: [UInt8] = []
        time.appendISO8601(to: &text)
        return CommandError("\"last_watered\" \(String(decoding: text, as: UTF8.self)) is in the future: give when the plant was last watered")
    }

    package func addRegion(_ new: NewRegion) -> Result<[UInt8], CommandError> {
        var region: Region
        switch new {
        case .feature(let r):
            region = r
        case .short(let s):
            if s.at == nil, let ago = s.ago {
                switch fixAgo(ago) {
                case .success(let then): return addRegion(.short({ var placed = s; placed.at = then.coordinate; placed.ago = nil; return placed }()))
                case .failure(let e): return .failure(e)
                }
            }
            guard let at = s.at ?? monitor.lastFix?.coordinate else {
                return .failure(CommandError("no fix yet to place the \(s.kind.rawValue) at: give \"at\":[lat, lon] (--at LAT,LON), or wait for a fix"))
            }
            region = s.region(id: s.id ?? "", at: at)
        }
        if let e = futureWatering(region.lastWatered) { return .failure(e) }
        if region.id.isEmpty {
            region.id = freshID(for: region.kind)
        } else if let taken = idTaken(region.id) {
            return .failure(taken)
        }
        let feature = region.featureJSON
        do {
            region = try Self.readBack([feature], source: "add_region")[0]
        } catch {
            return .failure(CommandError("the region does not read back: " + error.issues.map(\.message).joined(separator: "; ")))
        }
        guard flushUnsaved() else { return .failure(Self.databaseFailed) }
        let entry = Self.regionEntry("region_added", region, layer: "user", time: eventTime)
        let event: JournalEvent
        do { event = try store.apply(.add(id: region.id, feature: feature), event: entry) } catch {
            logger.error("\(error)")
            return .failure(Self.databaseFailed)
        }
        user.append(region)
        usedIDs.insert(region.id)
        userUsedIDs.insert(region.id)
        published([event])
        rebuild(new: [region.id])
        logger.info("region added: \(region.kind.rawValue) '\(region.id)' (\(region.name))")
        onStatus(statusLine)
        return .success(Self.line(event))
    }

    /// Several Features into the user layer in one transaction: every id checked first (taken,
    /// used, or twice in the batch), then all added or none.
    package func addRegions(_ given: [Region]) -> Result<[UInt8], CommandError> {
        var regions: [Region] = []
        var problems: [String] = []
        var named = Set<String>()
        for (k, r) in given.enumerated() where !r.id.isEmpty {
            if let e = idTaken(r.id) { problems.append("feature \(k): \(e.message)") }
            if !named.insert(r.id).inserted { problems.append("feature \(k): id '\(r.id)' is given twice") }
            if let e = futureWatering(r.lastWatered) { problems.append("feature \(k): \(e.message)") }
        }
        guard problems.isEmpty else { return .failure(CommandError("nothing added: " + problems.joined(separator: "; "))) }
        var changes: [(change: RegionChange, event: JournalEntry, state: RegionState?)] = []
        var taken = named
        for var r in given {
            if r.id.isEmpty {
                r.id = freshID(for: r.kind, avoiding: taken)
                taken.insert(r.id)
            }
            let feature = r.featureJSON
            guard let back = try? Self.readBack([feature], source: "add_regions")[0] else {
                return .failure(CommandError("nothing added: '\(r.id)' does not read back as a region"))
            }
            regions.append(back)
            changes.append((.add(id: back.id, feature: feature), Self.regionEntry("region_added", back, layer: "user", time: eventTime), nil))
        }
        guard flushUnsaved() else { return .failure(Self.databaseFailed) }
        let events: [JournalEvent]
        do { events = try store.apply(changes) } catch {
            logger.error("\(error)")
            return .failure(Self.databaseFailed)
        }
        user += regions
        for r in regions {
            usedIDs.insert(r.id)
            userUsedIDs.insert(r.id)
        }
        published(events)
        rebuild(new: regions.map(\.id))
        logger.info("\(regions.count) regions added: \(regions.map(\.id).joined(separator: ", "))")
        onStatus(statusLine)
        var out: [UInt8] = Array(#"{"class":"REGIONS_ADDED","events":["#.utf8)
        for (k, e) in events.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            out += Self.line(e)
        }
        out.append(contentsOf: "]}".utf8)
        return .success(out)
    }

    package func updateRegion(_ id: String, _ update: RegionUpdate) -> Result<[UInt8], CommandError> {
        guard let k = user.firstIndex(where: { $0.id == id }), let i = index(of: id), !fleetIDs.contains(id) else { return .failure(notInUserLayer(id)) }
        if let watered = update.lastWatered, let e = futureWatering(watered) { return .failure(e) }
        var region: Region
        switch update.applied(to: user[k]) {
        case .success(let r): region = r
        case .failure(let e): return .failure(e)
        }
        let feature = region.featureJSON
        do {
            region = try Self.readBack([feature], source: "update_region")[0]
        } catch {
            return .failure(CommandError("'\(id)' would not be a region: " + error.issues.map(\.message).joined(separator: "; ")))
        }
        guard flushUnsaved() else { return .failure(Self.databaseFailed) }
        // The watering the event announces and the state saved with it: the keeper's correction,
        // else the monitor's (waterings since the region was added).
        var state = monitor.state(of: i)
        if let watered = update.lastWatered { state.lastWatered = watered }
        let entry = Self.regionEntry("region_updated", region, layer: "user", time: eventTime, lastWatered: .some(state.lastWatered))
        let event: JournalEvent
        do {
            event = try store.apply(.update(id: id, feature: feature), event: entry, state: update.lastWatered == nil ? nil : state)
        } catch {
            logger.error("\(error)")
            return .failure(Self.databaseFailed)
        }
        user[k] = region
        published([event])
        rebuild()
        if let watered = update.lastWatered, let j = index(of: id) {
            monitor.setLastWatered(j, watered)
            _ = monitor.takeChangedRegions()  // saved with the change
        }
        logger.info("region updated: '\(id)'")
        return .success(Self.line(event))
    }

    package func removeRegion(_ id: String) -> Result<[UInt8], CommandError> {
        guard let k = user.firstIndex(where: { $0.id == id }), let i = index(of: id), !fleetIDs.contains(id) else { return .failure(notInUserLayer(id)) }
        // The trail under way could not be completed without it.
        if let run = trails.run, trails.trail(run.trail)?.checkpoints.contains(where: { $0.region == id }) == true {
            return .failure(CommandError("trail '\(run.trail)', under way, passes through '\(id)': stop it first (stop_trail)"))
        }
        guard flushUnsaved() else { return .failure(Self.databaseFailed) }
        // A plant's watering goes with the event, so that restore_region brings it back as it was.
        let watered: UTCTime?? = user[k].kind == .plant ? .some(monitor.lastWatered[i]) : .none
        let entry = JournalEntry.regionRemoved(id: id, kind: user[k].kind.rawValue, layer: "user", inside: monitor.inside[i], lastWatered: watered, time: eventTime)
        let event: JournalEvent
        do { event = try store.apply(.remove(id: id), event: entry) } catch {
            logger.error("\(error)")
            return .failure(Self.databaseFailed)
        }
        user.remove(at: k)
        published([event])
        rebuild()
        logger.info("region removed: '\(id)'")
        onStatus(statusLine)
        return .success(Self.line(event))
    }

    /// Why `id` cannot be changed here: a file's region, or none.
    func notInUserLayer(_ id: String) -> CommandError {
        if fleetIDs.contains(id), user.contains(where: { $0.id == id }) {
            return CommandError("'\(id)' comes from the fleet's collection (treeline/fleet/regions): change it there")
        }
        if let file = baseFile(of: id) {
            return CommandError("'\(id)' comes from the regions file \(file) (the read-only base layer): edit it there, then reload (systemctl reload treelined)")
        }
        return CommandError("no region '\(id)': treeline regions (or {\"cmd\":\"regions\"}) lists them")
    }

    /// Why `id` cannot be given to a new region, or nil.
    func idTaken(_ id: String) -> CommandError? {
        do { try Command.checkID(id) } catch { return error }
        if let file = baseFile(of: id) { return CommandError("id '\(id)' is taken by a region of \(file): choose another, or leave \"id\" out for one to be made") }
        if user.contains(where: { $0.id == id }) { return CommandError("id '\(id)' is taken by a region added before: choose another, or leave \"id\" out") }
        if usedIDs.contains(id) {
            return CommandError("id '\(id)' belonged to a region removed before, and ids are never given again (old events name it): choose another")
        }
        return nil
    }

    /// `plant-N` (`album-N`, …): the first N not in force, not used before, and not in `avoiding`
    /// (ids a batch gives itself).
    func freshID(for kind: RegionKind, avoiding: Set<String> = []) -> String {
        var n = 1
        while true {
            let id = "\(kind.rawValue)-\(n)"
            if baseFile(of: id) == nil, !usedIDs.contains(id), !avoiding.contains(id), !user.contains(where: { $0.id == id }) { return id }
            n += 1
        }
    }

    /// An event as its reply line (`{"class":"EVENT","seq":N,…}`, no newline).
    package static func line(_ e: JournalEvent) -> [UInt8] {
        var out: [UInt8] = []
        e.appendLine(to: &out)
        out.removeLast()
        return out
    }

    // MARK: listing

    package func regionIDs() -> Set<String> { Set(monitor.regions.regions.map(\.id)) }
}

extension Engine {
    /// Brings back region `id`, removed from the user layer by `remove_region` (by mistake): its
    /// last Feature from the journal, with its own id (the same region: old events name it, so
    /// the id was kept from anyone else) and, for a plant, the watering it had when removed.
    /// Journaled as `region_added` with `"restored":true`; the monitor takes it as a region new
    /// around the walker. Refused when the last that happened to the id was not that removal.
    package func restoreRegion(_ id: String) -> Result<[UInt8], CommandError> {
        guard index(of: id) == nil else { return .failure(CommandError("'\(id)' is in force: nothing to restore")) }
        guard userUsedIDs.contains(id), !fleetIDs.contains(id) else {
            return .failure(CommandError("'\(id)' was never a region added at runtime: only those can be restored (a file's region comes back in its file)"))
        }
        let removal: JournalEvent?, added: JournalEvent?
        do {
            removal = try store.lastEvent(region: id, types: ["region_added", "region_updated", "region_removed"], within: Self.undoReach)
            added = try store.lastEvent(region: id, types: ["region_added", "region_updated"], within: Self.undoReach)
        } catch {
            logger.error("\(error)")
            return .failure(Self.databaseFailed)
        }
        guard let removal, removal.entry.type == "region_removed",
              let gone = try? JSONDocument.parse(removal.entry.json), gone.root["layer"]?.string == "user" else {
            return .failure(CommandError("'\(id)' was not removed in the last \(Self.undoReach) events: nothing to restore"))
        }
        guard let added, let doc = try? JSONDocument.parse(added.entry.json), let feature = doc.root["feature"],
              var region = try? RegionFile.feature(feature, in: doc, source: "the journal (seq \(added.seq))") else {
            return .failure(CommandError("the journal no longer holds the region '\(id)' as it was: add it again with a new id"))
        }
        if region.kind == .plant, let w = gone.root["last_watered"] { region.lastWatered = w.string.flatMap(UTCTime.init(iso8601:)) }
        let text = region.featureJSON
        do { region = try Self.readBack([text], source: "restore_region")[0] } catch {
            return .failure(CommandError("the region does not read back: " + error.issues.map(\.message).joined(separator: "; ")))
        }
        guard flushUnsaved() else { return .failure(Self.databaseFailed) }
        var entry = Self.regionEntry("region_added", region, layer: "user", time: eventTime, feature: text)
        entry.appendMember("restored", json: "true")
        let event: JournalEvent
        do { event = try store.apply(.restore(id: id, feature: text), event: entry) } catch {
            logger.error("\(error)")
            return .failure(Self.databaseFailed)
        }
        user.append(region)
        published([event])
        rebuild(new: [id])
        logger.info("region restored: \(region.kind.rawValue) '\(id)' (\(region.name))")
        onStatus(statusLine)
        return .success(Self.line(event))
    }
}

extension JournalEntry {
    /// One more member at the end of the event's object: `key`, with `value` already JSON (what
    /// a `watered` replaced, that a `region_added` is a restoration).
    mutating func appendMember(_ key: String, json value: String) {
        json.removeLast()  // the object's "}"
        json.append(UInt8(ascii: ","))
        JSONBytes.appendString(key, to: &json)
        json.append(UInt8(ascii: ":"))
        json.append(contentsOf: value.utf8)
        json.append(UInt8(ascii: "}"))
    }
}
