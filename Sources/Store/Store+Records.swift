import Geo
import GRDB

/// Captures and the track: records the daemon keeps beside the journal.
extension Store {
    /// Records a capture; returns it with its number.
    public func recordCapture(album: String, time: UTCTime, at c: Coordinate, error: Double, file: String?, note: String?) throws(StoreError) -> Capture {
        try wrap("recording a capture") {
            try durably { db in
                try db.execute(sql: "INSERT INTO capture (album, time, lat, lon, error, file, note) VALUES (?, ?, ?, ?, ?, ?, ?)",
                               arguments: [album, time.nanoseconds, c.latitude, c.longitude, error, file, note])
                return Capture(id: db.lastInsertedRowID, album: album, time: time, coordinate: c, error: error, file: file, note: note)
            }
        }
    }

    /// The captures (of one album, or all), oldest first.
    public func captures(album: String? = nil) throws(StoreError) -> [Capture] {
        try wrap("reading the captures") {
            try pool.read { db in
                try Array(Row.fetchCursor(db, sql: "SELECT \(Self.captureColumns) FROM capture WHERE (?1 IS NULL OR album = ?1) ORDER BY id",
                                          arguments: [album]).map(Self.capture))
            }
        }
    }

    /// The track's points from `start` through `end` (nil: unbounded), in time order.
    public func track(from start: UTCTime? = nil, through end: UTCTime? = nil) throws(StoreError) -> [TrackPoint] {
        try wrap("reading the track") {
            try pool.read { db in
                try Array(Row.fetchCursor(db, sql: "SELECT \(Self.trackColumns) FROM track WHERE time >= ? AND time <= ? ORDER BY time",
                                          arguments: [start?.nanoseconds ?? .min, end?.nanoseconds ?? .max]).map(Self.trackPoint))
            }
        }
    }

    /// The track's last point, for the thinning to go on from after a restart.
    public func lastTrackPoint() throws(StoreError) -> TrackPoint? {
        try wrap("reading the track") {
            try pool.read { db in
                try Row.fetchOne(db, sql: "SELECT \(Self.trackColumns) FROM track ORDER BY time DESC LIMIT 1").map(Self.trackPoint)
            }
        }
    }
}

extension Store {
    /// The last event of `region` among `types` in the newest `within` events of the journal
    /// (a bounded look back: the journal has no index by region), nil when there is none.
    public func lastEvent(region: String, types: [String], within: Int64) throws(StoreError) -> JournalEvent? {
        try wrap("reading the last \(types.joined(separator: " or ")) of '\(region)'") {
            try pool.read { db in
                let marks = Array(repeating: "?", count: types.count).joined(separator: ",")
                var arguments: StatementArguments = [within, region]
                _ = arguments.append(contentsOf: StatementArguments(types))
                return try Row.fetchOne(db, sql: """
                    SELECT seq, time, type, region, kind, json FROM journal
                    WHERE seq > (SELECT seq FROM sqlite_sequence WHERE name = 'journal') - ? AND region = ? AND type IN (\(marks))
                    ORDER BY seq DESC LIMIT 1
                    """, arguments: arguments).map(Self.journalEvent)
            }
        }
    }
}

extension Store {
    /// How many captures were taken at `since` or later.
    public func captureCount(since: UTCTime) throws(StoreError) -> Int {
        try wrap("counting the captures") {
            try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM capture WHERE time >= ?", arguments: [since.nanoseconds]) ?? 0 }
        }
    }
}
