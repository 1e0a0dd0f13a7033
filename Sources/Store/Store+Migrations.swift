import GRDB
import Protocol

/// The database's schema: `migrator` registers the migrations in order, each version's in a
/// function of its own.
extension Store {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1", migrate: createJournalAndState)
        m.registerMigration("v2: trees", migrate: createTrees)
        m.registerMigration("v3: live regions, records, track", migrate: createLayersAndRecords)
        m.registerMigration("v4: mqtt", migrate: createMQTTProgress)
        m.registerMigration("v5: idempotency keys", migrate: createIdempotencyKeys)
        m.registerMigration("v6: trails", migrate: createTrails)
        m.registerMigration("v7: the base layer in one record", migrate: createBaseLayerHistory)
        m.registerMigration("v8: the journal's name", migrate: createJournalName)
        return m
    }

    /// Migration "v1": the journal, the monitor's state per region, and the last fix.
    static func createJournalAndState(_ db: Database) throws {
        // AUTOINCREMENT: a seq is never given twice, even once its row is gone.
        try db.execute(sql: """
            CREATE TABLE journal (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                time INTEGER NOT NULL,
                type TEXT NOT NULL,
                region TEXT NOT NULL,
                kind TEXT NOT NULL,
                json TEXT NOT NULL
            );
            CREATE TABLE region_state (
                region TEXT PRIMARY KEY,
                inside INTEGER NOT NULL,
                entered_at INTEGER,
                dwell_done INTEGER NOT NULL,
                last_watered INTEGER,
                alerted_for INTEGER
            ) WITHOUT ROWID;
            CREATE TABLE last_fix (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                time INTEGER NOT NULL,
                lat REAL NOT NULL,
                lon REAL NOT NULL,
                error REAL NOT NULL,
                jump_time INTEGER,
                jump_lat REAL,
                jump_lon REAL
            );
            """)
    }

    /// Migration "v2: trees": the trees planted.
    static func createTrees(_ db: Database) throws {
        // Trees planted (`treeline plant`, the socket's `plant`): numbered, never renumbered.
        try db.execute(sql: """
            CREATE TABLE tree (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                area TEXT NOT NULL,
                species TEXT NOT NULL,
                lat REAL NOT NULL,
                lon REAL NOT NULL,
                planted INTEGER
            );
            CREATE INDEX tree_area ON tree(area);
            """)
    }

    /// Migration "v3: live regions, records, track": the regions' two layers, the ids ever used,
    /// captures, the track and the retention state.
    static func createLayersAndRecords(_ db: Database) throws {
        // The user layer: regions added at runtime, each kept as the GeoJSON Feature that
        // `Region.appendFeature` writes (what a regions file would hold), in the order added.
        // `used_id`: every id the user layer ever had, so that a removed id is never given
        // again. `base_region`: the files' regions as the journal last announced them, to
        // tell what a restart or a reload added, changed or removed.
        try db.execute(sql: """
            CREATE TABLE user_region (
                id TEXT PRIMARY KEY,
                position INTEGER NOT NULL,
                feature TEXT NOT NULL
            );
            CREATE TABLE used_id (id TEXT PRIMARY KEY, layer TEXT NOT NULL) WITHOUT ROWID;
            CREATE TABLE base_region (id TEXT PRIMARY KEY, position INTEGER NOT NULL, feature TEXT NOT NULL) WITHOUT ROWID;
            ALTER TABLE tree ADD COLUMN project TEXT;
            CREATE TABLE capture (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                album TEXT NOT NULL,
                time INTEGER NOT NULL,
                lat REAL NOT NULL,
                lon REAL NOT NULL,
                error REAL NOT NULL,
                file TEXT,
                note TEXT
            );
            CREATE INDEX capture_album ON capture(album);
            CREATE TABLE track (
                time INTEGER PRIMARY KEY,
                lat REAL NOT NULL,
                lon REAL NOT NULL,
                error REAL NOT NULL
            );
            CREATE INDEX journal_time ON journal(time);
            CREATE TABLE retention (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                pruned_through INTEGER NOT NULL,
                pruned_at INTEGER NOT NULL,
                settings TEXT NOT NULL
            );
            """)
    }

    /// Migration "v4: mqtt": the MQTT bridge's progress.
    static func createMQTTProgress(_ db: Database) throws {
        // The last seq the MQTT broker acknowledged (PUBACK): publishing resumes after it. And
        // the last seq whose OwnTracks transition went out (transitions are not repeated).
        try db.execute(sql: "CREATE TABLE mqtt_ack (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, transitions INTEGER NOT NULL)")
    }

    /// Migration "v5: idempotency keys": commands' idempotency keys and their answers.
    static func createIdempotencyKeys(_ db: Database) throws {
        // A command's key (scoped by its source: `mqtt:…`) and the answer it got, so that the
        // same key is answered again and not run twice (`Store+Idempotency`). `n` orders them
        // for pruning (the newest `idempotencyKeep` stay).
        try db.execute(sql: """
            CREATE TABLE idempotency_key (
                n INTEGER PRIMARY KEY AUTOINCREMENT,
                key TEXT NOT NULL UNIQUE,
                answer BLOB NOT NULL,
                time INTEGER NOT NULL
            );
            """)
    }

    /// Migration "v6: trails": the trails defined, when each was last completed, and the one
    /// under way.
    static func createTrails(_ db: Database) throws {
        // `definition` is the trail's JSON (`Trail.json`), read back with `Trail.read(json:)`.
        // `trail_run` holds at most one row: the trail under way, written in the transaction of
        // the events that moved it.
        try db.execute(sql: """
            CREATE TABLE trail (
                id TEXT PRIMARY KEY,
                position INTEGER NOT NULL,
                definition TEXT NOT NULL,
                completed INTEGER
            ) WITHOUT ROWID;
            CREATE TABLE trail_run (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                trail TEXT NOT NULL,
                next INTEGER NOT NULL,
                started INTEGER NOT NULL,
                walked REAL NOT NULL,
                last_lat REAL,
                last_lon REAL,
                out_of_order INTEGER NOT NULL
            );
            """)
    }

    /// Migration "v7: the base layer in one record": the regions files' regions as each
    /// `base_layer` record announced them, instead of a `region_added` event per region.
    static func createBaseLayerHistory(_ db: Database) throws {
        // `base_row`: a row per region a `base_layer` record (`from_seq`) added, changed or
        // removed (`change`), in file order; `to_seq` is the record that replaced or removed it
        // (NULL: in force). A removal is a row of its own (its `inside`: whether the monitor was
        // inside). The rows of one record, in rowid order, are the region events a subscriber
        // asking for `base_regions` gets from it. `feature` is the file's Feature; `shown`, when
        // not NULL, the one the event showed (a plant's watering as the monitor had it).
        // `base_layer`: the key (the files' hash) of the layer last announced, and its record.
        // The rows of a database from before are the layer in force, announced by their own
        // `region_added` events (still in the journal): they belong to no record (`from_seq` -1).
        try db.execute(sql: """
            CREATE TABLE base_row (
                n INTEGER PRIMARY KEY,
                id TEXT NOT NULL,
                position INTEGER NOT NULL,
                kind TEXT NOT NULL,
                change TEXT NOT NULL,
                feature TEXT NOT NULL,
                shown TEXT,
                inside INTEGER,
                time INTEGER NOT NULL,
                from_seq INTEGER NOT NULL,
                to_seq INTEGER
            );
            CREATE UNIQUE INDEX base_row_in_force ON base_row(id) WHERE to_seq IS NULL;
            CREATE INDEX base_row_from ON base_row(from_seq);
            CREATE TABLE base_layer (id INTEGER PRIMARY KEY CHECK (id = 1), key TEXT NOT NULL, seq INTEGER NOT NULL);
            INSERT INTO base_row (id, position, kind, change, feature, time, from_seq)
              SELECT b.id, b.position, COALESCE((SELECT kind FROM journal WHERE type = 'region_added' AND region = b.id ORDER BY seq LIMIT 1), ''),
                     'added', b.feature, COALESCE((SELECT MIN(time) FROM journal WHERE type = 'region_added' AND region = b.id), 0), -1
              FROM base_region b ORDER BY b.position;
            DROP TABLE base_region;
            """)
    }

    /// Migration "v8": the journal's name, 32 random hex digits given once, when the database is
    /// made (or first opened by a treelined that names journals). A page or subscriber that
    /// read a journal tells by its name that the board's database was replaced, whatever its seqs.
    static func createJournalName(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE journal_name (id INTEGER PRIMARY KEY CHECK (id = 1), name TEXT NOT NULL);
            INSERT INTO journal_name (id, name) VALUES (1, ?);
            """, arguments: [newJournalName()])
    }

    /// A journal's name: 128 random bits as 32 lowercase hex digits.
    static func newJournalName() -> String {
        var random = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let digits = String(random.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    /// The journal's name; a new one if the row is gone or unusable (a database edited by
    /// hand), so that every client is always told one it can send back.
    static func journalName(_ pool: DatabasePool) throws -> String {
        let stored = try pool.read { db in try String.fetchOne(db, sql: "SELECT name FROM journal_name WHERE id = 1") }
        if let stored, Subscribe.isJournalName(stored) { return stored }
        let name = newJournalName()
        try pool.write { db in try db.execute(sql: "INSERT OR REPLACE INTO journal_name (id, name) VALUES (1, ?)", arguments: [name]) }
        return name
    }
}
