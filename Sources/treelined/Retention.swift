/// How long the daemon keeps what it records (config `journal: keep_days`, `track: keep_days`).
struct Retention: Sendable, Equatable {
    var journalDays: Int
    var trackDays: Int

    /// As kept with the last pruning: a change prunes at the next start or reload.
    var settings: String { "journal \(journalDays) d, track \(trackDays) d" }
}
