import Foundation
import Geo
import GRDB
import Rules
import Protocol

/// Treeline's SQLite file (WAL): the event journal, numbered by `seq`, which is never reused (not
/// even after a crash or a deleted row); the monitor's state per region; the last fix used.
///
/// `commit` writes a fix's events together with the state they leave, in one transaction, and
/// returns their numbers: an event is durable (synced to disk) before anyone is sent it, and
/// after `kill -9` the state and the journal agree. A commit with no event and no change of a
/// region's state (a fix that moved nothing) is not synced at once: losing it to a power cut
/// costs only the position of the last fix, not an event.
///
/// Reads (`events(after:)`) run beside the writer, as WAL allows: a subscriber catching up never
/// holds up the monitor.
public final class Store: Sendable {
    public let path: String
    /// The journal's name (32 hex digits): another name is another journal, whatever its seqs.
    public let journal: String
    let pool: DatabasePool

    public init(path: String) throws(StoreError) {
        self.path = path
        do {
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty && !FileManager.default.fileExists(atPath: directory) {
                throw StoreError(path: path, message: "the folder \(directory) does not exist: create it, or set database: in the config to a writable place")
            }
            try Self.createPrivately(path)
            var config = Configuration()
            config.busyMode = .timeout(5)
            config.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
            pool = try DatabasePool(path: path, configuration: config)
            try Self.migrator.migrate(pool)
            journal = try Self.journalName(pool)
        } catch let e as StoreError {
            throw e
        } catch let e as DatabaseError {
            throw StoreError(path: path, message: "\(e.message ?? "\(e)") — check that the file is a Treeline database and that its folder is writable")
        } catch {
            throw StoreError(path: path, message: "\(error)")
        }
    }

    /// The last seq the MQTT broker acknowledged and the last seq whose OwnTracks transition was
    /// sent; nil before the bridge's first run.
    public func mqttProgress() throws(StoreError) -> (acked: Int64, transitions: Int64)? {
        try wrap("reading the MQTT acknowledgement") {
            try pool.read { db in
                try Row.fetchOne(db, sql: "SELECT seq, transitions FROM mqtt_ack WHERE id = 1").map { ($0["seq"], $0["transitions"]) }
            }
        }
    }

