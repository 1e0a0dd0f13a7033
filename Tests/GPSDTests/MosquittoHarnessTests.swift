import Foundation
import IntegrationSupport
import Testing

/// The MQTT harness itself (MosquittoProcess, MQTTSubscriber, mosquittoPublish) against Debian's
/// mosquitto 2.0.11: what the MQTT bridge's integration tests rely on.
@Suite(.serialized) struct MosquittoHarness {
    @Test func publishSubscribeRestartRetainAndRefusal() async throws {
        let broker = try MosquittoProcess()
        defer { broker.finish() }
        // Started before the broker: mosquitto_sub exits (connection refused) and is started again.
        let sub = MQTTSubscriber(broker: broker, topics: ["t/#"])
        defer { sub.stop() }
        try sub.start()
        var patience = Patience()
        while sub.runs < 2, patience.waited < 10 { await patience.nap(0.05) }
        #expect(sub.runs >= 2)
        try await broker.start()
        #expect(await sub.waitUntilSubscribed(), "no SUBACK; broker log:\n\(broker.runLogText)")

        for k in 1...3 { try mosquittoPublish(broker: broker, topic: "t/\(k)", payload: "{\"k\":\(k)}") }
        let first = await sub.waitFor(count: 3, topic: "t/")
        #expect(first.map(\.topic) == ["t/1", "t/2", "t/3"])
        #expect(first.map(\.payload) == ["{\"k\":1}", "{\"k\":2}", "{\"k\":3}"])

        // A crash: nothing persisted, the session is gone; mosquitto_sub comes back (by itself or
        // started again) and subscribes anew.
        broker.kill()
        #expect(!broker.isRunning)
        try await broker.start()
        #expect(await sub.waitUntilSubscribed(), "no SUBACK after the restart; broker log:\n\(broker.runLogText)")
        for k in 4...5 { try mosquittoPublish(broker: broker, topic: "t/\(k)", payload: "{\"k\":\(k)}") }
        // Waited for by the last topic (in order after t/4), not by a count: see t/6 below.
        _ = await sub.waitFor(count: 1, topic: "t/5")
        let five = sub.messages.filter { $0.topic.hasPrefix("t/") }
        #expect(Set(five.map(\.payload)) == Set((1...5).map { "{\"k\":\($0)}" }), "\(five)")

        // A clean stop persists the retained message and the subscriber's session: a message
        // published before the subscriber is back is queued for it.
        try mosquittoPublish(broker: broker, topic: "r/state", payload: "{\"retained\":true}", retain: true)
        broker.stop()
        #expect(FileManager.default.fileExists(atPath: broker.folder.appendingPathComponent("mosquitto.db").path), "\(broker.logText)")
        try await broker.start()
        try mosquittoPublish(broker: broker, topic: "t/6", payload: "{\"k\":6}")
        // Waited for by its topic, not by a count: QoS 1 is at least once, and across these
        // restarts a message may come twice (t/5 did, on a loaded machine), so six messages need
        // not include t/6.
        let six = await sub.waitFor(count: 1, topic: "t/6")
        let seen = sub.messages.filter { $0.topic.hasPrefix("t/") }
        #expect(six.first?.payload == "{\"k\":6}", "\(seen)")

        let late = MQTTSubscriber(broker: broker, topics: ["r/#"])
        defer { late.stop() }
        try late.start()
        let retained = await late.waitFor(count: 1, topic: "r/")
        #expect(retained.first?.topic == "r/state")
        #expect(retained.first?.payload == "{\"retained\":true}")

        // A wrong password: mosquitto_pub fails.
        #expect {
            try mosquittoPublish(broker: broker, topic: "t/7", payload: "{}", password: "wrong")
        } throws: { error in
            (error as? MosquittoClientError).map { $0.status != 0 } ?? false
        }

        // A paused broker answers nothing: mosquitto_pub is killed after its timeout.
        broker.pause()
        #expect(broker.isPaused && broker.isRunning)
        #expect(throws: MosquittoClientError.self) {
            try mosquittoPublish(broker: broker, topic: "t/paused", payload: "{}", timeout: 1)
        }
        broker.resume()
        #expect(!broker.isPaused)
        try mosquittoPublish(broker: broker, topic: "t/8", payload: "{\"k\":8}")
        #expect(await sub.waitFor(count: 1, topic: "t/8").map(\.payload) == ["{\"k\":8}"])
        #expect(broker.logText.contains("u'\(broker.username)'"))
    }

    @Test func tls() async throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let broker = try MosquittoProcess(users: ["bridge": "pw-\(UUID().uuidString)", "treeline": "secret-\(UUID().uuidString)"],
                                          tls: certificates.tls)
        defer { broker.finish() }
        try await broker.start()
        #expect(broker.username == "treeline")
        let sub = MQTTSubscriber(broker: broker, topics: ["s/#"])
        defer { sub.stop() }
        try sub.start()
        #expect(await sub.waitUntilSubscribed(), "no SUBACK; broker log:\n\(broker.runLogText)")
        try mosquittoPublish(broker: broker, topic: "s/1", payload: "{\"tls\":1}", username: "bridge", password: broker.users["bridge"])
        #expect(await sub.waitFor(count: 1).map(\.payload) == ["{\"tls\":1}"])
    }
}
