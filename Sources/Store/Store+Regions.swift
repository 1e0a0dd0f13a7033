import Geo
import GRDB
import Rules

/// The two layers of regions as the database keeps them. Each change goes in one transaction
/// with the event that announces it, synced before it returns: after `kill -9` either both are
/// there or neither.
extension Store {
    /// The user layer, in the order the regions were added.
    public func userRegions() throws(StoreError) -> [StoredFeature] {
        try wrap("reading the user layer") {
            try pool.read { db in
                try Array(Row.fetchCursor(db, sql: "SELECT id, feature FROM user_region ORDER BY position").map(Self.storedFeature))
            }
        }
    }

    /// Every id used but those of the base layer's regions in force: an engine knows those from
    /// its files (100,000 of them are 6 MB held for nothing), and learns of each removal.
    public func usedIDsBesideTheBaseLayer() throws(StoreError) -> Set<String> {
        try wrap("reading the ids used") {
            try pool.read { db in
                Set(try String.fetchAll(db, sql: "SELECT id FROM used_id WHERE layer != 'base' OR id NOT IN (SELECT id FROM base_row WHERE to_seq IS NULL)"))
            }
        }
    }

    /// Every id a layer ever had (both when `layer` is nil), removed ones too.
    public func usedIDs(layer: String? = nil) throws(StoreError) -> Set<String> {
        try wrap("reading the ids used") {
            try pool.read { db in Set(try String.fetchAll(db, sql: "SELECT id FROM used_id WHERE ?1 IS NULL OR layer = ?1", arguments: [layer])) }
        }
    }

    /// Runs `body` in one write transaction synced to disk before it returns (an answered change
    /// survives a power cut, not only a crash).
    func durably<T>(_ body: (Database) throws -> T) throws -> T {
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            var result: T?
            try db.inTransaction(.immediate) {
                result = try body(db)
                return .commit
            }
            return result!
        }
    }

    /// Applies `change` to the user layer and journals `event`, in one transaction; returns the
    /// event with its seq. Adding an id used before fails (the caller checks first: this is the
    /// last guard). A removed region's monitor state goes with it. `state`, when given, is the
    /// region's monitor state written in the same transaction (a keeper's correction of its
    /// watering).
    public func apply(_ change: RegionChange, event: JournalEntry, state: RegionState? = nil) throws(StoreError) -> JournalEvent {
        try apply([(change, event, state)])[0]
    }

    /// Several changes, each with its event, all in one transaction: all or none. `fleet`: the
    /// regions come from the fleet's collection, whose ids may come back (recorded as such).
    public func apply(_ changes: [(change: RegionChange, event: JournalEntry, state: RegionState?)], fleet: Bool = false) throws(StoreError) -> [JournalEvent] {
        try wrap("saving the change to region '\(changes.first?.change.id ?? "")'\(changes.count > 1 ? " and \(changes.count - 1) more" : "")") {
            try durably { db in
                var committed: [JournalEvent] = []
                for (change, event, state) in changes {
                    switch change {
                    case let .add(id, feature):
                        if fleet {
                            try db.execute(sql: "INSERT OR IGNORE INTO used_id (id, layer) VALUES (?, 'fleet')", arguments: [id])
                        } else {
                            try db.execute(sql: "INSERT INTO used_id (id, layer) VALUES (?, 'user')", arguments: [id])
                        }
                        try db.execute(sql: "INSERT INTO user_region (id, position, feature) VALUES (?, (SELECT COALESCE(MAX(position), 0) + 1 FROM user_region), ?)",
                                       arguments: [id, feature])
                    case let .restore(id, feature):
                        guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM used_id WHERE id = ? AND layer = 'user'", arguments: [id]) == 1 else {
                            throw StoreError(path: path, message: "'\(id)' was never a region of the user layer: nothing to restore")
                        }
                        try db.execute(sql: "INSERT INTO user_region (id, position, feature) VALUES (?, (SELECT COALESCE(MAX(position), 0) + 1 FROM user_region), ?)",
                                       arguments: [id, feature])
                    case let .update(id, feature):
                        try db.execute(sql: "UPDATE user_region SET feature = ? WHERE id = ?", arguments: [feature, id])
                        guard db.changesCount == 1 else { throw StoreError(path: path, message: "no region '\(id)' in the user layer") }
                    case let .remove(id):
                        try db.execute(sql: "DELETE FROM user_region WHERE id = ?", arguments: [id])
                        guard db.changesCount == 1 else { throw StoreError(path: path, message: "no region '\(id)' in the user layer") }
                        try db.execute(sql: "DELETE FROM region_state WHERE region = ?", arguments: [id])
                    }
                    if let state { try Self.save(state, of: change.id, db) }
                    committed.append(try Self.insert(event, db))
                }
                return committed
            }
        }
    }

    /// Inserts one journal entry; its seq.
    static func insert(_ e: JournalEntry, _ db: Database) throws -> JournalEvent {
        try db.execute(sql: "INSERT INTO journal (time, type, region, kind, json) VALUES (?, ?, ?, ?, ?)",
                       arguments: [e.time.nanoseconds, e.type, e.region, e.kind, String(decoding: e.json, as: UTF8.self)])
        return JournalEvent(seq: db.lastInsertedRowID, entry: e)
    }
}
