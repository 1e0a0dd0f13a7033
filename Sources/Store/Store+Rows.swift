import Geo
import GRDB
import Rules

/// The store's rows made into values, each column read by its name. A SELECT that feeds one of
/// these names the columns it reads (with `AS` for an expression), or uses the list beside it.
///
/// The readers take the row a cursor is on (`Row.fetchCursor`): its columns are found through
/// the statement's index of names, and no copy of the row is made.
extension Store {
    /// A `journal` row (seq, time, type, region, kind, json).
    static func journalEvent(_ row: Row) -> JournalEvent {
        JournalEvent(seq: row["seq"], entry: JournalEntry(time: UTCTime(nanoseconds: row["time"]), type: row["type"], region: row["region"],
                                                          kind: row["kind"], json: Array((row["json"] as String).utf8)))
    }

    /// The `tree` columns `tree(_:)` reads.
    static let treeColumns = "id, area, species, lat, lon, planted, project"

    /// A `tree` row (`treeColumns`).
    static func tree(_ row: Row) -> PlantedTree {
        PlantedTree(id: row["id"], area: row["area"], species: row["species"], coordinate: Coordinate(latitude: row["lat"], longitude: row["lon"]),
                    planted: time(row, "planted"), project: row["project"])
    }

    /// The `capture` columns `capture(_:)` reads.
    static let captureColumns = "id, album, time, lat, lon, error, file, note"

    /// A `capture` row (`captureColumns`).
    static func capture(_ row: Row) -> Capture {
        Capture(id: row["id"], album: row["album"], time: UTCTime(nanoseconds: row["time"]),
                coordinate: Coordinate(latitude: row["lat"], longitude: row["lon"]), error: row["error"], file: row["file"], note: row["note"])
    }

    /// The `track` columns `trackPoint(_:)` reads.
    static let trackColumns = "time, lat, lon, error"

    /// A `track` row (`trackColumns`).
    static func trackPoint(_ row: Row) -> TrackPoint {
        TrackPoint(time: UTCTime(nanoseconds: row["time"]), coordinate: Coordinate(latitude: row["lat"], longitude: row["lon"]), error: row["error"])
    }

    /// A `user_region` or `base_region` row (id, feature).
    static func storedFeature(_ row: Row) -> StoredFeature {
        StoredFeature(id: row["id"], feature: row["feature"])
    }

    /// The `last_fix` row (time, lat, lon, error, jump_time, jump_lat, jump_lon).
    static func lastFix(_ row: Row) -> LastFix {
        var jump: PendingJump?
        if let t = row["jump_time"] as Int64?, let lat = row["jump_lat"] as Double?, let lon = row["jump_lon"] as Double? {
            jump = PendingJump(time: UTCTime(nanoseconds: t), coordinate: Coordinate(latitude: lat, longitude: lon))
        }
        return LastFix(time: UTCTime(nanoseconds: row["time"]), coordinate: Coordinate(latitude: row["lat"], longitude: row["lon"]),
                       error: row["error"], pendingJump: jump)
    }

    /// A `region_state` row's state (inside, entered_at, dwell_done, last_watered, alerted_for);
    /// its `region` is the key it is kept under.
    static func regionState(_ row: Row) -> RegionState {
        RegionState(inside: row["inside"], enteredAt: time(row, "entered_at"), dwellDone: row["dwell_done"],
                    lastWatered: time(row, "last_watered"), alertedFor: time(row, "alerted_for"))
    }

    /// A time column that may be NULL, in nanoseconds.
    static func time(_ row: Row, _ column: String) -> UTCTime? {
        (row[column] as Int64?).map(UTCTime.init(nanoseconds:))
    }
}
