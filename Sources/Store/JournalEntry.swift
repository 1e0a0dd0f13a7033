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
