import Geo

/// A journal entry with the sequence number it was committed under.
public struct JournalEvent: Sendable, Equatable {
    public var seq: Int64
    /// A region event derived from the `base_layer` record `seq` (`Store.page`): its place
    /// among that record's, for resuming in the middle of them. Nil for a committed event.
    public var part: Int64?
    public var entry: JournalEntry

    public init(seq: Int64, part: Int64? = nil, entry: JournalEntry) {
        self.seq = seq
        self.part = part
        self.entry = entry
    }

    /// The line a subscriber receives: `{"class":"EVENT","seq":N,…}` (with `"part":P` after
    /// the seq of a derived event) and a newline.
    public func appendLine(to out: inout [UInt8]) {
        out.append(contentsOf: #"{"class":"EVENT","seq":"#.utf8)
        out.append(contentsOf: String(seq).utf8)
        if let part {
            out.append(contentsOf: #","part":"#.utf8)
            out.append(contentsOf: String(part).utf8)
        }
        if entry.json.count > 2 {
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: entry.json.dropFirst())
        } else {
            out.append(UInt8(ascii: "}"))
        }
        out.append(0x0A)
    }
}
