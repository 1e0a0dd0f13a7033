import Geo
import GRDB

/// Retention: old events and track points go, and the journal remembers up to which seq it
/// pruned, so that a subscriber asking for older events is told.
extension Store {
    /// The highest seq pruned (0: none), when the last pruning ran and with what settings.
    public func retention() throws(StoreError) -> (prunedThrough: Int64, prunedAt: UTCTime?, settings: String?) {
        try wrap("reading the retention state") {
            try pool.read { db in
                guard let r = try Row.fetchOne(db, sql: "SELECT pruned_through, pruned_at, settings FROM retention WHERE id = 1") else { return (0, nil, nil) }
                return (r["pruned_through"], UTCTime(nanoseconds: r["pruned_at"]), r["settings"])
            }
        }
    }

    /// Deletes the events older than `journalBefore` and the track points older than
    /// `trackBefore`, at `now`, in one transaction. The region events of regions still in force
    /// (`keeping`) stay, so that the journal always rebuilds the region list. Returns the highest
    /// seq deleted so far (`pruned_through`), and how many events and points went. `settings`
    /// is kept with the time, to tell a changed retention from the last one.
    @discardableResult
    public func prune(journalBefore: UTCTime, trackBefore: UTCTime, keeping regions: Set<String>,
                      now: UTCTime, settings: String = "", notAfter limit: Int64 = .max) throws(StoreError) -> (prunedThrough: Int64, events: Int, points: Int) {
        try wrap("pruning the journal and the track") {
            try pool.write { db in
                let previous = try Int64.fetchOne(db, sql: "SELECT pruned_through FROM retention WHERE id = 1") ?? 0
                var highest: Int64 = 0
                var events = 0
                // Nothing old enough: the regions in force (100,000 ids) need not be listed.
                let old = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM journal WHERE time < ? AND seq <= \(limit))",
                                            arguments: [journalBefore.nanoseconds]) ?? false
                if old {
                    try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS keep_region (id TEXT PRIMARY KEY)")
                    try db.execute(sql: "DELETE FROM keep_region")
                    // Compiled once: a country's layer is 100,000 ids.
                    let keep = try db.cachedStatement(sql: "INSERT INTO keep_region (id) VALUES (?)")
                    for id in regions { try keep.execute(arguments: [id]) }
                    // A `base_layer` record whose rows are in force stays too; the rows of the records
                    // that go (what they replaced or removed) go with them.
                    let doomed = """
                        FROM journal WHERE time < ? AND seq <= \(limit) AND NOT (type LIKE 'region\\_%' ESCAPE '\\' AND region IN (SELECT id FROM keep_region))
                          AND NOT (type = 'base_layer' AND seq IN (SELECT from_seq FROM base_row WHERE to_seq IS NULL))
                        """
                    highest = try Int64.fetchOne(db, sql: "SELECT MAX(seq) AS highest \(doomed)", arguments: [journalBefore.nanoseconds]) ?? 0
                    try db.execute(sql: "DELETE \(doomed)", arguments: [journalBefore.nanoseconds])
                    events = db.changesCount
                    // A closed row goes with its own record, and with the record that closed it:
                    // read from seq 0, a region whose removal was pruned is not announced either
                    // (as the region events of a region no longer in force went).
                    try db.execute(sql: """
                        DELETE FROM base_row WHERE to_seq IS NOT NULL
                          AND (NOT EXISTS (SELECT 1 FROM journal j WHERE j.seq = base_row.from_seq)
                               OR NOT EXISTS (SELECT 1 FROM journal j WHERE j.seq = base_row.to_seq))
                        """)
                }
                try db.execute(sql: "DELETE FROM track WHERE time < ?", arguments: [trackBefore.nanoseconds])
                let points = db.changesCount
                let through = max(previous, highest)
                try db.execute(sql: """
                    INSERT INTO retention (id, pruned_through, pruned_at, settings) VALUES (1, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET pruned_through = excluded.pruned_through, pruned_at = excluded.pruned_at,
                      settings = excluded.settings
                    """, arguments: [through, now.nanoseconds, settings])
                return (through, events, points)
            }
        }
    }
}
