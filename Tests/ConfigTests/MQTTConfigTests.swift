import Config
import Testing

/// The config's `mqtt:` section: what it sets, and every mistake named with its key and line.
@Suite struct MQTTConfigSection {
    @Test func aFullSectionIsRead() throws {
        let c = try TreelineConfig.parse("""
            mqtt:
              host: broker.example.org
              port: 8883
              client_id: board-7
              username: board-7
              password_file: /etc/treeline/mqtt-password
              topic: fleet/board-7
              keepalive_s: 20
              tls: {ca_file: /etc/ca.pem, cert_file: /etc/c.pem, key_file: /etc/k.pem}
              owntracks: {user: crew, device: b7, tid: b7, interval_s: 30, distance_m: 20, kinds: [plant]}
              commands: [water, add_region, remove_region]
              fleet_regions: true
            """, file: "t.yaml")
        let m = try #require(c.mqtt)
        #expect(m.host == "broker.example.org" && m.port == 8883 && m.clientID == "board-7" && m.topic == "fleet/board-7")
        #expect(m.keepalive == 20 && m.caFile == "/etc/ca.pem" && m.certFile == "/etc/c.pem" && m.keyFile == "/etc/k.pem")
        #expect(m.commands == ["water", "add_region", "remove_region"] && m.fleetRegions)
        #expect(m.ownTracks?.user == "crew" && m.ownTracks?.tid == "b7" && m.ownTracks?.intervalSeconds == 30 && m.ownTracks?.kinds == ["plant"])
        #expect(try TreelineConfig.parse("gpsd: {port: 2947}", file: "t.yaml").mqtt == nil, "no section: no MQTT")
    }

    @Test func mistakesAreNamed() {
        let cases: [(String, String)] = [
            ("mqtt: {port: 1883}", "mqtt.host: is required"),
            ("mqtt: {host: b, port: 70000}", "mqtt.port: must be a port number"),
            ("mqtt: {host: b, client_id: a/b}", "mqtt.client_id: must not contain"),
            ("mqtt: {host: b, topic: 'x/#'}", "mqtt.topic: must be a topic without"),
            ("mqtt: {host: b, tls: {cert_file: c.pem}}", "cert_file and key_file go together"),
            ("mqtt: {host: b, owntracks: {tid: abc}}", "mqtt.owntracks.tid: must be 1 or 2 characters"),
            ("mqtt: {host: b, owntracks: {kinds: [tree]}}", "unknown kind 'tree'"),
            ("mqtt: {host: b, comands: [water]}", "did you mean commands?"),
            ("mqtt: {host: b, commands: true}", "mqtt.commands: true would take every command from any client of the broker: list the ones to take"),
            ("mqtt: {host: b, commands: [water, export_all]}", "mqtt.commands: unknown command 'export_all': allowed are water, undo_water, state,"),
            ("mqtt: {host: b, commands: [subscribe]}", "mqtt.commands: subscribe is never taken over MQTT"),
            ("mqtt: {host: b, commands: water}", "mqtt.commands: must be a list of commands"),
            ("mqtt: {host: b, fleet_regions: maybe}", "mqtt.fleet_regions: must be true or false"),
            ("mqtt: {host: b, owntracks: {transitions: sometimes}}", "mqtt.owntracks.transitions: must be true or false"),
            ("mqtt: {host: b, owntracks: {crew: 3}}", "mqtt.owntracks.crew: must be true or false"),
            ("mqtt: {host: b, home_assistant: maybe}", "mqtt.home_assistant: must be true or false"),
            ("mqtt: {host: b, home_assistant: {prefix: 'ha/#'}}", "mqtt.home_assistant.prefix: must be a topic of 1 to 64 bytes"),
            ("mqtt: {host: b, home_assistant: {prefix: /ha}}", "mqtt.home_assistant.prefix: must be a topic"),
            ("mqtt: {host: b, home_assistant: {inside: [tree]}}", "unknown kind 'tree'"),
            ("mqtt: {host: b, home_assistant: {buttons: 2}}", "mqtt.home_assistant.buttons: must be true or false"),
            ("mqtt: {host: b, home_assistant: {prefx: ha}}", "did you mean prefix?"),
        ]
        for (text, says) in cases {
            do {
                _ = try TreelineConfig.parse(text, file: "t.yaml")
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.description.contains(says), "\(text): \(error.description)")
            }
        }
    }

    /// `commands:` is the list of commands the broker may send; none by default, `false` none,
    /// `true` (the old form) refused; the fleet's regions have their own switch, off by default.
    @Test func commandsAreAListAndOffByDefault() throws {
        let none = try #require(try TreelineConfig.parse("mqtt: {host: b}", file: "t.yaml").mqtt)
        #expect(none.commands.isEmpty && !none.fleetRegions)
        let off = try #require(try TreelineConfig.parse("mqtt: {host: b, commands: false}", file: "t.yaml").mqtt)
        #expect(off.commands.isEmpty)
        let empty = try #require(try TreelineConfig.parse("mqtt: {host: b, commands: []}", file: "t.yaml").mqtt)
        #expect(empty.commands.isEmpty)
        let some = try #require(try TreelineConfig.parse("mqtt: {host: b, commands: [state, water, state]}", file: "t.yaml").mqtt)
        #expect(some.commands == ["state", "water"], "in order, once each")
        #expect(MQTTConfig.commandNames.contains("add_region") && !MQTTConfig.commandNames.contains("subscribe"))
    }
}

extension MQTTConfigSection {
    /// Home Assistant's discovery: off without the key, `true` for the defaults (prefix
    /// `homeassistant`, no inside sensors, Water buttons), or a mapping; OwnTracks' transitions
    /// off and the crew on by default.
    @Test func homeAssistantAndOwnTracksDefaults() throws {
        let none = try #require(try TreelineConfig.parse("mqtt: {host: b, owntracks: {}}", file: "t.yaml").mqtt)
        #expect(none.homeAssistant == nil)
        let ot = try #require(none.ownTracks)
        #expect(!ot.transitions && ot.crew && ot.user == nil && ot.device == nil)
        let on = try #require(try TreelineConfig.parse("mqtt: {host: b, home_assistant: true}", file: "t.yaml").mqtt?.homeAssistant)
        #expect(on == HomeAssistantConfig())
        #expect(on.prefix == "homeassistant" && on.inside.isEmpty && on.buttons)
        let off = try #require(try TreelineConfig.parse("mqtt: {host: b, home_assistant: false}", file: "t.yaml").mqtt)
        #expect(off.homeAssistant == nil)
        let set = try #require(try TreelineConfig.parse("""
            mqtt:
              host: b
              home_assistant: {prefix: ha/site-1, inside: [album, reforestation], buttons: false}
              owntracks: {transitions: true, crew: false}
            """, file: "t.yaml").mqtt)
        #expect(set.homeAssistant?.prefix == "ha/site-1" && set.homeAssistant?.inside == ["album", "reforestation"] && set.homeAssistant?.buttons == false)
        #expect(set.ownTracks?.transitions == true && set.ownTracks?.crew == false)
    }
}
