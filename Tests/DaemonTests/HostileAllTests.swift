import Foundation
import IntegrationSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Every hostile request the board has been given to refuse, through its three doors at once:
/// the Unix socket, HTTPS and MQTT (a real mosquitto with the README's ACL and passwords), while
/// gpsd feeds the walk and a socket subscriber and an SSE subscriber stream every event from
/// since 0. `Tests/Browser/hostile_all.py` sends the attacks and checks each answer; this test
/// sets the board up, publishes the retained commands before it starts, and checks the end.
extension Daemon {
    /// Layouts with absurd numbers (the screen 1e300 over a field of view of 1e-300 froze the
    /// daemon), retained and repeated MQTT commands, commands not listed and clients without the
    /// ACL's rights, uploads that are pages and paths that name other files, cookie POSTs from
    /// another origin, names that are terminal escapes, floods at every door at once and fleet
    /// regions over the limits: each refused or harmless, each answer within a second, `state`
    /// answered within a second at every door after each; every event at both subscribers once
    /// and in order, as many as the journal holds; SIGTERM ends it within 2 s with the streams
    /// open; and the retained commands are not run at the next start either.
    @Test func noRequestFromAnyDoorFreezesTheBoardAndEveryEventArrivesOnce() async throws {
        let expected = try replayed(walk, regions: sampleRegions)
        let users = ["operator": "op-\(UUID().uuidString)", "viewer": "v-\(UUID().uuidString)", "board-h": "b-\(UUID().uuidString)"]
        let broker = try MosquittoProcess(users: users, acl: MosquittoProcess.fleetACL)
        defer { broker.finish() }
        try await broker.start()
        let board = "board-h", topic = "treeline/board-h"
        let allowed = ["layout", "water", "add_region", "remove_region", "state"]
        // The operator's view of the board's events and replies, from before it starts.
        let replies = MQTTSubscriber(broker: broker, topics: [topic + "/reply", topic + "/events"], clientID: "hostile-operator-view", username: "operator")
        defer { replies.stop() }
        try replies.start()
        #expect(await replies.waitUntilSubscribed())
        func publish(_ topic: String, _ payload: String, retain: Bool = false) throws {
            try mosquittoPublish(broker: broker, topic: topic, payload: payload, retain: retain, username: "operator", password: users["operator"])
        }
        // Before the daemon starts: the freezing layout, retained on the board's command topic and
        // the fleet's; the fleet's regions (an album far from the walk), retained as they should be.
        let freezing = #""cmd":"layout","panorama":true,"at":[40.1012,-8.2391],"fov":[1e-300,1e-300],"screen":[1e300,1e300]"#
        try publish(topic + "/cmd", #"{"id":"retained-1",\#(freezing)}"#, retain: true)
        try publish("treeline/fleet/cmd", #"{"id":"retained-fleet-1",\#(freezing)}"#, retain: true)
        let album = #"{"type":"Feature","properties":{"id":"fleet-album","kind":"album","name":"Crew photos"},"geometry":{"type":"Point","coordinates":[-8.2365,40.2020]}}"#
        try publish("treeline/fleet/regions", #"{"type":"FeatureCollection","features":[\#(album)]}"#, retain: true)

        try await withGPSD(log: walk, linesPerTick: 10, tick: 0.1) { feeder, gpsd in
            feeder.pause()
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            let port = try serveWeb(daemon)
            try connect(daemon, to: broker, clientID: board,
                        extra: "  commands: [\(allowed.joined(separator: ", "))]\n  fleet_regions: true\n", user: board)
            try await daemon.start()
            #expect(await broker.waitForLog("Sending SUBACK to \(board)\n"), "the board subscribed its command topics")
            let walkDone = daemon.folder.appendingPathComponent("walk-done")
            let script = try BrowserScript("hostile_all", arguments: webArguments(daemon, port: port) + [
                "--mqtt-port", String(broker.port), "--topic", topic,
                "--operator-password", users["operator"]!, "--viewer-password", users["viewer"]!,
                "--daemon-log", daemon.log.path, "--broker-log", broker.log.path,
                "--walk-done", walkDone.path, "--allowed", allowed.joined(separator: ","),
            ])
            let ready = await script.waitFor("READY", timeout: 60)
            #expect(ready, "the script's subscribers and MQTT clients are up")
            let started = Date()
            feeder.resume()

            // The whole walk fed and journaled: the regions files' record, the fleet's album, the
            // walk's events and the one plant an MQTT command added (sent twice, under one id).
            try await waitFor(within: 150) { feeder.served >= feeder.count }
            let total = announcedSeqs + 1 + Int64(expected.count) + 1
            let (c, _) = try daemon.client()
            var patience = Patience()
            var seq: Int64 = -1
            while patience.waited < 30 {
                seq = (json(c.ask(#"{"cmd":"state"}"#, timeout: 5))["seq"] as? NSNumber)?.int64Value ?? -1
                if seq >= total { break }
                await patience.nap(0.2)
            }
            #expect(seq == total, "the journal holds the walk's events, the regions' and the one plant added, nothing an attack sent: seq \(seq), expected \(total)")
            _ = FileManager.default.createFile(atPath: walkDone.path, contents: nil)

            // SIGTERM with the socket subscriber, the SSE stream and the MQTT clients connected.
            let holding = await script.waitFor("HOLDING", timeout: 120)
            #expect(holding, "the script checked the subscribers' events")
            // The script ended the walk with a marker (seq total + 1). Over MQTT, once it has
            // come: every event, in order of first arrival, and a repeat only where the bridge
            // lost its connection (it then publishes again after the acknowledged seq): with
            // one connection, each exactly once.
            var markerWait = Patience()
            while !arrivals(replies.messages, topic: topic + "/events").contains(total + 1), markerWait.waited < 30 { await markerWait.nap(0.02) }
            let events = replies.messages.filter { $0.topic == topic + "/events" }
            let (bySeqs, repeats, conflicts) = bySeq(events)
            let order = arrivals(events, topic: topic + "/events")
            var firsts: [Int64] = []
            var seen = Set<Int64>()
            for s in order where seen.insert(s).inserted { firsts.append(s) }
            let reconnects = daemon.logText.components(separatedBy: "MQTT: connected").count - 2
            #expect(stepsBack(order) <= reconnects, "MQTT: \(stepsBack(order)) steps back for \(reconnects) reconnections: \(onceInOrder(order, total + 1) ?? "")")
            if reconnects == 0 { #expect(onceInOrder(order, total + 1) == nil, "MQTT, one connection: \(onceInOrder(order, total + 1) ?? "")") }
            #expect(firsts == Array(1...total + 1), "MQTT: every seq 1..\(total) and the marker in order of first arrival: \(onceInOrder(firsts, total + 1) ?? "")")
            #expect(conflicts.isEmpty && bySeqs.count == Int(total) + 1)
            print("hostile, all doors: MQTT events \(events.count), \(repeats) repeats, \(reconnects) reconnections")
            let stopped = daemon.terminate(within: 10)
            print("hostile, all doors: SIGTERM \(stopped.map { String(format: "exit %d after %.2f s", $0.status, $0.seconds) } ?? "not within 10 s"); walk and attacks \(Int(Date().timeIntervalSince(started))) s")
            #expect(stopped?.status == 0)
            #expect((stopped?.seconds ?? 99) < 2, "SIGTERM took \(stopped?.seconds ?? 99) s with the streams open")

            let r = await script.finish(timeout: 60)
            report("hostile_all", r)
            #expect(r.status == 0, "\(r.stderr)\nlog: \(daemon.logText.suffix(3000))")
            #expect(r.results["events"] as? Int == Int(total), "the subscribers' N is the journal's")
            for door in ["socket", "https", "mqtt"] {
                let slowest = r.results["slowest_\(door)_s"] as? Double ?? 99
                #expect(slowest < 1, "the slowest answer over \(door): \(slowest) s")
            }
            let notice = "a retained message on \(topic)/cmd is not run"
            #expect(daemon.logText.components(separatedBy: notice).count == 2, "said once in the run: \(daemon.logText.suffix(2000))")
            #expect(daemon.logText.contains("a retained message on treeline/fleet/cmd is not run"))

            // The next start: the retained commands (the one from before the first start and the
            // one published while it ran, which then came live) are dropped and logged, not run;
            // the refused fleet collection retained on the broker leaves the fleet's album in force.
            let answeredBefore = replies.messages.filter { $0.topic == topic + "/reply" }.count
            try await daemon.start()
            try await waitFor(within: 10) { daemon.logText.components(separatedBy: notice).count == 3 }
            // A live command after the retained ones (the notice says they reached the bridge),
            // answered: anything the start ran would have been answered before it.
            try publish(topic + "/cmd", #"{"id":"after-restart","cmd":"state"}"#)
            try await waitFor(within: 10) { replies.messages.contains { $0.topic == topic + "/reply" && json($0.payload)["id"] as? String == "after-restart" } }
            let answers = replies.messages.filter { $0.topic == topic + "/reply" && json($0.payload)["id"] as? String != "after-restart" }
            let ids = answers.map { json($0.payload)["id"] as? String ?? "" }
            #expect(!ids.contains("retained-1") && !ids.contains("retained-fleet-1"), "a command retained before any start never ran")
            #expect(ids.filter { $0 == "retained-live-1" }.count == 1, "the one published while it ran, live, ran once, not again at the start: \(ids)")
            #expect(answers.count == answeredBefore, "nothing answered at the start")
            let regions = (json(try daemon.client().0.ask(#"{"cmd":"regions"}"#))["regions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(regions.contains("fleet-album"), "the fleet's regions in force stay: \(regions)")
            #expect(daemon.terminate()?.status == 0)
        }
    }
}
