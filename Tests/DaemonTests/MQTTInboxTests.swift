import Testing
@testable import Daemon

/// `MQTTInbox`: each kind bounded on its own, so that a flood of one never costs another its
/// place, and nothing waits without bound.
@Suite struct MQTTInboxBounds {
    let command = Array(#"{"id":"q1","cmd":"state"}"#.utf8)

    @Test func aCrewFloodNeverCostsACommandItsPlace() {
        var inbox = MQTTInbox()
        for i in 0..<50_000 { inbox.take("owntracks/evil/d\(i)", Array("{}".utf8), retained: false, kind: .crew) }
        inbox.take("treeline/b/cmd", command, retained: false, kind: .other)
        let got = inbox.drain()
        #expect(got.messages.map(\.topic) == ["treeline/b/cmd"] && got.messages[0].payload == command)
        #expect(got.crew.count == MQTTInbox.maxCrewTopics && got.dropped == 50_000 - MQTTInbox.maxCrewTopics)
        // Drained: empty again.
        let again = inbox.drain()
        #expect(again.messages.isEmpty && again.crew.isEmpty && again.dropped == 0)
    }

    @Test func theLatestCrewLocationOfATopicWins() {
        var inbox = MQTTInbox()
        for i in 0..<1_000 { inbox.take("owntracks/b/treeline", Array("\(i)".utf8), retained: false, kind: .crew) }
        inbox.take("owntracks/c/treeline", Array(repeating: 0x20, count: 4_097), retained: false, kind: .crew)
        let got = inbox.drain()
        #expect(got.crew == ["owntracks/b/treeline": Array("999".utf8)] && got.dropped == 1)
    }

    /// The board's own configs come back live: not kept. Retained ones are, as topics only; a
    /// cleared one is forgotten.
    @Test func configsAreTopicsOfRetainedOnes() {
        var inbox = MQTTInbox()
        for i in 0..<2_000 { inbox.take("homeassistant/button/b/water_\(i)/config", Array("{}".utf8), retained: false, kind: .config) }
        inbox.take("homeassistant/button/b/water_x/config", Array("{}".utf8), retained: true, kind: .config)
        inbox.take("homeassistant/button/b/water_y/config", Array("{}".utf8), retained: true, kind: .config)
        inbox.take("homeassistant/button/b/water_y/config", [], retained: true, kind: .config)
        let got = inbox.drain()
        #expect(got.configs == ["homeassistant/button/b/water_x/config"] && got.messages.isEmpty && got.dropped == 0)
    }

    /// Commands beyond 256 waiting, or 16 MiB, are dropped and counted; one over 1 MiB is kept as
    /// its size, to be refused with it; the fleet's regions keep only the latest.
    @Test func commandsAreBoundedInCountAndBytes() {
        var inbox = MQTTInbox()
        for _ in 0..<300 { inbox.take("treeline/b/cmd", command, retained: false, kind: .other) }
        var got = inbox.drain()
        #expect(got.messages.count == MQTTInbox.maxMessages && got.dropped == 300 - MQTTInbox.maxMessages)
        inbox.take("treeline/b/cmd", Array(repeating: 0x20, count: 9 << 20), retained: false, kind: .other)
        inbox.take("treeline/fleet/regions", Array("a".utf8), retained: true, kind: .latest(limit: 8 << 20))
        inbox.take("treeline/fleet/regions", Array("b".utf8), retained: true, kind: .latest(limit: 8 << 20))
        inbox.take("treeline/fleet/regions", Array(repeating: 0x20, count: (8 << 20) + 1), retained: true, kind: .latest(limit: 8 << 20))
        got = inbox.drain()
        #expect(got.messages.count == 2)
        #expect(got.messages[0].payload.isEmpty && got.messages[0].oversized == 9 << 20)
        #expect(got.messages[1].topic == "treeline/fleet/regions" && got.messages[1].payload.isEmpty && got.messages[1].oversized == (8 << 20) + 1)
        inbox.take("treeline/b/" + String(repeating: "t", count: 600), command, retained: false, kind: .other)
        #expect(inbox.drain().dropped == 1)
        // 1 MiB each, 16 MiB in all: the 17th is dropped.
        for _ in 0..<17 { inbox.take("treeline/b/cmd", Array(repeating: 0x20, count: 1 << 20), retained: false, kind: .other) }
        got = inbox.drain()
        #expect(got.messages.count == 16 && got.dropped == 1)
    }
}