    /// Records the bridge's progress. Not synced at once: lost to a power cut, it costs repeats
    /// (which carry their seq), never a gap.
    public func setMQTTProgress(acked: Int64, transitions: Int64) throws(StoreError) {
        try wrap("saving the MQTT acknowledgement") {
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                try db.execute(sql: """
                    INSERT INTO mqtt_ack (id, seq, transitions) VALUES (1, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, transitions = excluded.transitions
                    """, arguments: [acked, transitions])
            }
        }
    }

    func wrap<T>(_ what: String, _ body: () throws -> T) throws(StoreError) -> T {
        do { return try body() } catch let e as DatabaseError {
            throw StoreError(path: path, message: "\(what): \(e.message ?? "\(e)")")
        } catch {
            throw StoreError(path: path, message: "\(what): \(error)")
        }
    }

    /// The last sequence number given, 0 when none has been.
    public func lastSeq() throws(StoreError) -> Int64 {
        try wrap("reading the last seq") {
            try pool.read { db in
                try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'journal'") ?? 0
            }
        }
    }

    /// The monitor's state as last committed.
    public func state() throws(StoreError) -> StoredState {
        try wrap("reading the monitor's state") {
            try pool.read { db in
                var s = StoredState()
                s.lastFix = try Row.fetchOne(db, sql: "SELECT time, lat, lon, error, jump_time, jump_lat, jump_lon FROM last_fix WHERE id = 1")
                    .map(Self.lastFix)
                let rows = try Row.fetchCursor(db, sql: "SELECT region, inside, entered_at, dwell_done, last_watered, alerted_for FROM region_state")
                while let row = try rows.next() {
                    s.regions[row["region"]] = Self.regionState(row)
                }
                return s
            }
        }
    }

    /// Commits events and the state they leave in one transaction; returns the events with their
    /// sequence numbers (consecutive, in the order given).
    @discardableResult
    public func commit(_ entries: [JournalEntry], lastFix: LastFix?, regions: [(id: String, state: RegionState)],
                       track: TrackPoint? = nil, trails: TrailProgress? = nil) throws(StoreError) -> [JournalEvent] {
        try wrap("committing \(entries.count) event(s)") {
            try pool.writeWithoutTransaction { db in
                // Events and changed regions are synced before this returns; a fix that changed
                // nothing need not wear the flash.
                let sync = entries.isEmpty && regions.isEmpty && (trails?.completed.isEmpty ?? true) ? "NORMAL" : "FULL"
                try db.execute(sql: "PRAGMA synchronous = \(sync)")
                var out: [JournalEvent] = []
                out.reserveCapacity(entries.count)
                try db.inTransaction(.immediate) {
                    for e in entries {
                        try db.execute(sql: "INSERT INTO journal (time, type, region, kind, json) VALUES (?, ?, ?, ?, ?)",
                                       arguments: [e.time.nanoseconds, e.type, e.region, e.kind, String(decoding: e.json, as: UTF8.self)])
                        out.append(JournalEvent(seq: db.lastInsertedRowID, entry: e))
                    }
                    for (id, s) in regions { try Self.save(s, of: id, db) }
                    if let trails { try Self.save(trails, db) }
                    if let p = track {
                        try db.execute(sql: "INSERT OR REPLACE INTO track (time, lat, lon, error) VALUES (?, ?, ?, ?)",
                                       arguments: [p.time.nanoseconds, p.coordinate.latitude, p.coordinate.longitude, p.error])
                    }
                    if let f = lastFix {
                        try db.execute(sql: """
                            INSERT INTO last_fix (id, time, lat, lon, error, jump_time, jump_lat, jump_lon) VALUES (1, ?, ?, ?, ?, ?, ?, ?)
                            ON CONFLICT(id) DO UPDATE SET time = excluded.time, lat = excluded.lat, lon = excluded.lon, error = excluded.error,
                              jump_time = excluded.jump_time, jump_lat = excluded.jump_lat, jump_lon = excluded.jump_lon
                            """, arguments: [f.time.nanoseconds, f.coordinate.latitude, f.coordinate.longitude, f.error,
                                             f.pendingJump?.time.nanoseconds, f.pendingJump?.coordinate.latitude, f.pendingJump?.coordinate.longitude])
                    }
                    return .commit
                }
                return out
            }
        }
    }

    /// Writes region `id`'s monitor state.
    static func save(_ s: RegionState, of id: String, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO region_state (region, inside, entered_at, dwell_done, last_watered, alerted_for)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(region) DO UPDATE SET inside = excluded.inside, entered_at = excluded.entered_at,
              dwell_done = excluded.dwell_done, last_watered = excluded.last_watered, alerted_for = excluded.alerted_for
            """, arguments: [id, s.inside, s.enteredAt?.nanoseconds, s.dwellDone, s.lastWatered?.nanoseconds, s.alertedFor?.nanoseconds])
    }

    /// Up to `limit` events after `seq` that `filter` lets through, in order.
    public func events(after seq: Int64, filter: EventFilter = .all, limit: Int = 512) throws(StoreError) -> [JournalEvent] {
        try wrap("reading the journal after seq \(seq)") {
            try pool.read { db in try Self.journalRows(after: seq, filter: filter, orBaseLayer: false, limit: limit, db) }
        }
    }

    /// How many events the journal holds.
    public func count() throws(StoreError) -> Int {
        try wrap("counting the journal") { try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) AS count FROM journal") ?? 0 } }
    }

    /// Deletes the journal's events up to `seq` (their numbers stay used).
    public func prune(through seq: Int64) throws(StoreError) {
        try wrap("pruning the journal") { try pool.write { db in try db.execute(sql: "DELETE FROM journal WHERE seq <= ?", arguments: [seq]) } }
    }

    /// Records a planted tree; returns it with its number.
    public func recordTree(area: String, species: String, at c: Coordinate, planted: UTCTime?, project: String? = nil) throws(StoreError) -> PlantedTree {
        try wrap("recording a tree") {
            try durably { db in
                try db.execute(sql: "INSERT INTO tree (area, species, lat, lon, planted, project) VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [area, species, c.latitude, c.longitude, planted?.nanoseconds, project])
                return PlantedTree(id: db.lastInsertedRowID, area: area, species: species, coordinate: c, planted: planted, project: project)
            }
        }
    }

    /// The recorded trees (of one area, of one project, or all), in the order planted.
    public func trees(area: String? = nil, project: String? = nil) throws(StoreError) -> [PlantedTree] {
        try wrap("reading the trees") {
            try pool.read { db in
                try Array(Row.fetchCursor(db, sql: "SELECT \(Self.treeColumns) FROM tree WHERE (?1 IS NULL OR area = ?1) AND (?2 IS NULL OR project = ?2) ORDER BY id",
                                          arguments: [area, project]).map(Self.tree))
            }
        }
    }

    /// Removes tree `id` (nil: the last recorded); returns it, or nil when there is no such tree.
    /// Its number is not given again.
    public func removeTree(_ id: Int64?) throws(StoreError) -> PlantedTree? {
        try wrap("removing a tree") {
            try durably { db in
                let row = id == nil
                    ? try Row.fetchOne(db, sql: "SELECT \(Self.treeColumns) FROM tree ORDER BY id DESC LIMIT 1")
                    : try Row.fetchOne(db, sql: "SELECT \(Self.treeColumns) FROM tree WHERE id = ?", arguments: [id])
                guard let row else { return nil }
                let tree = Self.tree(row)
                try db.execute(sql: "DELETE FROM tree WHERE id = ?", arguments: [tree.id])
                return tree
            }
        }
    }

    /// Checks and records in one transaction, so that two planters at once cannot both take the
    /// same spot: `check` sees every recorded tree and returns the area to record the tree in,
    /// or the verdict's refusal (then nothing is written).
    public func plant(species: String, at c: Coordinate, planted: UTCTime?, project: String? = nil,
                      check: ([PlantedTree]) -> PlantingVerdict) throws(StoreError) -> (PlantingVerdict, PlantedTree?) {
        try wrap("planting a tree") {
            try durably { db in
                let trees = try Array(Row.fetchCursor(db, sql: "SELECT \(Self.treeColumns) FROM tree ORDER BY id").map(Self.tree))
                let verdict = check(trees)
                guard verdict.allowed, let area = verdict.area else { return (verdict, nil) }
                try db.execute(sql: "INSERT INTO tree (area, species, lat, lon, planted, project) VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [area, species, c.latitude, c.longitude, planted?.nanoseconds, project])
                return (verdict, PlantedTree(id: db.lastInsertedRowID, area: area, species: species, coordinate: c, planted: planted, project: project))
            }
        }
    }
}
