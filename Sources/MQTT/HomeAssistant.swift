import Geo
import JSON

/// Home Assistant's MQTT discovery for a board: retained configs under
/// `<prefix>/<component>/<node>/<object>/config`, one device per board, every entity available
/// while `<topic>/status` is `online`. Pure: each function writes one payload; the bridge
/// decides when, and clears a config (an empty retained payload) when its region is gone.
///
/// The entities: a `device_tracker` (`<topic>/location`'s JSON attributes: latitude,
/// longitude, gps_accuracy, altitude, speed, course, fix), sensors (the last event; plants due,
/// captures today and the fix's age from `<topic>/sensors`), a `binary_sensor` per region of
/// the kinds asked for (inside or not, from `<topic>/location`'s `inside`), and a `button` per
/// plant that waters it (`<topic>/cmd`) when the board takes `water` from the broker.
///
/// Region ids and names come from files, the fleet and commands. A name only ever goes into a
/// JSON string; an id goes into a template too, so a region whose id is not plain text
/// (`templateSafe`) gets no entity, and the bridge says so.
public enum HomeAssistant {
    /// Who the board is to Home Assistant.
    public struct Board: Sendable, Equatable {
        /// The board's client id: its device's name and the node id's source.
        public var clientID: String
        /// The board's topic (`treeline/<client id>` by default).
        public var topic: String
        /// The discovery prefix (Home Assistant's default `homeassistant`).
        public var prefix: String
        public var version: String

        public init(clientID: String, topic: String, prefix: String, version: String) {
            self.clientID = clientID
            self.topic = topic
            self.prefix = prefix
            self.version = version
        }

        /// The node id: the client id when it is letters, digits, `_` and `-` only; else with
        /// anything else made `_` and its hash after `--`, so that `board.7` and `board_7` are two
        /// nodes.
        public var node: String {
            let safe = HomeAssistant.topicSafe(clientID)
            return safe == clientID ? safe : safe + "--" + HomeAssistant.hash(clientID)
        }
    }

    /// One entity's config, and where it goes.
    public struct Entity: Sendable, Equatable {
        public var topic: String
        public var config: [UInt8]
    }

    /// A region for an entity: its id, name and kind.
    public struct RegionRef: Sendable, Equatable {
        public var id: String
        public var name: String
        public var kind: String
        public init(id: String, name: String, kind: String) {
            self.id = id
            self.name = name
            self.kind = kind
        }
    }

