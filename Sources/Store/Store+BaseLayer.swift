import Dispatch
import Geo
import GRDB
import JSON
import Protocol

/// The base layer (the regions files' regions) as the journal announced it: one `base_layer`
/// record per change of the files, however many regions it touched, and a row per region it
/// added, changed or removed (`base_row`). A first start on 100,000 fences writes one event,
/// not 100,000; a restart on the same files writes nothing (the files' key is the same).
///
/// The region events a record stands for stay derivable: `page(after:filter:limit:)` follows
/// each `base_layer` record with them, a page at a time, for a subscriber asking `base_regions`.
extension Store {
    /// The key of the base layer last announced (`BaseLayerKey`), nil before the first.
    public func baseLayerKey() throws(StoreError) -> String? {
        try wrap("reading the base layer's key") {
            try pool.read { db in try String.fetchOne(db, sql: "SELECT key FROM base_layer WHERE id = 1") }
        }
    }

    /// The ids of the base layer in force, as the journal announced it.
    public func baseIDs() throws(StoreError) -> Set<String> {
        try wrap("reading the base layer's ids") {
            try pool.read { db in Set(try String.fetchAll(db, sql: "SELECT id FROM base_row WHERE to_seq IS NULL AND change != 'removed'")) }
        }
    }

    /// The base layer in force as the journal announced it, in file order.
    public func announcedBase() throws(StoreError) -> [StoredFeature] {
        try wrap("reading the base layer announced") {
            try pool.read { db in
                try Array(Row.fetchCursor(db, sql: "SELECT id, feature FROM base_row WHERE to_seq IS NULL AND change != 'removed' ORDER BY position")
                    .map(Self.storedFeature))
            }
        }
    }

    /// What one announcement says besides its rows.
    public struct BaseAnnouncement: Sendable {
        /// The files' key (`BaseLayerKey`) and their paths.
        public var key: String
        public var files: [String]
        public var time: UTCTime
        /// By id: the Feature an updated region's event shows when it is not the file's (a
        /// plant's watering as the monitor has it), and whether the monitor was inside a removed one.
        public var shown: [String: String] = [:]
        public var inside: [String: Bool] = [:]
        /// The kind of each region of the layer, in file order.
        public var kinds: [String]
        /// A removed region's kind, from its last Feature.
        public var kindOf: @Sendable (String) -> String
        /// How many regions the layer has.
        public var regions: Int { kinds.count }

        public init(key: String, files: [String], kinds: [String], time: UTCTime, kindOf: @escaping @Sendable (String) -> String) {
            self.key = key
            self.files = files
            self.kinds = kinds
            self.time = time
            self.kindOf = kindOf
        }

        /// The record's JSON: `base_layer`, its counts, its key and files.
        func entry(_ change: BaseLayerChange) -> JournalEntry {
            let json = JSONWriter.object { o in
                o.member("time", time.iso8601)
                o.member("type", "base_layer")
                o.member("region", "")
                o.member("kind", "layer")
                o.member("layer", "base")
                o.member("regions", regions)
                o.member("added", change.added.count)
                o.member("updated", change.updated.count)
                o.member("removed", change.removed.count)
                if !key.isEmpty { o.member("key", key) }
                o.member("files") { w in w.array(files) { w, f in w.value(f) } }
            }
            return JournalEntry(time: time, type: "base_layer", region: "", kind: "layer", json: json)
        }
    }

    /// The Features made at once for a deferred change: a megabyte or two of a country's.
    public static let featureStretch = 1024

