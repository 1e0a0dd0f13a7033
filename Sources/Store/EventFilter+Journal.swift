import Protocol

extension EventFilter {
    /// Whether a journal entry is one the filter asks for.
    public func matches(_ e: JournalEntry) -> Bool {
        (kinds?.contains(e.kind) ?? true) && (regions?.contains(e.region) ?? true) && (types?.contains(e.type) ?? true)
    }
}
