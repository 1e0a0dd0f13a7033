import Foundation
import Geo
import MQTT
import Testing

func object(_ bytes: [UInt8]) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any], "\(String(decoding: bytes, as: UTF8.self))")
}

/// Home Assistant's discovery configs, as HA's MQTT integration reads them: one device per board,
/// available while the board's status is `online`, each entity with a unique id and the topics
/// the bridge publishes.
@Suite struct HomeAssistantDiscovery {
    let board = HomeAssistant.Board(clientID: "board 7/x", topic: "treeline/board-7", prefix: "homeassistant", version: "0.7.0")

    /// Every config names the same device and availability, and is retained under
    /// `<prefix>/<component>/<node>/<object>/config` with a node id HA accepts.
    @Test func everyEntityNamesTheBoardAndItsAvailability() throws {
        #expect(board.node.hasPrefix("board_7_x--") && board.node.count > "board_7_x--".count)
        // Two client ids a topic would make one are two nodes; a plain one is itself.
        #expect(HomeAssistant.Board(clientID: "board.7", topic: "t", prefix: "homeassistant", version: "1").node
                    != HomeAssistant.Board(clientID: "board_7", topic: "t", prefix: "homeassistant", version: "1").node)
        #expect(HomeAssistant.Board(clientID: "board_7", topic: "t", prefix: "homeassistant", version: "1").node == "board_7")
        let entities = HomeAssistant.boardEntities(board)
            + [HomeAssistant.inside(board, .init(id: "album-1", name: "View", kind: "album")), HomeAssistant.water(board, .init(id: "plant-1", name: "Oak", kind: "plant"))].compactMap { $0 }
        #expect(entities.count == 7)
        var uniqueIDs = Set<String>()
        for e in entities {
            let c = try object(e.config)
            let parts = e.topic.split(separator: "/").map(String.init)
            #expect(parts.count == 5 && parts[0] == "homeassistant" && parts[2] == board.node && parts[4] == "config", "\(e.topic)")
            #expect(["device_tracker", "sensor", "binary_sensor", "button"].contains(parts[1]))
            #expect(parts[3].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }, "\(parts[3])")
            #expect(c["availability_topic"] as? String == "treeline/board-7/status")
            #expect(c["payload_available"] as? String == "online" && c["payload_not_available"] as? String == "offline")
            let device = try #require(c["device"] as? [String: Any])
            #expect(device["identifiers"] as? [String] == ["treeline_board 7/x"])
            #expect(device["name"] as? String == "board 7/x" && device["model"] as? String == "Treeline board" && device["sw_version"] as? String == "0.7.0")
            let id = try #require(c["unique_id"] as? String)
            #expect(uniqueIDs.insert(id).inserted, "\(id) twice")
        }
    }

    @Test func theTrackerReadsTheLocationTopicsAttributes() throws {
        let tracker = try #require(HomeAssistant.boardEntities(board).first { $0.topic.contains("/device_tracker/") })
        #expect(tracker.topic == "homeassistant/device_tracker/\(board.node)/tracker/config")
        let c = try object(tracker.config)
        #expect(c["json_attributes_topic"] as? String == "treeline/board-7/location" && c["source_type"] as? String == "gps")
        #expect(c["state_topic"] == nil, "the state comes from the position and HA's zones")
        #expect(c.keys.contains("name") && c["name"] is NSNull, "the device's own name")

        let p = OwnTracks.Position(time: UTCTime(nanoseconds: 1_777_626_023 * UTCTime.nanosPerSecond), coordinate: Coordinate(latitude: 40.1000988, longitude: -8.2396655),
                                   accuracy: 1.84, altitude: 209.6, speed: 1.3, course: 79.9)
        let l = try object(HomeAssistant.location(p, fix: "3d", inside: ["album-1", "ref-a"]))
        #expect(l["latitude"] as? Double == 40.1000988 && l["longitude"] as? Double == -8.2396655)
        #expect(l["gps_accuracy"] as? Double == 1.8 && l["altitude"] as? Double == 209.6 && l["speed"] as? Double == 1.3 && l["course"] as? Double == 79.9)
        #expect(l["fix"] as? String == "3d" && l["time"] as? String == "2026-05-01T09:00:23.000Z" && l["inside"] as? [String] == ["album-1", "ref-a"])
        let bare = try object(HomeAssistant.location(OwnTracks.Position(time: p.time, coordinate: p.coordinate, accuracy: .nan), fix: "2d", inside: []))
        #expect(bare["gps_accuracy"] as? Double == 0 && bare["altitude"] == nil && bare["speed"] == nil && bare["course"] == nil)
    }

    @Test func sensorsReadTheirFigures() throws {
        let sensors = HomeAssistant.boardEntities(board).filter { $0.topic.contains("/sensor/") }
        let byObject = Dictionary(uniqueKeysWithValues: try sensors.map { ($0.topic.split(separator: "/")[3], try object($0.config)) })
        #expect(Set(byObject.keys) == ["last_event", "plants_due", "captures_today", "fix_age"])
        #expect(byObject["last_event"]?["state_topic"] as? String == "treeline/board-7/events")
        #expect(byObject["last_event"]?["value_template"] as? String == "{{ value_json.type }}")
        // No field an event may lack is read as an attribute: no template warning for any event.
        let attributes = try #require(byObject["last_event"]?["json_attributes_template"] as? String)
        #expect(!attributes.contains("value_json.name") && attributes.contains("value_json.get('name')"))
        for key in ["plants_due", "captures_today", "fix_age"] {
            #expect(byObject[Substring(key)]?["state_topic"] as? String == "treeline/board-7/sensors")
        }
        #expect(byObject["fix_age"]?["value_template"] as? String == "{{ value_json.fix_age_s }}" && byObject["fix_age"]?["unit_of_measurement"] as? String == "s")
        let s = try object(HomeAssistant.sensors(plantsDue: 3, capturesToday: 2, fixAge: nil))
        #expect(s["plants_due"] as? Int == 3 && s["captures_today"] as? Int == 2 && s["fix_age_s"] is NSNull)
        #expect(try object(HomeAssistant.sensors(plantsDue: 0, capturesToday: 0, fixAge: 12))["fix_age_s"] as? Int == 12)
    }

    /// The inside sensor is on exactly when `<topic>/location`'s `inside` names its region; the
    /// button's template is a water command for its plant with a new id each press.
    @Test func insideSensorsAndWaterButtons() throws {
        let inside = try #require(HomeAssistant.inside(board, .init(id: "album.1", name: "A \"quoted\" view", kind: "album")))
        let c = try object(inside.config)
        #expect(inside.topic.hasPrefix("homeassistant/binary_sensor/\(board.node)/inside-h_album_1_") && inside.topic.hasSuffix("/config"))
        #expect(c["name"] as? String == "Inside A \"quoted\" view" && c["state_topic"] as? String == "treeline/board-7/location")
        #expect(c["value_template"] as? String == "{{ 'ON' if 'album.1' in value_json.get('inside', []) else 'OFF' }}")

        let button = try #require(HomeAssistant.water(board, .init(id: "plant-7", name: "Oak", kind: "plant")))
        let b = try object(button.config)
        #expect(button.topic == "homeassistant/button/\(board.node)/water_plant-7/config")
        // Its own topic, where the board takes water and nothing else.
        #expect(b["command_topic"] as? String == "treeline/board-7/ha" && b["name"] as? String == "Water Oak")
        let template = try #require(b["command_template"] as? String)
        // What HA sends: the template with its expression rendered.
        let rendered = template.replacingOccurrences(of: "{{ (as_timestamp(now()) * 1000) | int }}", with: "1777626023123")
        #expect(!rendered.contains("{{"))
        let command = try object(Array(rendered.utf8))
        #expect(command["cmd"] as? String == "water" && command["plant"] as? String == "plant-7" && command["id"] as? String == "ha-1777626023123")
    }

    /// Ids come from files, the fleet and commands: one that could break out of a template or a
    /// JSON string gets no entity; two ids that a topic would make one stay two.
    @Test func hostileIDsGetNoEntityAndIDsNeverCollide() {
        for id in ["x' }}{{ 7*7 }}", "a\"b", "{% raw %}", "a\\b", "", String(repeating: "p", count: 65), "ünïcode", "a\nb"] {
            #expect(HomeAssistant.water(board, .init(id: id, name: "n", kind: "plant")) == nil, "\(id)")
            #expect(HomeAssistant.inside(board, .init(id: id, name: "n", kind: "album")) == nil, "\(id)")
        }
        #expect(HomeAssistant.templateSafe("plant-7.a:b c_d"))
        // The last is a plain id spelled as the first's object id would be with a single prefix.
        let ids = ["a.b", "a:b", "a b", "a_b", "a-b", "a_b_" + String(HomeAssistant.objectID("inside", "a.b").split(separator: "_").last!)]
        let topics = Set(ids.compactMap { HomeAssistant.inside(board, .init(id: $0, name: "n", kind: "album"))?.topic })
        #expect(topics.count == ids.count, "\(topics)")
        #expect(HomeAssistant.objectID("inside", "a_b") == "inside_a_b")
    }
}
