import Foundation
import IntegrationSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A daemon's MQTT settings and a broker with a subscriber (the crew's web test uses them too).
extension DaemonSuite {
    /// Adds an `mqtt:` section to the daemon's config: the broker, the user, a password file.
    func connect(_ daemon: DaemonProcess, to broker: MosquittoProcess, clientID: String, extra: String = "", user: String? = nil) throws {
        let passwordFile = daemon.folder.appendingPathComponent("mqtt-password")
        try Data(((user.flatMap { broker.users[$0] } ?? broker.password) + "\n").utf8).write(to: passwordFile)
        let config = try String(contentsOf: daemon.config, encoding: .utf8)
        let section = "mqtt:\n  host: 127.0.0.1\n  port: \(broker.port)\n  client_id: \(clientID)\n  username: \(user ?? broker.username)\n  password_file: \(passwordFile.path)\n" + extra
        try Data((config + section).utf8).write(to: daemon.config)
    }

    /// A broker on a free port and a subscriber to `topics` on it, subscribed.
    func brokerAndSubscriber(topics: [String], clientID: String = "test-sub-\(UUID().uuidString.prefix(8))") async throws -> (MosquittoProcess, MQTTSubscriber) {
        let broker = try MosquittoProcess()
        try await broker.start()
        let subscriber = MQTTSubscriber(broker: broker, topics: topics, clientID: clientID)
        try subscriber.start()
        #expect(await subscriber.waitUntilSubscribed())
        return (broker, subscriber)
    }
}

/// The MQTT bridge with Debian's mosquitto broker, a password file, and gpsd fed the walk.
extension Daemon {
    /// The events a subscriber got, by seq: each seq's payloads must all be the same line.
    func bySeq(_ messages: [(topic: String, payload: String)]) -> (events: [Int64: String], repeats: Int, conflicts: [Int64]) {
        var events: [Int64: String] = [:]
        var repeats = 0
        var conflicts: [Int64] = []
        for m in messages where m.topic.hasSuffix("/events") {
            guard let seq = (json(m.payload)["seq"] as? NSNumber)?.int64Value else { continue }
            if let seen = events[seq] {
                repeats += 1
                if seen != m.payload { conflicts.append(seq) }
            } else {
                events[seq] = m.payload
            }
        }
        return (events, repeats, conflicts)
    }

    /// The seqs of the events on `topic`, in the order they came, repeats included.
    func arrivals(_ messages: [(topic: String, payload: String)], topic: String) -> [Int64] {
        messages.filter { $0.topic == topic }.compactMap { (json($0.payload)["seq"] as? NSNumber)?.int64Value }
    }