    /// Writes `change` to the base layer and, when it adds, changes or removes a region,
    /// journals one `base_layer` record for it, in one transaction synced to disk: all or none.
    /// The key is kept either way (a file only reordered or reformatted needs no record).
    /// Returns the record, when there is one.
    ///
    /// `features`: for a change whose Features are deferred (`featuresDeferred`), the Features
    /// of the layer's regions at some positions, in order; asked `featureStretch` at a time, one
    /// call after another, each stretch but the first on a thread of its own while the rows of
    /// the one before are written.
    @discardableResult
    public func announceBase(_ change: BaseLayerChange, _ a: BaseAnnouncement,
                             features: @escaping @Sendable (Range<Int>) -> [String] = { _ in [] }) throws(StoreError) -> JournalEvent? {
        try wrap("saving the regions files' changes") {
            try durably { db in
                var record: JournalEvent?
                if !(change.added.isEmpty && change.updated.isEmpty && change.removed.isEmpty) {
                    record = try Self.insert(a.entry(change), db)
                }
                let seq = record?.seq ?? 0
                let t = a.time.nanoseconds
                // Statements compiled once: a first start writes 100,000 rows.
                let close = try db.cachedStatement(sql: "UPDATE base_row SET to_seq = ? WHERE id = ? AND to_seq IS NULL")
                // An id the files once had is never given to a runtime region, even once its rows
                // are pruned: the last guard, under the engine's own check.
                let use = try db.cachedStatement(sql: "INSERT OR IGNORE INTO used_id (id, layer) VALUES (?, 'base')")
                let insert = try db.cachedStatement(sql: """
                    INSERT INTO base_row (id, position, kind, change, feature, shown, inside, time, from_seq, to_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                // In file order, then the removals: the order of the record's region events. A
                // first announcement's rows are that order already (every position once, all
                // added): they are not copied, nor sorted.
                let deferred = change.featuresDeferred
                precondition(!deferred || (change.updated.isEmpty && change.removed.isEmpty && change.moved.isEmpty),
                             "a first announcement only adds")
                let rows = deferred ? [] : (change.added.map { ($0, "added") } + change.updated.map { ($0, "updated") }).sorted { $0.0.position < $1.0.position }
                let count = deferred ? change.added.count : rows.count
                var made: [String] = []
                var madeFrom = 0
                var next: FeatureStretch?
                defer { _ = next?.wait() }  // never left running past the transaction's end
                for k in 0..<count {
                    let (r, how) = deferred ? (change.added[k], "added") : rows[k]
                    let id = r.feature.id
                    var feature = r.feature.feature
                    if deferred {
                        // Rows in file order, every position once (`firstAnnouncement`).
                        if k - madeFrom >= made.count {
                            madeFrom = k
                            let stretch = k..<min(count, k + Self.featureStretch)
                            precondition(r.position == k && next.map { $0.range == stretch } ?? (k == 0), "stretches in file order")
                            made = next?.wait() ?? features(stretch)
                            precondition(made.count == stretch.count, "a Feature for every region of the stretch")
                            // The next stretch's Features are made while these rows are written: at a
                            // first start on 100,000 regions the writing, on one core, took twice
                            // as long as making them, which left the other core idle.
                            let after = stretch.upperBound..<min(count, stretch.upperBound + Self.featureStretch)
                            next = after.isEmpty ? nil : FeatureStretch(after, features)
                        }
                        feature = made[k - madeFrom]
                    }
                    if how == "updated" { try close.execute(arguments: [seq, id]) } else { try use.execute(arguments: [id]) }
                    try insert.execute(arguments: [id, r.position, a.kinds[r.position], how, feature, a.shown[id], nil, t, seq, nil])
                }
                for r in change.removed {
                    try close.execute(arguments: [seq, r.id])
                    try db.execute(sql: "DELETE FROM region_state WHERE region = ?", arguments: [r.id])
                    try insert.execute(arguments: [r.id, -1, a.kindOf(r.feature), "removed", "", nil, a.inside[r.id], t, seq, seq])
                }
                let move = try db.cachedStatement(sql: "UPDATE base_row SET position = ? WHERE id = ? AND to_seq IS NULL")
                for r in change.moved { try move.execute(arguments: [r.position, r.feature.id]) }
                try db.execute(sql: "INSERT INTO base_layer (id, key, seq) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET key = excluded.key, seq = MAX(seq, excluded.seq)",
                               arguments: [a.key, seq])
                return record
            }
        }
    }

    /// When each region was first announced: the first `region_added` of a runtime region, the
    /// first row of a base region, by id.
    public func regionsAdded() throws(StoreError) -> [String: UTCTime] {
        try wrap("reading when the regions were added") {
            try pool.read { db in
                var out: [String: UTCTime] = [:]
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT region, MIN(time) AS first_added FROM journal WHERE type = 'region_added' GROUP BY region
                    UNION ALL SELECT id, time FROM base_row WHERE change = 'added'
                    """)
                while let row = try rows.next() {
                    let id: String = row[0]
                    let t = UTCTime(nanoseconds: row[1])
                    if let known = out[id], known <= t { continue }
                    out[id] = t
                }
                return out
            }
        }
    }

