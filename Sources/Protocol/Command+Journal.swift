import JSON

extension Command {
    /// `journal`'s page size: the default and the most one request may read.
    public static let journalPage = 200
    public static let journalMaxPage = 1_000

    /// `{"cmd":"journal","before":SEQ,"limit":N}`: the `limit` events before seq `before` (the
    /// newest without it), for a view that shows the last events first and pages back.
    static func journalCommand(_ cmd: String, _ o: Members) throws(CommandError) -> Command? {
        guard cmd == "journal" else { return nil }
        try Self.allowed(in: o, cmd: cmd, ["before", "limit"])
        var before: Int64?
        if let v = o["before"], !v.isNull {
            guard let n = integer(v), n >= 1 else {
                throw CommandError("\"before\" must be a whole number ≥ 1: the seq of the oldest event you hold (events before it come back)")
            }
            before = n
        }
        var limit = journalPage
        if let v = o["limit"], !v.isNull {
            guard let n = integer(v), n >= 1, n <= Int64(journalMaxPage) else {
                throw CommandError("\"limit\" must be a whole number from 1 to \(journalMaxPage): how many events to read back")
            }
            limit = Int(n)
        }
        return .journal(before: before, limit: limit)
    }
}
