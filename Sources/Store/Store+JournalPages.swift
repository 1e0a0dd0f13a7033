import GRDB

extension Store {
    /// The `limit` events before seq `before` (nil: the newest), oldest first, and whether the
    /// journal holds any before them. One indexed query (by seq, backwards), `limit` + 1 rows.
    public func events(before: Int64?, limit: Int) throws(StoreError) -> (events: [JournalEvent], more: Bool) {
        try wrap("reading the journal before seq \(before.map(String.init) ?? "the last")") {
            try pool.read { db in
                let sql = "SELECT seq, time, type, region, kind, json FROM journal WHERE seq < ? ORDER BY seq DESC LIMIT ?"
                var rows = try Array(Row.fetchCursor(db, sql: sql, arguments: [before ?? Int64.max, limit + 1]).map(Self.journalEvent))
                let more = rows.count > limit
                if more { rows.removeLast() }
                return (rows.reversed(), more)
            }
        }
    }
}
