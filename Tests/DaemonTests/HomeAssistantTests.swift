import Foundation
import IntegrationSupport
import Testing

/// Home Assistant's MQTT discovery with a real mosquitto and the walk through gpsd: the configs
/// retained follow the regions (a removed region's cleared, an earlier run's leftovers cleared),
/// `<topic>/location` follows the board, `<topic>/sensors` counts what the board counts.
extension Daemon {
    @Test func discoveryConfigsFollowTheRegionsAndTheLocationTheBoard() async throws {
        let (broker, subscriber) = try await brokerAndSubscriber(topics: ["homeassistant/#", "treeline/board-h/location", "treeline/board-h/sensors", "treeline/board-h/reply"])
        defer { subscriber.stop(); broker.finish() }
        // A config an earlier run left for a plant that is gone since, and one of another board.
        try mosquittoPublish(broker: broker, topic: "homeassistant/button/board-h/water_gone/config", payload: #"{"name":"Water gone"}"#, retain: true)
        try mosquittoPublish(broker: broker, topic: "homeassistant/button/board-z/water_x/config", payload: #"{"name":"Water x"}"#, retain: true)
        try await withGPSD(log: walk, linesPerTick: 8, tick: 0.01) { feeder, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            // No `commands`: the buttons' topic takes water by itself, and nothing else.
            try connect(daemon, to: broker, clientID: "board-h", extra: "  home_assistant: {inside: [album, reforestation]}\n")
            try await daemon.start()
            try await waitFor(within: 60) { feeder.served >= feeder.count }
            let (c, _) = try daemon.client()
            let regions = json(try #require(c.ask(#"{"cmd":"regions"}"#)))["regions"] as? [[String: Any]] ?? []
            func ids(_ kinds: Set<String>) -> [String] { regions.filter { kinds.contains($0["kind"] as? String ?? "") }.compactMap { $0["id"] as? String } }
            var expected: Set<String> = ["device_tracker/board-h/tracker", "sensor/board-h/last_event", "sensor/board-h/plants_due", "sensor/board-h/captures_today",
                                         "sensor/board-h/fix_age"]
            for id in ids(["album", "reforestation"]) { expected.insert("binary_sensor/board-h/inside_\(id)") }
            for id in ids(["plant"]) { expected.insert("button/board-h/water_\(id)") }
            #expect(expected.count == 5 + regions.count, "every sample region has a plain id")
            func configs() throws -> Set<String> {
                Set(try broker.retained("homeassistant/+/board-h/+/config", wait: 1).keys.map { String($0.dropFirst("homeassistant/".count).dropLast("/config".count)) })
            }
            try await waitFor(within: 10) { (try? configs()) == expected }
            #expect(try configs() == expected, "the retained configs: the stale one cleared")
            #expect(try broker.retained("homeassistant/+/board-z/+/config").count == 1, "another board's config is left alone")

            // The location: the board's last fix and the regions it is inside, each a second
            // of receiver time or more after the one before.
            let state = json(try #require(c.ask(#"{"cmd":"state"}"#)))
            let lastFix = try #require(state["last_fix"] as? [String: Any])
            try await waitFor(within: 5) {
                let l = json((try? broker.retained("treeline/board-h/location"))?["treeline/board-h/location"] ?? "{}")
                return l["time"] as? String == lastFix["time"] as? String
            }
            let location = json(try broker.retained("treeline/board-h/location")["treeline/board-h/location"] ?? "{}")
            #expect(location["latitude"] as? Double == lastFix["lat"] as? Double && location["longitude"] as? Double == lastFix["lon"] as? Double, "\(location) \(lastFix)")
            #expect(location["inside"] as? [String] == state["inside"] as? [String] && location["fix"] as? String == "3d")
            let times = subscriber.messages.filter { $0.topic == "treeline/board-h/location" }.compactMap { json($0.payload)["time"] as? String }
            #expect(times.count >= 5, "\(times.count) locations")
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let seconds = times.compactMap { formatter.date(from: $0)?.timeIntervalSince1970 }
            #expect(seconds.count == times.count && zip(seconds, seconds.dropFirst()).allSatisfy { $1 - $0 >= 1 }, "in order, a second apart at least")

            // The sensors: the plants due as `regions` says, no capture, a fresh fix.
            let due = regions.filter { $0["due"] as? Bool == true }.count
            let sensors = json(try broker.retained("treeline/board-h/sensors")["treeline/board-h/sensors"] ?? "{}")
            #expect(sensors["plants_due"] as? Int == due && sensors["captures_today"] as? Int == 0 && (sensors["fix_age_s"] as? Int).map { $0 >= 0 } == true, "\(sensors)")

            // A press, as HA sends it (the button's template rendered): the plant is watered.
            let button = json(try broker.retained("homeassistant/button/board-h/+/config").values.first ?? "{}")
            let template = try #require(button["command_template"] as? String)
            let press = template.replacingOccurrences(of: "{{ (as_timestamp(now()) * 1000) | int }}", with: "1777626000123")
            try mosquittoPublish(broker: broker, topic: try #require(button["command_topic"] as? String), payload: press, qos: 0)
            try await waitFor(within: 10) { subscriber.messages.contains { $0.topic == "treeline/board-h/reply" && $0.payload.contains("ha-1777626000123") } }
            let answer = json(subscriber.messages.last { $0.topic == "treeline/board-h/reply" }?.payload ?? "{}")
            #expect(answer["type"] as? String == "watered", "\(answer)")
            // Anything else on that topic is refused.
            try mosquittoPublish(broker: broker, topic: "treeline/board-h/ha", payload: #"{"id":"ha-x","cmd":"remove_region","region":"album-t"}"#, qos: 0)
            try await waitFor(within: 10) { subscriber.messages.contains { $0.topic == "treeline/board-h/reply" && $0.payload.contains("ha-x") } }
            #expect(subscriber.messages.last { $0.payload.contains("ha-x") }?.payload.contains("takes water only") == true)

            // A region added gets its entity; removed, its config is cleared.
            _ = c.ask(#"{"cmd":"add_region","kind":"album","id":"album-t","name":"Test album","radius_m":30,"at":[40.1,-8.23]}"#)
            try await waitFor(within: 10) { (try? configs())?.contains("binary_sensor/board-h/inside_album-t") == true }
            _ = c.ask(#"{"cmd":"remove_region","region":"album-t"}"#)
            try await waitFor(within: 10) { (try? configs()) == expected }
            #expect(try configs() == expected)

            // Home Assistant's birth message: every config again (HA may have lost them).
            let before = subscriber.messages.filter { $0.topic.hasSuffix("/config") && $0.topic.contains("/board-h/") }.count
            try mosquittoPublish(broker: broker, topic: "homeassistant/status", payload: "online")
            try await waitFor(within: 10) { subscriber.messages.filter { $0.topic.hasSuffix("/config") && $0.topic.contains("/board-h/") }.count >= before + expected.count }
        }
    }

    /// Anything on the broker may publish crew locations: a flood of them, a huge one, hostile
    /// ones, never hold up the board; the crew keeps 200 at most, each checked.
    @Test func aFloodOfCrewLocationsNeverHoldsUpTheBoard() async throws {
        let (broker, subscriber) = try await brokerAndSubscriber(topics: ["treeline/board-f/status"])
        defer { subscriber.stop(); broker.finish() }
        let started = Date()
        // What this board left under the earlier default topic: cleared at start, never crew.
        try mosquittoPublish(broker: broker, topic: "owntracks/treeline/board-f", payload: #"{"_type":"location","lat":40.1,"lon":-8.2,"tst":1777620000}"#, retain: true)
        try await withGPSD(log: walk, linesPerTick: 8, tick: 0.01) { feeder, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try connect(daemon, to: broker, clientID: "board-f", extra: "  owntracks: {}\n  commands: [state]\n")
            try await daemon.start()
            try await waitFor(within: 60) { feeder.served >= feeder.count }
            try await waitFor(within: 10) { daemon.logText.contains("MQTT: connected") }
            let (c, _) = try daemon.client()
            // The walk's time: a location from after the board's time plus a day is refused.
            let now = 1_777_626_000
            // 20,000 locations on one topic, as fast as mosquitto_pub sends them, while the
            // board is asked its state.
            let lines = (0..<20_000).map { #"{"_type":"location","lat":40.1,"lon":-8.2\#($0 % 10),"tst":\#(now),"acc":5}"# }.joined(separator: "\n")
            let file = daemon.folder.appendingPathComponent("flood.txt")
            try Data(lines.utf8).write(to: file)
            let flood = Task.detached { try? MosquittoProcess.publishLines(broker: broker, topic: "owntracks/flood/treeline", file: file) }
            var slowest = 0.0
            for _ in 0..<20 {
                let start = Date()
                #expect(json(c.ask(#"{"cmd":"state"}"#) ?? "{}")["class"] as? String == "STATE")
                slowest = max(slowest, Date().timeIntervalSince(start))
                try await Task.sleep(for: .milliseconds(100))
            }
            _ = await flood.value
            #expect(slowest < 1, "state answered within \(slowest) s during the flood")
            // A command right after the flood is answered: crew locations never take its place.
            let reply = MQTTSubscriber(broker: broker, topics: ["treeline/board-f/reply"], clientID: "test-reply")
            try reply.start()
            defer { reply.stop() }
            #expect(await reply.waitUntilSubscribed())
            try mosquittoPublish(broker: broker, topic: "treeline/board-f/cmd", payload: #"{"id":"after-flood","cmd":"state"}"#, qos: 0)
            try await waitFor(within: 10) { reply.messages.contains { $0.payload.contains("after-flood") } }
            // 230 members, one a megabyte, one out of range.
            for i in 0..<230 {
                try mosquittoPublish(broker: broker, topic: "owntracks/m\(i)/treeline", payload: #"{"_type":"location","lat":40.1,"lon":-8.2,"tst":\#(now),"acc":\#(i)}"#, qos: 0)
            }
            let huge = daemon.folder.appendingPathComponent("huge.json")
            try Data((#"{"_type":"location","lat":40.1,"lon":-8.2,"tst":\#(now),"x":""# + String(repeating: "x", count: 1_000_000) + #""}"#).utf8).write(to: huge)
            try mosquittoPublish(broker: broker, topic: "owntracks/huge/treeline", payload: "", file: huge)
            try mosquittoPublish(broker: broker, topic: "owntracks/far/treeline", payload: #"{"_type":"location","lat":91,"lon":-8.2,"tst":\#(now)}"#)
            try await waitFor(within: 10) {
                let members = json(c.ask(#"{"cmd":"crew"}"#) ?? "{}")["members"] as? [[String: Any]] ?? []
                return members.contains { $0["user"] as? String == "m229" }
            }
            let members = json(c.ask(#"{"cmd":"crew"}"#) ?? "{}")["members"] as? [[String: Any]] ?? []
            let names = Set(members.compactMap { $0["user"] as? String })
            #expect(members.count == 200, "\(members.count) members")
            #expect(!names.contains("huge") && !names.contains("far") && !names.contains("board-f") && !names.contains("treeline"))
            #expect(try broker.retained("owntracks/treeline/board-f").isEmpty, "the earlier default topic's location cleared")
            #expect(names.contains("m229") && !names.contains("flood"), "the newest kept, the oldest pushed out")
            // Said in the log: the refusal (at most once a minute) and the drop of the huge one.
            try? await waitFor(within: 5) { daemon.logText.contains("refused: lat and lon must be numbers within") && daemon.logText.contains("messages dropped") }
            #expect(daemon.logText.contains("refused: lat and lon must be numbers within") && daemon.logText.contains("messages dropped"), "\(daemon.logText.suffix(1500))")
            print("flood: state_slowest_s=\(slowest) members=\(members.count) took_s=\(Int(Date().timeIntervalSince(started)))")
        }
    }
}

