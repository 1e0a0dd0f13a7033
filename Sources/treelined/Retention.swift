/// How long the daemon keeps what it records (config `journal: keep_days`, `track: keep_days`).
struct Retention: Sendable, Equatable {
    var journalDays: Int
    var trackDays: Int
}
