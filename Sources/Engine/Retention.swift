/// How long the daemon keeps what it records (config `journal: keep_days`, `track: keep_days`).
package struct Retention: Sendable, Equatable {
    package var journalDays: Int
    package var trackDays: Int

    package init(journalDays: Int, trackDays: Int) {
        self.journalDays = journalDays
        self.trackDays = trackDays
    }

    /// As kept with the last pruning: a change prunes at the next start or reload.
    package var settings: String { "journal \(journalDays) d, track \(trackDays) d" }
}
