import Config
import Geo
import Server
import Store
import JSON
import Protocol

/// What the bridge does with a message on a command topic (`<topic>/cmd`, `treeline/fleet/cmd`):
/// decided here, without I/O, so that it is tested on its own. The bridge runs what is let
/// through, answers on `<topic>/reply` and records the answer under the command's key.
///
/// - A retained message is never a command: the broker sends it again at every subscription
///   (every start), so a retained request that wedges the daemon would wedge every start.
/// - A command needs an `"id"` (a string or a whole number, 1 to 128 bytes of printable ASCII):
///   it is the command's idempotency key (`mqtt:<id>`), and a command whose id already ran is
///   answered again with its first answer, not run twice — across restarts too (the database).
/// - Only the commands `mqtt.commands` lists run; `subscribe` never does.
struct MQTTCommands {
    /// The commands the config allows, in its order.
    let allowed: [String]
    /// The board's topic (`<topic>/cmd`, `<topic>/reply`).
    let topic: String
    /// The topics a retained command was seen on (each is logged once).
    private(set) var retainedSeen: Set<String> = []
    /// Where the list of allowed commands comes from, for a refusal (nil: `mqtt.commands`).
    var rule: String?

    /// The scope of MQTT's ids among idempotency keys.
    static let source = "mqtt"

    init(allowed: [String], topic: String) {
        self.allowed = allowed
        self.topic = topic
    }

    /// A command let through: the request, its key, and its id for the reply.
    struct Accepted: Equatable {
        var request: Command
        var key: String
        var id: String
    }

    /// The request to run, or the reply that refuses it (with its id when it had a good one).
    func check(_ payload: [UInt8]) -> Result<Accepted, Refusal> {
        let (parsed, id) = Command.parseWithID(payload)
        guard let id else {
            if case .failure(let e) = parsed { return .failure(Refusal(id: nil, message: e.message)) }
            return .failure(Refusal(id: nil, message: "an MQTT command needs an \"id\" (a string or a whole number): it comes back with the answer, and a command whose id already ran is not run again"))
        }
        let key: String
        switch Store.idempotencyKey(source: Self.source, id: id) {
        case .success(let k): key = k
        case .failure(let e): return .failure(Refusal(id: nil, message: e.message))
        }
        let request: Command
        switch parsed {
        case .success(let r): request = r
        case .failure(let e): return .failure(Refusal(id: id, message: e.message))
        }
        let name = request.name
        guard allowed.contains(name) else {
            let list = allowed.isEmpty ? "none" : allowed.joined(separator: ", ")
            let why = name == "subscribe" ? "subscribe is the socket's (subscribe to \(topic)/events on the broker); it is" : name + " is"
            return .failure(Refusal(id: id, message: "\(why) not allowed over MQTT: \(rule ?? "mqtt.commands allows \(list)")"))
        }
        return .success(Accepted(request: request, key: key, id: id))
    }

    /// Notes a retained message on `messageTopic`; the words to log the first time for that topic.
    mutating func retained(on messageTopic: String) -> String? {
        guard retainedSeen.insert(messageTopic).inserted else { return nil }
        return "MQTT: a retained message on \(messageTopic) is not run (a retained command would run again at every start): "
            + "send commands without the retain flag, and clear it with an empty retained message (mosquitto_pub -r -n -t \(messageTopic)); "
            + "said once for this topic"
    }

    /// A refusal: the reply carries the id (null when there was no good one) and an ERROR.
    struct Refusal: Error, Equatable {
        var id: String?
        var message: String
        var reply: [UInt8] { MQTTCommands.reply(id: id, .failure(CommandError(message))) }
    }

    /// `{"id":…,` then the answer's members, or `"class":"ERROR","message":…}`.
    static func reply(id: String?, _ answer: Result<[UInt8], CommandError>) -> [UInt8] {
        JSONWriter.object { o in
            o.member("id") { w in if let id { w.value(id) } else { w.null() } }
            switch answer {
            case .success(let json):
                // The answer's own members, without its braces.
                if json.count > 2 { o.raw { $0.append(contentsOf: json.dropFirst().dropLast()) } }
            case .failure(let e):
                o.member("class", "ERROR")
                o.member("message", e.message)
            }
        }
    }
}
