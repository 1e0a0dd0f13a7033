import Geo
import GRDB
import Walks

/// What changed in the trails' progress since it was last saved: the run (nil: none under way)
/// and the trails completed meanwhile. Saved in the transaction of the events that changed it
/// (`commit(_:lastFix:regions:track:trails:)`), so after `kill -9` progress and events agree.
public struct TrailProgress: Sendable, Equatable {
    public var run: TrailRun?
    public var completed: [String: UTCTime]
    public init(run: TrailRun?, completed: [String: UTCTime] = [:]) {
        self.run = run
        self.completed = completed
    }
}

/// The trails as the database keeps them. Adding and removing one is a transaction with its
/// event; progress goes with the events that made it.
extension Store {
    /// The trails in the order they were added, when each was completed, and the run under way.
    public func trails() throws(StoreError) -> TrailBook {
        let rows: (definitions: [(String, String, Int64?)], run: Row?)
        rows = try wrap("reading the trails") {
            try pool.read { db in
                let d = try Row.fetchAll(db, sql: "SELECT id, definition, completed FROM trail ORDER BY position").map {
                    ($0["id"] as String, $0["definition"] as String, $0["completed"] as Int64?)
                }
                return (d, try Row.fetchOne(db, sql: "SELECT * FROM trail_run WHERE id = 1"))
            }
        }
        var trails: [Trail] = []
        var completed: [String: UTCTime] = [:]
        for (id, definition, done) in rows.definitions {
            do { trails.append(try Trail.read(json: Array(definition.utf8))) } catch {
                throw StoreError(path: path, message: "trail '\(id)' does not read back (\(error.message)): restore a backup of the database")
            }
            if let done { completed[id] = UTCTime(nanoseconds: done) }
        }
        let run = rows.run.map { r in
            TrailRun(trail: r["trail"], next: r["next"], started: UTCTime(nanoseconds: r["started"]), walked: r["walked"],
                     last: (r["last_lat"] as Double?).flatMap { lat in (r["last_lon"] as Double?).map { Coordinate(latitude: lat, longitude: $0) } },
                     outOfOrder: r["out_of_order"])
        }
        return TrailBook(trails: trails, completed: completed, run: run)
    }

    /// Adds `trail` and journals `event`, in one transaction; the event with its seq.
    public func addTrail(_ trail: Trail, event: JournalEntry) throws(StoreError) -> JournalEvent {
        try wrap("saving trail '\(trail.id)'") {
            try durably { db in
                try db.execute(sql: "INSERT INTO trail (id, position, definition) VALUES (?, (SELECT COALESCE(MAX(position), 0) + 1 FROM trail), ?)",
                               arguments: [trail.id, String(decoding: trail.json, as: UTF8.self)])
                return try Self.insert(event, db)
            }
        }
    }

    /// Removes trail `id` and journals `event`, in one transaction.
    public func removeTrail(_ id: String, event: JournalEntry) throws(StoreError) -> JournalEvent {
        try wrap("removing trail '\(id)'") {
            try durably { db in
                try db.execute(sql: "DELETE FROM trail WHERE id = ?", arguments: [id])
                return try Self.insert(event, db)
            }
        }
    }

    /// Writes the trails' progress inside the caller's transaction.
    static func save(_ p: TrailProgress, _ db: Database) throws {
        if let r = p.run {
            try db.execute(sql: """
                INSERT OR REPLACE INTO trail_run (id, trail, next, started, walked, last_lat, last_lon, out_of_order)
                VALUES (1, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [r.trail, r.next, r.started.nanoseconds, r.walked, r.last?.latitude, r.last?.longitude, r.outOfOrder])
        } else {
            try db.execute(sql: "DELETE FROM trail_run")
        }
        for (id, t) in p.completed.sorted(by: { $0.key < $1.key }) {
            try db.execute(sql: "UPDATE trail SET completed = ? WHERE id = ?", arguments: [t.nanoseconds, id])
        }
    }
}
