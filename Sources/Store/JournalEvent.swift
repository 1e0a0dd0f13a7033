import Geo

/// A journal entry with the sequence number it was committed under.
public struct JournalEvent: Sendable, Equatable {
    public var seq: Int64
    public var entry: JournalEntry

    public init(seq: Int64, entry: JournalEntry) {
        self.seq = seq
        self.entry = entry
    }

    /// The line a subscriber receives: `{"class":"EVENT","seq":N,…}` and a newline.
    public func appendLine(to out: inout [UInt8]) {
        out.append(contentsOf: #"{"class":"EVENT","seq":"#.utf8)
        out.append(contentsOf: String(seq).utf8)
        if entry.json.count > 2 {
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: entry.json.dropFirst())
        } else {
            out.append(UInt8(ascii: "}"))
        }
        out.append(0x0A)
    }
}
