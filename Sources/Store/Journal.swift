import Geo

/// One event as the journal keeps it: its JSON object (as `treeline replay` prints it, without
/// `class` and `seq`) and the fields subscribers filter on.
public struct JournalEntry: Sendable, Equatable {
    public var time: UTCTime
    public var type: String
    public var region: String
    public var kind: String
    /// The JSON object, `{…}`, no newline.
    public var json: [UInt8]

    public init(time: UTCTime, type: String, region: String, kind: String, json: [UInt8]) {
        self.time = time
        self.type = type
        self.region = region
        self.kind = kind
        self.json = json
    }
}

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

/// Which events a subscriber wants: nil lists mean all. Kinds are region kinds (`plant`,
/// `album`, `reforestation`), regions are ids, types are event types (`enter`, `water_due`, …).
public struct EventFilter: Sendable, Equatable {
    public var kinds: Set<String>?
    public var regions: Set<String>?
    public var types: Set<String>?

    public init(kinds: Set<String>? = nil, regions: Set<String>? = nil, types: Set<String>? = nil) {
        self.kinds = kinds
        self.regions = regions
        self.types = types
    }

    public static let all = EventFilter()

    public func matches(_ e: JournalEntry) -> Bool {
        (kinds?.contains(e.kind) ?? true) && (regions?.contains(e.region) ?? true) && (types?.contains(e.type) ?? true)
    }
}