    /// Adds a marker over the socket once the journal holds `after` events (the seq it must then
    /// get), and waits until the marker's event has come on `topic`: a subscriber's messages are
    /// then complete, a repeat or a stray seq among them. Whether it came within `within` s.
    func markEnd(_ daemon: DaemonProcess, after: Int64, subscriber: MQTTSubscriber, topic: String, within: Double = 30,
                 command: String? = nil) async throws -> Bool {
        let (c, _) = try daemon.client()
        try await waitFor(within: 30) { (json(c.ask(#"{"cmd":"state"}"#))["seq"] as? NSNumber)?.int64Value == after }
        let seq = Self.marker(daemon.socket, command: command)
        #expect(seq == after + 1, "the marker's seq")
        var patience = Patience()
        while patience.waited < within {
            if arrivals(subscriber.messages, topic: topic).contains(seq) { return true }
            await patience.nap(0.02)
        }
        return false
    }

    /// Publishes `{"id":ID,"cmd":"state"}` to `<topic>/cmd` until its answer comes on
    /// `<topic>/reply` (a command sent before the bridge has subscribed is lost: QoS 0), at most
    /// 10 s; the answer.
    func liveAnswer(_ broker: MosquittoProcess, _ subscriber: MQTTSubscriber, topic: String, id: String) async throws -> [String: Any]? {
        var patience = Patience()
        while patience.waited < 10 {
            try mosquittoPublish(broker: broker, topic: topic + "/cmd", payload: #"{"id":"\#(id)","cmd":"state"}"#)
            for _ in 0..<25 {
                if let r = subscriber.messages.first(where: { $0.topic == topic + "/reply" && json($0.payload)["id"] as? String == id }) { return json(r.payload) }
                await patience.nap(0.02)
            }
        }
        return nil
    }

    /// Where `order` (seqs as they came) breaks "1 to n, each once, in order" (nil: it does not).
    func onceInOrder(_ order: [Int64], _ n: Int64) -> String? {
        let want = Array(1...n)
        if order == want { return nil }
        let k = Array(zip(order, want)).firstIndex { $0 != $1 } ?? min(order.count, want.count)
        return "\(order.count) events for \(n) seqs, first difference at \(k): \(order[max(0, k - 3)..<min(order.count, k + 4)])"
    }

    /// The stream's steps back (a seq not above the one before it): the places where a sender
    /// began again after a lost connection (the bridge from its acknowledged seq, the broker its
    /// queue to a subscriber).
    func stepsBack(_ order: [Int64]) -> Int { zip(order, order.dropFirst()).filter { $1 <= $0 }.count }

    /// Every event of the walk reaches a subscriber of the broker, seq 1 to N, equal to what
    /// `replay` gives; the board's status and state are retained.
    @Test func everyEventOfTheWalkReachesTheBroker() async throws {
        let expected = try replayed(walk, regions: sampleRegions)
        let (broker, subscriber) = try await brokerAndSubscriber(topics: ["treeline/#"])
        defer { subscriber.stop(); broker.finish() }
        try await withGPSD(log: walk) { feeder, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try connect(daemon, to: broker, clientID: "board-a")
            try await daemon.start()
            let total = Int(announcedSeqs) + expected.count
            let got = await subscriber.waitFor(count: total, topic: "treeline/board-a/events", within: 60)
            let (events, _, conflicts) = bySeq(got)
            #expect(events.keys.sorted() == Array(1...Int64(total)), "every seq, none missing")
            #expect(conflicts.isEmpty)
            // The connection never dropped: each seq exactly once, in order, to a marker after the walk.
            #expect(try await markEnd(daemon, after: Int64(total), subscriber: subscriber, topic: "treeline/board-a/events"))
            let order = arrivals(subscriber.messages, topic: "treeline/board-a/events")
            #expect(onceInOrder(order, Int64(total) + 1) == nil, "\(onceInOrder(order, Int64(total) + 1) ?? "")")
            #expect(daemon.logText.components(separatedBy: "MQTT: connected").count == 2, "one connection")
            let walkEvents = events.keys.sorted().compactMap { withoutSeq(events[$0]!)?.event }
            #expect(firstDifference(walkEvents, expected) == nil, "the events replay gives")
            let messages = subscriber.messages
            #expect(messages.contains { $0.topic == "treeline/board-a/status" && $0.payload == "online" })
            #expect(messages.contains { $0.topic == "treeline/board-a/state" && json($0.payload)["class"] as? String == "STATE" })
            // Retained: a subscriber that comes later gets the status and the state at once.
            let late = MQTTSubscriber(broker: broker, topics: ["treeline/board-a/status", "treeline/board-a/state"])
            defer { late.stop() }
            try late.start()
            #expect(await late.waitFor(count: 2, within: 10).count == 2)
            // A clean stop says offline.
            #expect(daemon.terminate()?.status == 0)
            _ = await subscriber.waitFor(count: subscriber.messages.filter { $0.topic.hasSuffix("/status") }.count + 1, topic: "treeline/board-a/status", within: 5)
            #expect(subscriber.messages.last { $0.topic == "treeline/board-a/status" }?.payload == "offline")
        }
    }

    /// The broker stopped and started 5 times and treelined SIGKILLed 5 times during the walk:
    /// still every seq, none missing; a repeat is always of the same event.
    @Test func brokerRestartsAndDaemonKillsLoseNothing() async throws {
        let expected = try replayed(walk, regions: sampleRegions)
        let (broker, subscriber) = try await brokerAndSubscriber(topics: ["treeline/+/events"], clientID: "fleet-log")
        defer { subscriber.stop(); broker.finish() }
        try await withGPSD(log: walk, linesPerTick: 4, tick: 0.008) { feeder, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try connect(daemon, to: broker, clientID: "board-k")
            try await daemon.start()
            var rng = SystemRandomNumberGenerator()
            let points = (0..<10).map { _ in Int.random(in: feeder.count / 20...feeder.count * 19 / 20, using: &rng) }.sorted()
            for (k, point) in points.enumerated() {
                try await waitFor(within: 60) { feeder.served >= point }
                if k % 2 == 0 {
                    broker.stop()
                    try await Task.sleep(for: .milliseconds(Int.random(in: 100...600, using: &rng)))
                    try await broker.start()
                } else {
                    try await killAndRestart(daemon, feeder: feeder)
                }
            }
            try await waitFor(within: 60) { feeder.served >= feeder.count }
            let total = Int(announcedSeqs) + expected.count
            // The walk journaled, then a marker: once it has come every earlier seq has.
            #expect(try await markEnd(daemon, after: Int64(total), subscriber: subscriber, topic: "treeline/board-k/events", within: 60))
            let result = bySeq(subscriber.messages)
            #expect(result.events.keys.sorted() == Array(1...Int64(total) + 1), "missing: \(Set(1...Int64(total) + 1).subtracting(result.events.keys).sorted())")
            #expect(result.conflicts.isEmpty, "a repeat is the same event: \(result.conflicts)")
            let walkEvents = result.events.keys.sorted().compactMap { withoutSeq(result.events[$0]!)?.event }
            #expect(firstDifference(walkEvents, expected) == nil)
            // Repeats by design only: each seq first comes in order; the stream steps back only
            // where a connection was lost (each broker restart: the bridge's resend and the
            // broker's to the subscriber; each SIGKILL: the restart after the acknowledged seq;
            // each restart of mosquitto_sub), and the marker, after all that, comes once, last.
            let order = arrivals(subscriber.messages, topic: "treeline/board-k/events")
            var firsts: [Int64] = []
            var seen = Set<Int64>()
            for s in order where seen.insert(s).inserted { firsts.append(s) }
            #expect(firsts == Array(1...Int64(total) + 1), "each seq first in order: \(onceInOrder(firsts, Int64(total) + 1) ?? "")")
            let allowed = 2 * 5 + 5 + (subscriber.runs - 1)
            #expect(stepsBack(order) <= allowed, "\(stepsBack(order)) steps back for \(allowed) lost connections: \(order)")
            #expect(order.last == Int64(total) + 1 && order.filter { $0 == Int64(total) + 1 }.count == 1, "the marker once, last: \(order.suffix(5))")
            print("MQTT: 5 broker restarts and 5 SIGKILLs at lines \(points): \(result.events.count) events, \(result.repeats) repeats, \(stepsBack(order)) steps back, subscriber restarted \(subscriber.runs - 1) times")
        }
    }

    /// No broker at start: the daemon runs and serves its socket; when the broker comes, the
    /// backlog arrives in order.
    @Test func aBrokerThatComesLateGetsTheBacklogInOrder() async throws {
        let expected = try replayed(walk, regions: sampleRegions)
        let broker = try MosquittoProcess()
        defer { broker.finish() }
        // The subscriber's session first (persisted by a clean stop), so it is there when the
        // broker comes back before the daemon reconnects.
        try await broker.start()
        let subscriber = MQTTSubscriber(broker: broker, topics: ["treeline/+/events"], clientID: "late-log")
        defer { subscriber.stop() }
        try subscriber.start()
        #expect(await subscriber.waitUntilSubscribed())
        broker.stop()
        try await withGPSD(log: walk) { feeder, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try connect(daemon, to: broker, clientID: "board-l")
            try await daemon.start()
            let (c, _) = try daemon.client()
            let total = Int64(announcedSeqs) + Int64(expected.count)
            try await waitFor(within: 30) { (json(c.ask(#"{"cmd":"state"}"#))["seq"] as? NSNumber)?.int64Value == total }
            try await waitFor(within: 10) { daemon.logText.contains("cannot reach the broker") }  // the absence is logged
            try await broker.start()
            _ = await subscriber.waitFor(count: Int(total), topic: "treeline/board-l/events", within: 60)
            // Connected once, from the start of the backlog: each seq exactly once, in order, to a
            // marker journaled after it.
            #expect(try await markEnd(daemon, after: total, subscriber: subscriber, topic: "treeline/board-l/events"))
            let order = arrivals(subscriber.messages, topic: "treeline/board-l/events")
            #expect(onceInOrder(order, total + 1) == nil, "the backlog in order, each once: \(onceInOrder(order, total + 1) ?? "")")
        }
    }
}

extension Daemon {
    /// TLS with a CA made by openssl for the test: the bridge connects and publishes; with
    /// another CA the log says why it cannot.
    @Test func tlsWithTheRightCAConnectsAndAWrongOneIsLogged() async throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let other = try TestCertificates()
        defer { other.remove() }
        let broker = try MosquittoProcess(tls: certificates.tls)
        defer { broker.finish() }
        try await broker.start()
        let subscriber = MQTTSubscriber(broker: broker, topics: ["treeline/+/events"], tls: certificates.caFile)
        defer { subscriber.stop() }
        try subscriber.start()
        #expect(await subscriber.waitUntilSubscribed())

        let good = try DaemonProcess(gpsdPort: NMEAFeeder.freePort(), regions: sampleRegions)
        defer { good.finish() }
        try connect(good, to: broker, clientID: "board-tls", extra: "  tls:\n    ca_file: \(certificates.caFile)\n")
        try await good.start()
        let got = await subscriber.waitFor(count: Int(announcedSeqs), topic: "treeline/board-tls/events", within: 20)
        #expect(got.count == Int(announcedSeqs), "the regions' announcements over TLS; log: \(good.logText.suffix(800))")

        let bad = try DaemonProcess(gpsdPort: NMEAFeeder.freePort(), regions: sampleRegions)
        defer { bad.finish() }
        try connect(bad, to: broker, clientID: "board-wrong-ca", extra: "  tls:\n    ca_file: \(other.caFile)\n")
        try await bad.start()
        try await waitFor(within: 20) { bad.logText.contains("certificate verify failed") }
        #expect(json(try bad.client().0.ask(#"{"cmd":"state"}"#))["class"] as? String == "STATE", "the daemon serves its socket all the same")
        #expect(!subscriber.messages.contains { $0.topic.hasPrefix("treeline/board-wrong-ca/") })
    }
}

extension Daemon {
    /// OwnTracks' payloads, as its JSON documentation types them: locations with `acc` > 0 and
    /// the regions the board is in, with `transitions: true` a transition for each enter and exit
    /// of the chosen kinds' circles (each named as Home Assistant names the zone it makes of the
    /// waypoint), the circle regions as waypoints; under `owntracks/<client id>/treeline` by
    /// default.
    @Test func ownTracksPayloadsCarryEveryRequiredFieldWithItsType() async throws {
        let expected = try replayed(walk, regions: sampleRegions)
        let (broker, subscriber) = try await brokerAndSubscriber(topics: ["owntracks/#", "treeline/board-o/events"])
        defer { subscriber.stop(); broker.finish() }
        try await withGPSD(log: walk, linesPerTick: 8, tick: 0.01) { feeder, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try connect(daemon, to: broker, clientID: "board-o",
                        extra: "  owntracks:\n    tid: bo\n    interval_s: 1\n    distance_m: 10\n    kinds: [plant, album]\n    transitions: true\n")
            try await daemon.start()
            try await waitFor(within: 60) { feeder.served >= feeder.count }
            let transitions = expected.filter { e in
                let j = json(e)
                return ["plant", "album"].contains(j["kind"] as? String ?? "") && ["enter", "exit"].contains(j["type"] as? String ?? "")
            }
            _ = await subscriber.waitFor(count: transitions.count, topic: "owntracks/board-o/treeline/event", within: 30)
            // The bridge publishes each event's transition as it publishes the event: once a marker
            // journaled after the walk has come, every transition of the walk has. The marker is a
            // reforestation area far away: no transition, no waypoint of its own.
            let area = #"{"type":"Feature","properties":{"id":"marker-area","kind":"reforestation","name":"Marker","species":["Quercus robur"]},"geometry":{"type":"Polygon","coordinates":[[[-8.30,40.30],[-8.29,40.30],[-8.29,40.31],[-8.30,40.30]]]}}"#
            #expect(try await markEnd(daemon, after: announcedSeqs + Int64(expected.count), subscriber: subscriber, topic: "treeline/board-o/events",
                                      command: #"{"cmd":"add_region","feature":\#(area)}"#))
            let messages = subscriber.messages

            let locations = messages.filter { $0.topic == "owntracks/board-o/treeline" }.map { json($0.payload) }
            #expect(locations.count >= 5, "\(locations.count) locations")
            for l in locations {
                #expect(l["_type"] as? String == "location" && l["tid"] as? String == "bo")
                #expect(l["lat"] is Double && l["lon"] is Double)
                #expect(l["tst"] is Int && (l["acc"] as? Int ?? 0) > 0 && l["alt"] is Int && l["vel"] is Int && l["cog"] is Int, "\(l)")
                #expect(l["inregions"] is [String] && l["inrids"] is [String] && (l["inregions"] as? [String])?.count == (l["inrids"] as? [String])?.count)
            }
            #expect(locations.contains { !($0["inrids"] as? [String] ?? []).isEmpty }, "somewhere inside a plant's or an album's circle")

            let events = messages.filter { $0.topic == "owntracks/board-o/treeline/event" }.map { json($0.payload) }
            #expect(events.count == transitions.count, "\(events.count) transitions for \(transitions.count) enters and exits")
            for (t, e) in zip(events, transitions.map { json($0) }) {
                #expect(t["_type"] as? String == "transition" && t["t"] as? String == "c" && t["tid"] as? String == "bo")
                #expect(t["event"] as? String == (e["type"] as? String == "enter" ? "enter" : "leave"))
                #expect(t["rid"] as? String == e["region"] as? String && t["desc"] as? String == "board-o treeline - " + (e["name"] as? String ?? "?"))
                #expect(t["tst"] is Int && t["wtst"] is Int && (t["acc"] as? Int ?? 0) > 0 && t["lat"] is Double && t["lon"] is Double, "\(t)")
            }

            let waypoints = messages.last { $0.topic == "owntracks/board-o/treeline/waypoints" }.map { json($0.payload) } ?? [:]
            let list = waypoints["waypoints"] as? [[String: Any]] ?? []
            let circles = (json(try daemon.client().0.ask(#"{"cmd":"regions"}"#))["regions"] as? [[String: Any]] ?? [])
                .filter { ["plant", "album"].contains($0["kind"] as? String ?? "") && $0["radius_m"] != nil }
            #expect(waypoints["_type"] as? String == "waypoints" && list.count == circles.count && !list.isEmpty)
            for w in list {
                #expect(w["_type"] as? String == "waypoint" && w["desc"] is String && w["rid"] is String)
                #expect(w["lat"] is Double && w["lon"] is Double && (w["rad"] as? Int ?? 0) > 0 && w["tst"] is Int, "\(w)")
            }
        }
    }
}

extension Daemon {
    /// Three boards (three configs, three gpsd feeds) on one broker: one subscriber sees each
    /// board's events under its topic; a retained `treeline/fleet/regions` reaches all three and
    /// a newer version replaces it; commands with an id are answered with it on `<topic>/reply`.
    @Test func threeBoardsShareFleetRegionsAndAnswerCommands() async throws {
        let expected = try replayed(walk, regions: sampleRegions)
        let (broker, subscriber) = try await brokerAndSubscriber(topics: ["treeline/#"])
        defer { subscriber.stop(); broker.finish() }
        let album = #"{"type":"Feature","properties":{"id":"fleet-album","kind":"album","name":"Crew photos"},"geometry":{"type":"Point","coordinates":[-8.2365,40.2020]}}"#
        let plant = #"{"type":"Feature","properties":{"id":"fleet-plant","kind":"plant","name":"Nursery","interval_days":2},"geometry":{"type":"Point","coordinates":[-8.2370,40.2015]}}"#
        try mosquittoPublish(broker: broker, topic: "treeline/fleet/regions", payload: #"{"type":"FeatureCollection","features":[\#(album)]}"#, retain: true)

        try await withGPSD(log: walk) { _, gpsd1 in
            try await withGPSD(log: walk) { _, gpsd2 in
                try await withGPSD(log: walk) { _, gpsd3 in
                    var boards: [DaemonProcess] = []
                    defer { for b in boards { b.finish() } }
                    for (k, gpsd) in [gpsd1, gpsd2, gpsd3].enumerated() {
                        let d = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
                        boards.append(d)
                        try connect(d, to: broker, clientID: "board-\(k + 1)", extra: "  commands: [state, water]\n  fleet_regions: true\n")
                        try await d.start()
                    }
                    let total = Int(announcedSeqs) + expected.count + 1  // the fleet's album too
                    for k in 1...3 {
                        let topic = "treeline/board-\(k)/events"
                        let got = await subscriber.waitFor(count: total, topic: topic, within: 60)
                        let events = bySeq(got).events
                        #expect(events.count == total, "board-\(k): \(events.count) events")
                        // Each seq exactly once, in order, to a marker after the walk.
                        #expect(try await markEnd(boards[k - 1], after: Int64(total), subscriber: subscriber, topic: topic))
                        let order = arrivals(subscriber.messages, topic: topic)
                        #expect(onceInOrder(order, Int64(total) + 1) == nil, "board-\(k): \(onceInOrder(order, Int64(total) + 1) ?? "")")
                        #expect(events.values.contains { $0.contains(#""region":"fleet-album""#) && $0.contains("region_added") }, "board-\(k)")
                        let walkEvents = events.keys.sorted().compactMap { withoutSeq(events[$0]!)?.event }
                        #expect(firstDifference(walkEvents, expected) == nil, "board-\(k)")
                    }
                    for b in boards {
                        let ids = (json(try b.client().0.ask(#"{"cmd":"regions"}"#))["regions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                        #expect(ids.contains("fleet-album"), "\(ids)")
                    }

                    // A newer version: the album goes, a plant comes.
                    try mosquittoPublish(broker: broker, topic: "treeline/fleet/regions", payload: #"{"type":"FeatureCollection","features":[\#(plant)]}"#, retain: true)
                    for b in boards {
                        let (c, _) = try b.client()
                        try await waitFor(within: 10) {
                            let ids = (json(c.ask(#"{"cmd":"regions"}"#))["regions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                            return ids.contains("fleet-plant") && !ids.contains("fleet-album")
                        }
                    }

                    // A fleet region is the fleet's: a board does not remove it.
                    let refusedRemoval = json(try boards[0].client().0.ask(#"{"cmd":"remove_region","region":"fleet-plant"}"#))
                    #expect((refusedRemoval["message"] as? String)?.contains("comes from the fleet's collection") == true, "\(refusedRemoval)")

                    // Commands: one board's, and the fleet's.
                    try mosquittoPublish(broker: broker, topic: "treeline/board-2/cmd", payload: #"{"id":"q1","cmd":"state"}"#)
                    let reply = await subscriber.waitFor(count: 1, topic: "treeline/board-2/reply", within: 10).first.map { json($0.payload) } ?? [:]
                    #expect(reply["id"] as? String == "q1" && reply["class"] as? String == "STATE", "\(reply)")
                    try mosquittoPublish(broker: broker, topic: "treeline/fleet/cmd", payload: #"{"id":7,"cmd":"water","plant":"fleet-plant"}"#)
                    for k in 1...3 {
                        let replies = await subscriber.waitFor(count: k == 2 ? 2 : 1, topic: "treeline/board-\(k)/reply", within: 10)
                        let watered = replies.map { json($0.payload) }.first { $0["type"] as? String == "watered" } ?? [:]
                        #expect(watered["id"] as? String == "7" && watered["region"] as? String == "fleet-plant", "board-\(k): \(replies)")
                    }
                    try mosquittoPublish(broker: broker, topic: "treeline/board-1/cmd", payload: #"{"id":"bad","cmd":"water"}"#)
                    let refused = await subscriber.waitFor(count: 2, topic: "treeline/board-1/reply", within: 10).map { json($0.payload) }.first { $0["id"] as? String == "bad" } ?? [:]
                    #expect(refused["class"] as? String == "ERROR" && (refused["message"] as? String)?.contains("missing \"plant\"") == true, "\(refused)")
                }
            }
        }
    }
}

extension Daemon {
    /// A broker that is up, gone, or stopped (SIGSTOP: it takes connections and never answers)
    /// costs the socket's subscribers nothing: every event of the walk reaches a socket
    /// subscriber in each case. Prints the fix → socket latency of each (figures, not a gate).
    @Test func aSlowOrAbsentBrokerNeverHoldsUpTheSocket() async throws {
        let expected = try replayed(walk, regions: sampleRegions)
        var figures: [String] = []
        for condition in ["up", "absent", "stopped"] {
            let broker = try MosquittoProcess()
            defer { broker.finish() }
            if condition != "absent" { try await broker.start() }
            try await withGPSD(log: walk, linesPerTick: 4, tick: 0.008) { feeder, gpsd in
                feeder.pause()
                let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
                defer { daemon.finish() }
                try connect(daemon, to: broker, clientID: "board-\(condition)")
                try await daemon.start()
                if condition == "stopped" {
                    try await waitFor(within: 10) { daemon.logText.contains("MQTT: connected") }
                    broker.pause()
                }
                let (c, _) = try daemon.client()
                try await waitFor(within: 20) { (json(c.ask(#"{"cmd":"state"}"#))["gpsd"] as? String)?.hasPrefix("connected") == true }
                _ = c.ask(#"{"cmd":"subscribe","timing":true,"since":\#(announcedSeqs)}"#)
                feeder.resume()
                var latencies: [Double] = []
                var got: [String] = []
                while got.count < expected.count, let line = c.line(timeout: 30) {
                    let now = Double(monotonicNanos())
                    guard let (_, event) = withoutSeq(line) else { continue }
                    got.append(event)
                    if let r = line.range(of: #""received_ns":"#), let received = Double(line[r.upperBound...].prefix { $0.isNumber }) {
                        latencies.append((now - received) / 1e6)
                    }
                }
                #expect(firstDifference(got, expected) == nil, "broker \(condition): \(got.count) events; daemon running: \(daemon.isRunning)")
                latencies.sort()
                if !latencies.isEmpty {
                    let p = { (q: Double) in latencies[min(latencies.count - 1, Int(q * Double(latencies.count)))] }
                    figures.append(String(format: "broker %@: p50 %.2f ms, p99 %.2f ms, max %.2f ms", condition, p(0.5), p(0.99), latencies.last!))
                }
                if condition == "stopped" { broker.resume() }
            }
        }
        print("fix → socket subscriber, \(expected.count) events each: " + figures.joined(separator: "; "))
    }
}

/// Commands over MQTT that anyone on the broker could send: retained ones, repeated ids, ones not
/// in `mqtt.commands`, the broker's ACL, and the fleet's regions' limits.
extension Daemon {
    /// The names of the regions in force (over the socket).
    func regionNames(_ daemon: DaemonProcess) throws -> [String] {
        (json(try daemon.client().0.ask(#"{"cmd":"regions"}"#))["regions"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    /// A retained command (a plant added: visible in the regions and the journal) published
    /// before the daemon starts is not run at start, nor when the broker restarts (the bridge
    /// subscribes again and gets it again), nor at the daemon's restart; each run logs it once.
    @Test func aRetainedCommandIsNeverRun() async throws {
        let (broker, subscriber) = try await brokerAndSubscriber(topics: ["treeline/#"])
        defer { subscriber.stop(); broker.finish() }
        let retained = #"{"id":"r1","cmd":"add_region","kind":"plant","name":"Retained plant","interval_days":3,"at":[40.1,-8.2]}"#
        try mosquittoPublish(broker: broker, topic: "treeline/board-r/cmd", payload: retained, retain: true)
        try await withGPSD(log: walk) { _, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try connect(daemon, to: broker, clientID: "board-r", extra: "  commands: [add_region, state]\n")
            let notice = "a retained message on treeline/board-r/cmd is not run"
            var markers = 0
            for run in 1...2 {
                try await daemon.start()
                try await waitFor(within: 10) { daemon.logText.components(separatedBy: notice).count == run + 1 }
                if run == 1 {
                    broker.stop()
                    try await broker.start()
                    try await waitFor(within: 20) { daemon.logText.components(separatedBy: "MQTT: connected").count == 3 }
                }
                // A live command after the (re)subscription, answered: the retained one, sent
                // to the bridge when it subscribed, was handled before it.
                markers += 1
                #expect(try await liveAnswer(broker, subscriber, topic: "treeline/board-r", id: "marker-\(markers)") != nil, "a live command is answered")
                #expect(daemon.logText.components(separatedBy: notice).count == run + 1, "once per topic and run: \(daemon.logText.suffix(1500))")
                #expect(!(try regionNames(daemon)).contains("Retained plant"))
                let answered = subscriber.messages.filter { $0.topic == "treeline/board-r/reply" }.map { json($0.payload)["id"] as? String ?? "?" }
                #expect(answered.allSatisfy { $0.hasPrefix("marker-") }, "no answer but the markers': the retained one did not run: \(answered)")
                #expect(!subscriber.messages.contains { $0.topic == "treeline/board-r/events" && $0.payload.contains("Retained plant") }, "nothing journaled")
                if run == 1 { #expect(daemon.terminate()?.status == 0) }
            }
            // The same command sent live runs: the topic and the command are taken.
            try mosquittoPublish(broker: broker, topic: "treeline/board-r/cmd", payload: retained.replacingOccurrences(of: "r1", with: "live-1"))
            var patience = Patience()
            while !subscriber.messages.contains(where: { $0.topic == "treeline/board-r/reply" && json($0.payload)["id"] as? String == "live-1" }), patience.waited < 10 {
                await patience.nap(0.02)
            }
            let reply = subscriber.messages.filter { $0.topic == "treeline/board-r/reply" }.map { json($0.payload) }.first { $0["id"] as? String == "live-1" } ?? [:]
            #expect(reply["id"] as? String == "live-1" && reply["class"] as? String != "ERROR", "\(reply)")
            #expect(try regionNames(daemon).filter { $0 == "Retained plant" }.count == 1)
        }
    }

    /// The same id sent twice runs once: the second reply is the first, byte for byte; and again
    /// after the daemon restarts. The ids are kept in the database.
    @Test func aCommandIDRunsOnceAcrossARestart() async throws {
        let (broker, subscriber) = try await brokerAndSubscriber(topics: ["treeline/board-i/reply"])
        defer { subscriber.stop(); broker.finish() }
        let command = #"{"id":"add-once-1","cmd":"add_region","kind":"plant","name":"Once","interval_days":3,"at":[40.1,-8.2]}"#
        try await withGPSD(log: walk) { _, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try connect(daemon, to: broker, clientID: "board-i", extra: "  commands: [add_region]\n")
            try await daemon.start()
            try await waitFor(within: 10) { daemon.logText.contains("MQTT: connected") }
            try await broker.waitForLog("Sending SUBACK to board-i")
            for k in 1...2 {
                try mosquittoPublish(broker: broker, topic: "treeline/board-i/cmd", payload: command)
                _ = await subscriber.waitFor(count: k, within: 10)
            }
            #expect(daemon.terminate()?.status == 0)
            let subscribed = broker.runLogText.components(separatedBy: "Sending SUBACK to board-i").count
            try await daemon.start()
            try await waitFor(within: 10) { daemon.logText.components(separatedBy: "MQTT: connected").count == 3 }
            // Subscribed again (the broker acknowledged it) before the command is sent.
            try await waitFor(within: 10) { broker.runLogText.components(separatedBy: "Sending SUBACK to board-i").count > subscribed }
            try mosquittoPublish(broker: broker, topic: "treeline/board-i/cmd", payload: command)
            let replies = await subscriber.waitFor(count: 3, within: 10).map(\.payload)
            #expect(replies.count == 3, "\(replies)")
            #expect(Set(replies).count == 1, "the same answer each time: \(replies)")
            #expect(json(replies.first)["class"] as? String != "ERROR", "\(replies)")
            #expect(try regionNames(daemon).filter { $0 == "Once" }.count == 1, "run once")
            // A different id runs.
            try mosquittoPublish(broker: broker, topic: "treeline/board-i/cmd", payload: command.replacingOccurrences(of: "add-once-1", with: "add-once-2"))
            // Its answer is the fourth, after the three of the first id: one answer per command sent.
            let all = await subscriber.waitFor(count: 4, within: 10).map { json($0.payload)["id"] as? String ?? "?" }
            #expect(all == ["add-once-1", "add-once-1", "add-once-1", "add-once-2"], "\(all)")
            #expect(try regionNames(daemon).filter { $0 == "Once" }.count == 2)
        }
    }

    /// Rounds and trails from the broker, as from the socket: a round answered, a trail added,
    /// started and listed, and its `trail_started` event published on `<topic>/events` with the
    /// rest of the journal.
    @Test func roundsAndTrailsAreCommandsOverMQTT() async throws {
        let (broker, subscriber) = try await brokerAndSubscriber(topics: ["treeline/board-t/reply", "treeline/board-t/events"])
        defer { subscriber.stop(); broker.finish() }
        try await withGPSD(log: walk) { _, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try connect(daemon, to: broker, clientID: "board-t", extra: "  commands: [round, add_trail, start_trail, trails]\n")
            try await daemon.start()
            try await broker.waitForLog("Sending SUBACK to board-t")
            let (c, _) = try daemon.client()
            try await waitFor(within: 30) { json(c.ask(#"{"cmd":"state"}"#))["last_fix"] is [String: Any] }
            let commands = [
                #"{"id":"r1","cmd":"round","kind":"plant","at":[38.7075,-9.134]}"#,
                #"{"id":"t1","cmd":"add_trail","trail":"crew","checkpoints":["plant-carvalho",{"region":"album-ribeira","action":"capture"}]}"#,
                #"{"id":"t2","cmd":"start_trail","trail":"crew"}"#,
                #"{"id":"t3","cmd":"trails"}"#,
            ]
            for (k, command) in commands.enumerated() {
                try mosquittoPublish(broker: broker, topic: "treeline/board-t/cmd", payload: command)
                _ = await subscriber.waitFor(count: k + 1, topic: "treeline/board-t/reply", within: 10)
            }
            let replies = subscriber.messages.filter { $0.topic == "treeline/board-t/reply" }.map { json($0.payload) }
            #expect(replies.map { $0["id"] as? String } == ["r1", "t1", "t2", "t3"])
            #expect(replies.map { $0["class"] as? String } == ["ROUND", "EVENT", "EVENT", "TRAILS"], "\(replies)")
            #expect((replies[0]["legs"] as? [Any])?.count == 3)
            #expect(replies[2]["type"] as? String == "trail_started")
            #expect((replies[3]["active"] as? [String: Any])?["trail"] as? String == "crew")
            try await waitFor(within: 20) { subscriber.messages.contains { $0.topic == "treeline/board-t/events" && $0.payload.contains(#""type":"trail_started""#) } }
        }
    }

    /// A command not in `mqtt.commands` gets an ERROR naming what is allowed; a bad id too; and
    /// with no commands listed no command topic is subscribed at all.
    @Test func aCommandNotInTheListIsRefused() async throws {
        let (broker, subscriber) = try await brokerAndSubscriber(topics: ["treeline/+/reply"])
        defer { subscriber.stop(); broker.finish() }
        try await withGPSD(log: walk) { _, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try connect(daemon, to: broker, clientID: "board-l", extra: "  commands: [water, state]\n")
            try await daemon.start()
            try await broker.waitForLog("Sending SUBACK to board-l")
            try mosquittoPublish(broker: broker, topic: "treeline/board-l/cmd", payload: #"{"id":"x1","cmd":"export"}"#)
            let refused = await subscriber.waitFor(count: 1, within: 10).first?.payload
            #expect(refused == #"{"id":"x1","class":"ERROR","message":"export is not allowed over MQTT: mqtt.commands allows water, state"}"#)
            try mosquittoPublish(broker: broker, topic: "treeline/fleet/cmd", payload: #"{"id":"\#(String(repeating: "z", count: 200))","cmd":"state"}"#)
            let badID = await subscriber.waitFor(count: 2, within: 10).last.map { json($0.payload) } ?? [:]
            #expect(badID["class"] as? String == "ERROR" && (badID["message"] as? String)?.contains("1 to 128 bytes") == true, "\(badID)")
            try mosquittoPublish(broker: broker, topic: "treeline/board-l/cmd", payload: #"{"id":"s1","cmd":"state"}"#)
            let state = await subscriber.waitFor(count: 3, within: 10).last.map { json($0.payload) } ?? [:]
            #expect(state["class"] as? String == "STATE")
        }
        try await withGPSD(log: walk) { _, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try connect(daemon, to: broker, clientID: "board-n")
            try await daemon.start()
            try await waitFor(within: 10) { daemon.logText.contains("MQTT: connected") }
            // On connecting the bridge unsubscribes each topic it does not take (an earlier run's
            // session may hold it): the five (commands, the fleet's commands and regions, the crew,
            // HA's buttons), acknowledged, settle its subscriptions.
            try await waitFor(within: 10) { broker.runLogText.components(separatedBy: "Sending UNSUBACK to board-n").count == 6 }
            #expect(!broker.runLogText.contains("board-n 0 treeline/board-n/cmd"), "not subscribed")
            try mosquittoPublish(broker: broker, topic: "treeline/board-n/cmd", payload: #"{"id":"n1","cmd":"state"}"#)
            #expect(broker.runLogText.contains("'treeline/board-n/cmd'"), "the broker took the command")
            #expect(!broker.runLogText.split(separator: "\n").contains { $0.contains("Sending PUBLISH to board-n") && $0.contains("'treeline/board-n/cmd'") },
                    "the broker sent the command to no one: the board has no command topic without mqtt.commands")
            #expect(!subscriber.messages.contains { $0.topic == "treeline/board-n/reply" }, "no command topic without mqtt.commands")
        }
    }

    /// The broker's ACL as docs/mqtt.md documents it: a client without the right (a read-only
    /// viewer, another board) cannot publish a command — the board never sees it — while the
    /// operator can; the board still publishes its events, and the operator reads them.
    @Test func theDocumentedACLKeepsCommandsToTheOperator() async throws {
        let page = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/mqtt.md").standardized, encoding: .utf8)
        #expect(page.contains(MosquittoProcess.fleetACL.trimmingCharacters(in: .whitespacesAndNewlines)), "docs/mqtt.md documents this ACL")
        let users = ["operator": "op-\(UUID().uuidString)", "viewer": "v-\(UUID().uuidString)", "board-acl": "b-\(UUID().uuidString)", "board-other": "o-\(UUID().uuidString)"]
        let broker = try MosquittoProcess(users: users, acl: MosquittoProcess.fleetACL)
        defer { broker.finish() }
        try await broker.start()
        let watcher = MQTTSubscriber(broker: broker, topics: ["treeline/#"], username: "operator")
        defer { watcher.stop() }
        try watcher.start()
        #expect(await watcher.waitUntilSubscribed())
        func command(_ id: String) -> String { #"{"id":"\#(id)","cmd":"add_region","kind":"plant","name":"By \#(id)","interval_days":3,"at":[40.1,-8.2]}"# }
        try await withGPSD(log: walk) { _, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try connect(daemon, to: broker, clientID: "board-acl", extra: "  commands: [add_region]\n  fleet_regions: true\n", user: "board-acl")
            try await daemon.start()
            try await broker.waitForLog("Sending SUBACK to board-acl")
            for who in ["viewer", "board-other"] {
                try mosquittoPublish(broker: broker, topic: "treeline/board-acl/cmd", payload: command(who), username: who, password: users[who])
                try mosquittoPublish(broker: broker, topic: "treeline/fleet/cmd", payload: command(who + "-fleet"), username: who, password: users[who])
            }
            try mosquittoPublish(broker: broker, topic: "treeline/board-acl/cmd", payload: command("operator"), username: "operator", password: users["operator"])
            let reply = await watcher.waitFor(count: 1, topic: "treeline/board-acl/reply", within: 10)
            #expect(reply.count == 1 && json(reply.first?.payload)["id"] as? String == "operator", "\(reply)")
            // The others were published before the operator's, and the board answers in order:
            // had one reached it, its answer would have come first.
            #expect(watcher.messages.filter { $0.topic == "treeline/board-acl/reply" }.count == 1, "only the operator's command was answered")
            let names = try regionNames(daemon)
            #expect(names.contains("By operator") && !names.contains { $0.hasPrefix("By viewer") || $0.hasPrefix("By board-other") }, "\(names)")
            #expect(broker.runLogText.contains("Denied PUBLISH from"), "the broker said no")
            #expect(watcher.messages.contains { $0.topic == "treeline/board-acl/events" }, "the board writes its own topics")
        }
    }

    /// Fleet regions within the limits of `FleetRegionLimits`: a 1,000,000-vertex region (over
    /// the message size), a ring over the vertices per ring and a collection over the features
    /// are each refused with the limit named in the log, and the fleet's regions in force stay.
    @Test func fleetRegionsOverTheLimitsAreRefusedAndTheOnesInForceStay() async throws {
        let (broker, subscriber) = try await brokerAndSubscriber(topics: ["treeline/board-f/status"])
        defer { subscriber.stop(); broker.finish() }
        let album = #"{"type":"Feature","properties":{"id":"fleet-album","kind":"album","name":"Crew photos"},"geometry":{"type":"Point","coordinates":[-8.2365,40.2020]}}"#
        func ring(_ n: Int) -> String {
            var text = "["
            text.reserveCapacity(n * 30)
            for k in 0...n {
                let a = 2 * Double.pi * Double(k % n) / Double(n)
                if k > 0 { text += "," }
                text += "[" + String(format: "%.9f,%.9f", -8.2 + 0.01 * cos(a), 40.1 + 0.01 * sin(a)) + "]"
            }
            return text + "]"
        }
        func polygon(_ id: String, vertices: Int) -> String {
            #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"id":"\#(id)","kind":"album","name":"\#(id)"},"geometry":{"type":"Polygon","coordinates":[\#(ring(vertices))]}}]}"#
        }
        let many = (0...10_000).map { #"{"type":"Feature","properties":{"id":"m\#($0)","kind":"album","name":"m"},"geometry":{"type":"Point","coordinates":[-8.2,40.1]}}"# }
        let cases: [(name: String, payload: String, says: String)] = [
            ("a million vertices", polygon("huge", vertices: 1_000_000), "over the limit of 8388608 bytes"),
            ("a long ring", polygon("long", vertices: 100_001), "a ring of 100001 vertices, over the limit of 100000 vertices per ring"),
            ("many features", #"{"type":"FeatureCollection","features":[\#(many.joined(separator: ","))]}"#, "10001 features, over the limit of 10000"),
        ]
        let file = broker.folder.appendingPathComponent("fleet.geojson")
        try await withGPSD(log: walk) { _, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try connect(daemon, to: broker, clientID: "board-f", extra: "  fleet_regions: true\n")
            try await daemon.start()
            try mosquittoPublish(broker: broker, topic: "treeline/fleet/regions", payload: #"{"type":"FeatureCollection","features":[\#(album)]}"#, retain: true)
            try await waitFor(within: 10) { (try? regionNames(daemon).contains("Crew photos")) == true }
            let before = try regionNames(daemon)
            for (k, c) in cases.enumerated() {
                try Data(c.payload.utf8).write(to: file)
                try mosquittoPublish(broker: broker, topic: "treeline/fleet/regions", payload: "", retain: true, timeout: 30, file: file)
                try await waitFor(within: 30) { daemon.logText.components(separatedBy: "fleet regions refused").count == k + 2 }
                #expect(daemon.logText.contains("fleet regions refused, those in force stay: " + c.says) || daemon.logText.contains(c.says), "\(c.name): \(daemon.logText.suffix(600))")
                #expect(try regionNames(daemon) == before, "\(c.name): the fleet regions in force stay")
            }
            #expect(daemon.isRunning)
        }
    }
}
