import JSON
import Protocol
import Store

extension Engine {
    /// `{"class":"JOURNAL","events":[…],"more":bool}`: the `limit` events before `before`
    /// (nil: the newest), oldest first, each as a subscriber gets it; `more` when older ones
    /// remain. Read beside the actor, from the database.
    nonisolated func journalPage(before: Int64?, limit: Int) -> Result<[UInt8], CommandError> {
        let page: (events: [JournalEvent], more: Bool)
        do { page = try store.events(before: before, limit: limit) } catch { return .failure(CommandError("cannot read the journal: \(error)")) }
        var out: [UInt8] = []
        out.reserveCapacity(64 + page.events.count * 256)
        out.append(contentsOf: #"{"class":"JOURNAL","events":["#.utf8)
        for (k, e) in page.events.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            e.appendLine(to: &out)
            out.removeLast()  // the line's newline
        }
        out.append(contentsOf: #"],"more":"#.utf8)
        out.append(contentsOf: (page.more ? "true" : "false").utf8)
        out.append(UInt8(ascii: "}"))
        return .success(out)
    }
}