    /// An id that may go into a template and a JSON string as it is: 1 to 64 of letters,
    /// digits, `-`, `_`, `.`, `:` and spaces.
    public static func templateSafe(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F || b == 0x2E || b == 0x3A || b == 0x20
        }
    }

    /// Letters, digits, `_` and `-` kept; anything else `_`.
    public static func topicSafe(_ s: String) -> String {
        String(decoding: s.utf8.map { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F ? b : 0x5F
        }, as: UTF8.self)
    }

    /// A region's object id: `<prefix>_<id>` when the id is letters, digits, `_` and `-` only;
    /// else `<prefix>-h_<topicSafe(id)>_<hash>`, which no plain id can make (so that `a.b`,
    /// `a:b` and a plain id spelled like the first's object id stay three entities).
    public static func objectID(_ prefix: String, _ id: String) -> String {
        let safe = topicSafe(id)
        return safe == id ? prefix + "_" + safe : prefix + "-h_" + safe + "_" + hash(id)
    }

    /// 32-bit FNV-1a, hex.
    static func hash(_ s: String) -> String {
        var h: UInt32 = 2_166_136_261
        for b in s.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        return String(h, radix: 16)
    }

    /// The config topic of an entity.
    public static func configTopic(_ board: Board, _ component: String, _ object: String) -> String {
        "\(board.prefix)/\(component)/\(board.node)/\(object)/config"
    }

    /// The entities every board has: the tracker and four sensors.
    public static func boardEntities(_ board: Board) -> [Entity] {
        let t = board.topic
        return [
            entity(board, "device_tracker", "tracker", name: nil) { o in
                o.member("json_attributes_topic", t + "/location")
                o.member("source_type", "gps")
                o.member("icon", "mdi:pine-tree")
            },
            entity(board, "sensor", "last_event", name: "Last event") { o in
                o.member("state_topic", t + "/events")
                o.member("value_template", "{{ value_json.type }}")
                o.member("json_attributes_topic", t + "/events")
                // Only the fields every client wants: a region's Feature can be large.
                o.member("json_attributes_template", "{{ dict(seq=value_json.get('seq'), type=value_json.get('type'), time=value_json.get('time'), region=value_json.get('region'), kind=value_json.get('kind'), name=value_json.get('name')) | tojson }}")
                o.member("icon", "mdi:bell-ring-outline")
            },
            count(board, "plants_due", name: "Plants due", icon: "mdi:watering-can"),
            count(board, "captures_today", name: "Captures today", icon: "mdi:camera"),
            entity(board, "sensor", "fix_age", name: "Fix age") { o in
                o.member("state_topic", t + "/sensors")
                o.member("value_template", "{{ value_json.fix_age_s }}")
                o.member("unit_of_measurement", "s")
                o.member("device_class", "duration")
                o.member("state_class", "measurement")
                o.member("icon", "mdi:crosshairs-gps")
            },
        ]
    }

    /// A sensor that reads a count from `<topic>/sensors`.
    static func count(_ board: Board, _ field: String, name: String, icon: String) -> Entity {
        entity(board, "sensor", field, name: name) { o in
            o.member("state_topic", board.topic + "/sensors")
            o.member("value_template", "{{ value_json.\(field) }}")
            o.member("state_class", "measurement")
            o.member("icon", icon)
        }
    }

    /// A `binary_sensor` that is on while the board is inside `region`; nil for an id that is
    /// not `templateSafe`.
    public static func inside(_ board: Board, _ region: RegionRef) -> Entity? {
        guard templateSafe(region.id) else { return nil }
        return entity(board, "binary_sensor", objectID("inside", region.id), name: "Inside \(region.name)") { o in
            o.member("state_topic", board.topic + "/location")
            o.member("value_template", "{{ 'ON' if '\(region.id)' in value_json.get('inside', []) else 'OFF' }}")
            o.member("device_class", "presence")
            o.member("icon", region.kind == "album" ? "mdi:image-area" : "mdi:forest")
        }
    }

    /// A `button` that waters `plant` once per press (each press its own command id); nil for
    /// an id that is not `templateSafe`.
    public static func water(_ board: Board, _ plant: RegionRef) -> Entity? {
        guard templateSafe(plant.id) else { return nil }
        return entity(board, "button", objectID("water", plant.id), name: "Water \(plant.name)") { o in
            o.member("command_topic", board.topic + "/ha")
            o.member("command_template", #"{"id":"ha-{{ (as_timestamp(now()) * 1000) | int }}","cmd":"water","plant":"\#(plant.id)"}"#)
            o.member("icon", "mdi:watering-can-outline")
        }
    }

    /// One config: the device, availability, a unique id, a name (nil: the device's own), and
    /// what the component needs.
    static func entity(_ board: Board, _ component: String, _ object: String, name: String?, _ body: (inout JSONWriter) -> Void) -> Entity {
        let config = JSONWriter.object { o in
            if let name { o.member("name", name) } else { o.member("name") { $0.null() } }
            o.member("unique_id", "treeline_\(board.clientID)_\(object)")
            o.member("availability_topic", board.topic + "/status")
            o.member("payload_available", "online")
            o.member("payload_not_available", "offline")
            o.member("device") { w in
                w.object { d in
                    d.member("identifiers") { $0.array(["treeline_" + board.clientID]) { $0.value($1) } }
                    d.member("name", board.clientID)
                    d.member("model", "Treeline board")
                    d.member("manufacturer", "Treeline")
                    d.member("sw_version", board.version)
                }
            }
            o.member("origin") { w in
                w.object { d in
                    d.member("name", "treelined")
                    d.member("sw_version", board.version)
                }
            }
            body(&o)
        }
        return Entity(topic: configTopic(board, component, object), config: config)
    }

    /// `<topic>/location`: where the board is, for the tracker's attributes and the inside
    /// sensors.
    public static func location(_ p: OwnTracks.Position, fix: String, inside: [String]) -> [UInt8] {
        JSONWriter.object { o in
            o.member("latitude", p.coordinate.latitude, decimals: 7)
            o.member("longitude", p.coordinate.longitude, decimals: 7)
            o.member("gps_accuracy", p.accuracy.isFinite ? max(0, p.accuracy) : 0, decimals: 1)
            if let a = p.altitude, a.isFinite { o.member("altitude", a, decimals: 1) }
            if let v = p.speed, v.isFinite, v >= 0 { o.member("speed", v, decimals: 2) }
            if let c = p.course, c.isFinite { o.member("course", c, decimals: 1) }
            o.member("fix", fix)
            o.member("time", p.time.iso8601)
            o.member("inside") { $0.array(inside) { $0.value($1) } }
        }
    }

    /// `<topic>/sensors`: plants due, captures today, and how old the last fix is (null: none).
    public static func sensors(plantsDue: Int, capturesToday: Int, fixAge: Int?) -> [UInt8] {
        JSONWriter.object { o in
            o.member("plants_due", plantsDue)
            o.member("captures_today", capturesToday)
            if let fixAge { o.member("fix_age_s", fixAge) } else { o.member("fix_age_s") { $0.null() } }
        }
    }
}
