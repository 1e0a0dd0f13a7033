import Geo
import JSON

/// What a subscriber asks for: the journal's events after `since` (nil: from now on) that pass
/// `filter`, then live ones. `timing` adds the daemon's monotonic receive time of the fix
/// (`received_ns`) to live events; `positions` adds a `POSITION` line for each fix the monitor
/// uses (live only, never journaled, and dropped rather than queued for a reader who is behind:
/// the next one says more).
public struct Subscribe: Equatable, Sendable {
    public var filter: EventFilter
    public var since: Int64?
    /// With `since` and `base_regions`: resume after this part of the `base_layer` record
    /// `since` (its derived events' `part`; 0: the record itself, none of its events), rather
    /// than after the whole record.
    public var part: Int64?
    public var timing: Bool
    public var positions: Bool
    /// The name of the journal `since` counts in (STATE's and SUBSCRIBED's `journal`): the
    /// subscription is refused if the board's journal is another one (its database replaced),
    /// whatever its seqs. Nil: not checked.
    public var journal: String?

    /// The longest name `journal` may give (the board's are 32 hex digits).
    public static let journalNameBytes = 64

    /// Whether `name` can be a journal's name: 1 to `journalNameBytes` bytes.
    public static func isJournalName(_ name: String) -> Bool { (1...journalNameBytes).contains(name.utf8.count) }

    public init(filter: EventFilter = .all, since: Int64? = nil, part: Int64? = nil, timing: Bool = false, positions: Bool = false,
                journal: String? = nil) {
        self.filter = filter
        self.since = since
        self.part = part
        self.timing = timing
        self.positions = positions
        self.journal = journal
    }
}

// The checks and lines every transport's subscription shares, written once.
extension Subscribe {
    /// Region ids are checked against the regions in force: an unknown one would match
    /// nothing, and the subscriber would wait for ever.
    package static func unknownRegions(_ wanted: Set<String>, inForce ids: Set<String>) -> String? {
        let unknown = wanted.subtracting(ids).sorted()
        guard let first = unknown.first else { return nil }
        let more = unknown.count > 1 ? " (and \(unknown.count - 1) more)" : ""
        return "\"regions\": no region '\(TextExcerpt.short(first))'\(more) is in force: {\"cmd\":\"regions\"} (treeline state --regions) lists their ids"
    }

    package static func sinceProblem(_ since: Int64?, last: Int64) -> String? {
        guard let since, since > last else { return nil }
        return "since \(since) is after the last event, \(last): this journal is not the one you read before; subscribe with since 0 to read it from the start"
    }

    /// The refusal of a subscription that names another journal than the board's (`journal`),
    /// or asks for seqs past its last: the same words for both, which a page acts on alike.
    package static func resumeProblem(_ s: Subscribe, last: Int64, journal: String) -> String? {
        if let asked = s.journal, asked != journal {
            return "journal \(TextExcerpt.short(asked)) is not this board's, \(journal): this journal is not the one you read before (its database was replaced); subscribe with since 0 and journal \(journal) to read it from the start"
        }
        return sinceProblem(s.since, last: last)
    }

    /// Said first when some of what was asked for is gone; what remains follows.
    package static func prunedLine(since: Int64?, pruned: Int64) -> [UInt8]? {
        guard let since, since < pruned else { return nil }
        return JSONWriter.object { o in
            o.member("class", "ERROR")
            o.member("pruned_through", pruned)
            o.member("message", "the journal's events up to seq \(pruned) were pruned (journal: keep_days), except the region events of regions in force; the events after \(since) that remain follow")
        }
    }

    package static func subscribedLine(since: Int64, journal: String) -> [UInt8] {
        JSONWriter.object { o in
            o.member("class", "SUBSCRIBED")
            o.member("since", since)
            o.member("journal", journal)
        }
    }

    package static func laggedLine(seq: Int64) -> [UInt8] {
        Array(#"{"class":"ERROR","lagged":true,"seq":\#(seq),"message":"you were not reading: resubscribe with since \#(seq)"}"#.utf8)
    }
}