    /// The region events `base_layer` record `seq` stands for, after part `after`, that
    /// `filter` lets through: at most `limit`, in order, and whether the record has more.
    func baseRegionEvents(of seq: Int64, after: Int64, filter: EventFilter, limit: Int, _ db: Database) throws -> (events: [JournalEvent], more: Bool, last: Int64) {
        var sql = "SELECT n, id, kind, change, feature, shown, inside, time FROM base_row WHERE from_seq = ? AND n > ?"
        var arguments: StatementArguments = [seq, after]
        let types = filter.types.map { Set($0.compactMap { t in t.hasPrefix("region_") ? String(t.dropFirst(7)) : nil }) }
        for condition in Self.inLists([("kind", filter.kinds), ("id", filter.regions), ("change", types)], arguments: &arguments) {
            sql += " AND \(condition)"
        }
        sql += " ORDER BY n LIMIT ?"
        _ = arguments.append(contentsOf: [limit + 1])
        var out: [JournalEvent] = []
        var last = after
        var more = false
        let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try rows.next() {
            guard out.count < limit else {
                more = true
                break
            }
            let n: Int64 = row["n"]
            let id: String = row["id"], kind: String = row["kind"], change: String = row["change"]
            let time = UTCTime(nanoseconds: row["time"])
            let entry: JournalEntry
            if change == "removed" {
                let inside: Bool? = row["inside"]
                entry = .regionRemoved(id: id, kind: kind, layer: "base", inside: inside, time: time)
            } else {
                let feature: String = (row["shown"] as String?) ?? row["feature"]
                entry = .region("region_\(change)", id: id, kind: kind, layer: "base", time: time) { $0.append(contentsOf: feature.utf8) }
            }
            out.append(JournalEvent(seq: seq, part: n, entry: entry))
            last = n
        }
        return (out, more, last)
    }
}

/// Where a reader of the journal stands: after event `seq` or, within the region events of
/// the `base_layer` record `seq`, after `part` (0: the record itself sent, none of its events).
public struct JournalCursor: Sendable, Equatable {
    public var seq: Int64
    public var part: Int64?

    public init(seq: Int64, part: Int64? = nil) {
        self.seq = seq
        self.part = part
    }
}

/// A page of the journal for a subscriber: its events, where the next page starts, and
/// whether the journal had nothing more (then the reader goes live).
public struct JournalPage: Sendable {
    public var events: [JournalEvent]
    public var next: JournalCursor
    public var atEnd: Bool
}

