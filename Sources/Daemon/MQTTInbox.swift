import MQTT

/// The messages libmosquitto's thread hands the bridge's loop, each kind bounded on its own, so
/// that no flood of one kind crowds out another (a crew location never costs a command its
/// place) and nothing waits without bound, in count or in bytes:
///
/// - **Crew locations** (`owntracks/…`): the latest per topic, at most `maxCrewTopics` topics;
///   a payload over `CrewBook.maxPayload` or a topic over `maxTopicBytes` is dropped here.
/// - **Discovery configs** retained under the board's node: only their topics (the loop clears
///   those it no longer wants); the board's own echoes (not retained) and cleared ones are not
///   kept. At most `maxConfigTopics`.
/// - **The rest** (commands, the fleet's regions, HA's status), in order: at most `maxMessages`,
///   and `maxBytes` in all. A command over `maxCommandBytes` and a fleet collection over its
///   limit are kept as their size only, to be refused with it; the fleet's regions keep only the
///   latest waiting.
///
/// What is dropped is counted, and the loop says so.
struct MQTTInbox {
    struct Message: Equatable {
        var topic: String
        var payload: [UInt8]
        var retained: Bool
        /// The payload's size when it was too large to keep (the payload is then empty).
        var oversized: Int?
    }

    /// What a topic is to the inbox.
    enum Kind {
        case crew
        case config
        /// Only the latest waiting counts (the fleet's retained regions), up to `limit` bytes.
        case latest(limit: Int)
        case other
    }

    static let maxMessages = 256
    /// A command's JSON: a region of many holes is some hundreds of KiB.
    static let maxCommandBytes = 1 << 20
    /// What the commands and the fleet's regions waiting hold in all (a fleet collection is at
    /// most 8 MiB).
    static let maxBytes = 16 << 20
    static let maxCrewTopics = 400
    static let maxConfigTopics = 10_000
    static let maxTopicBytes = 512

    private(set) var messages: [Message] = []
    private(set) var crew: [String: [UInt8]] = [:]
    private(set) var configs: Set<String> = []
    private(set) var dropped = 0
    private(set) var bytes = 0

    mutating func take(_ topic: String, _ payload: [UInt8], retained: Bool, kind: Kind) {
        guard topic.utf8.count <= Self.maxTopicBytes else { dropped += 1; return }
        switch kind {
        case .crew:
            guard payload.count <= CrewBook.maxPayload, crew[topic] != nil || crew.count < Self.maxCrewTopics else { dropped += 1; return }
            crew[topic] = payload
        case .config:
            // The board's own configs come back live (not retained): nothing to do with them.
            guard retained else { return }
            if payload.isEmpty { configs.remove(topic) } else if configs.count < Self.maxConfigTopics { configs.insert(topic) } else { dropped += 1 }
        case .latest(let limit):
            let m = Message(topic: topic, payload: payload.count > limit ? [] : payload, retained: retained, oversized: payload.count > limit ? payload.count : nil)
            if let k = messages.firstIndex(where: { $0.topic == topic }) {
                bytes -= messages[k].payload.count
                messages[k] = m
                bytes += m.payload.count
            } else {
                append(m)
            }
        case .other:
            let big = payload.count > Self.maxCommandBytes
            append(Message(topic: topic, payload: big ? [] : payload, retained: retained, oversized: big ? payload.count : nil))
        }
    }

    private mutating func append(_ m: Message) {
        guard messages.count < Self.maxMessages, bytes + m.payload.count <= Self.maxBytes else { dropped += 1; return }
        messages.append(m)
        bytes += m.payload.count
    }

    /// Everything waiting, and the count dropped since the last look; empties the inbox.
    mutating func drain() -> (messages: [Message], crew: [String: [UInt8]], configs: Set<String>, dropped: Int) {
        defer { self = MQTTInbox() }
        return (messages, crew, configs, dropped)
    }
}
