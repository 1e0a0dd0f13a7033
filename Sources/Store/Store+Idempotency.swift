import Foundation
import Geo
import GRDB

/// Idempotency keys: a command carries a key (MQTT's `id`; later the web app's offline actions),
/// and a key already answered is answered again from here instead of running twice, across
/// restarts and crashes. Keys are scoped by their source (`idempotencyKey(source:id:)`: `mqtt:q1`
/// and `web:q1` are different keys). The newest `idempotencyKeep` keys stay; older ones are pruned
/// as new ones come (a key reused after that runs again).
extension Store {
    /// How many keys are kept.
    public static let idempotencyKeep = 10_000
    /// The longest id a source may give, in bytes.
    public static let maxIdempotencyID = 128

    /// The key for `id` from `source` (`mqtt`, `web`), or why the id cannot be one: 1 to
    /// `maxIdempotencyID` bytes of printable ASCII (a UUID, a counter, `q1`), so that a key is
    /// bounded, shows as it is in a log, and sorts the same everywhere.
    public static func idempotencyKey(source: String, id: String) -> Result<String, IdempotencyKeyError> {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= maxIdempotencyID else {
            return .failure(IdempotencyKeyError("\"id\" must be 1 to \(maxIdempotencyID) bytes long, not \(bytes.count)"))
        }
        guard bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            return .failure(IdempotencyKeyError("\"id\" must be printable ASCII (letters, digits, punctuation, spaces)"))
        }
        return .success(source + ":" + id)
    }

    /// The answer recorded for `key`, if it was answered.
    public func idempotentAnswer(for key: String) throws(StoreError) -> [UInt8]? {
        try wrap("reading an idempotency key") {
            try pool.read { db in try Data.fetchOne(db, sql: "SELECT answer FROM idempotency_key WHERE key = ?", arguments: [key]).map { [UInt8]($0) } }
        }
    }

    /// Records `answer` for `key` at `time` (durably: a key is not lost to a crash once this
    /// returns); a key already recorded keeps its first answer. Keeps the newest `keep` keys.
    public func record(key: String, answer: [UInt8], at time: UTCTime, keep: Int = Store.idempotencyKeep) throws(StoreError) {
        try wrap("recording an idempotency key") {
            try durably { db in try Self.record(key: key, answer: answer, at: time, keep: keep, db) }
        }
    }

    /// `record` inside a transaction the caller holds (a command's own effect and its key together).
    public static func record(key: String, answer: [UInt8], at time: UTCTime, keep: Int = Store.idempotencyKeep, _ db: Database) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO idempotency_key (key, answer, time) VALUES (?, ?, ?)",
                       arguments: [key, Data(answer), time.nanoseconds])
        try db.execute(sql: "DELETE FROM idempotency_key WHERE n <= (SELECT MAX(n) FROM idempotency_key) - ?", arguments: [keep])
    }

    /// How many keys are kept now.
    public func idempotencyKeyCount() throws(StoreError) -> Int {
        try wrap("counting idempotency keys") { try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) AS count FROM idempotency_key") ?? 0 } }
    }
}

/// Why an id cannot be an idempotency key (the client is told this).
public struct IdempotencyKeyError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