extension Store {
    /// Up to `limit` events after `cursor` that `filter` lets through, in order; with
    /// `filter.baseRegions`, each `base_layer` record followed by its region events (a page
    /// may end within them: `next` then has their `part`).
    public func page(after cursor: JournalCursor, filter: EventFilter = .all, limit: Int = 256) throws(StoreError) -> JournalPage {
        try wrap("reading the journal after seq \(cursor.seq)") {
            try pool.read { db in
                var out: [JournalEvent] = []
                var at = cursor
                if let part = cursor.part {
                    let r = try baseRegionEvents(of: cursor.seq, after: part, filter: filter, limit: limit, db)
                    out += r.events
                    if r.more { return JournalPage(events: out, next: JournalCursor(seq: cursor.seq, part: r.last), atEnd: false) }
                    at = JournalCursor(seq: cursor.seq)
                    // The page is full: what follows the record is the next page's.
                    if out.count >= limit { return JournalPage(events: out, next: at, atEnd: false) }
                }
                let rows = try Self.journalRows(after: at.seq, filter: filter, orBaseLayer: filter.baseRegions, limit: limit - out.count, db)
                for e in rows {
                    at = JournalCursor(seq: e.seq)
                    if e.entry.type == "base_layer" && filter.baseRegions {
                        if filter.matches(e.entry) { out.append(e) }
                        let room = limit - out.count
                        guard room > 0 else { return JournalPage(events: out, next: JournalCursor(seq: e.seq, part: 0), atEnd: false) }
                        let r = try baseRegionEvents(of: e.seq, after: 0, filter: filter, limit: room, db)
                        out += r.events
                        if r.more { return JournalPage(events: out, next: JournalCursor(seq: e.seq, part: r.last), atEnd: false) }
                    } else {
                        out.append(e)
                    }
                    if out.count >= limit { break }
                }
                return JournalPage(events: out, next: at, atEnd: rows.isEmpty)
            }
        }
    }

    /// The journal's rows after `seq` that `filter` lets through (and, with `orBaseLayer`,
    /// every `base_layer` record: its region events may pass when it does not), in order.
    static func journalRows(after seq: Int64, filter: EventFilter, orBaseLayer: Bool, limit: Int, _ db: Database) throws -> [JournalEvent] {
        guard limit > 0 else { return [] }
        var arguments: StatementArguments = [seq]
        let conditions = inLists([("kind", filter.kinds), ("region", filter.regions), ("type", filter.types)], arguments: &arguments)
        var sql = "SELECT seq, time, type, region, kind, json FROM journal WHERE seq > ?"
        if !conditions.isEmpty {
            let all = conditions.joined(separator: " AND ")
            sql += orBaseLayer ? " AND ((\(all)) OR type = 'base_layer')" : " AND \(all)"
        }
        sql += " ORDER BY seq LIMIT ?"
        _ = arguments.append(contentsOf: [limit])
        return try Array(Row.fetchCursor(db, sql: sql, arguments: arguments).map(Self.journalEvent))
    }

    /// A filter's lists as SQL: `column IN (?,…)` for each list given (nil: no condition; an
    /// empty list matches nothing), their values appended to `arguments` in the same order.
    static func inLists(_ lists: [(column: String, values: Set<String>?)], arguments: inout StatementArguments) -> [String] {
        var conditions: [String] = []
        for (column, values) in lists {
            guard let values else { continue }
            let marks = values.isEmpty ? "NULL" : Array(repeating: "?", count: values.count).joined(separator: ",")
            conditions.append("\(column) IN (\(marks))")
            for v in values.sorted() { _ = arguments.append(contentsOf: [v]) }
        }
        return conditions
    }
}

/// One stretch of a first announcement's Features, made on a thread of its own.
private final class FeatureStretch: @unchecked Sendable {
    let range: Range<Int>
    // Written once on the maker's thread before `done` is signalled; read after `wait`.
    private var made: [String]?
    private let done = DispatchSemaphore(value: 0)
    // The writer's side only: whether it has waited for `done`.
    private var taken = false

    init(_ range: Range<Int>, _ features: @escaping @Sendable (Range<Int>) -> [String]) {
        self.range = range
        DispatchQueue.global().async { [self] in
            made = features(range)
            done.signal()
        }
    }

    /// The Features, once made (waits for them; a second call returns them at once).
    func wait() -> [String] {
        if !taken {
            done.wait()
            taken = true
        }
        return made!
    }
}
