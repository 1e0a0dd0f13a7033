import Config
import Geo
import Server
import Testing
@testable import Daemon
import Regions
import enum Protocol.Command

/// `MQTTCommands` on its own: what is run, what is refused and how the reply says it.
@Suite struct MQTTCommandChecks {
    let commands = MQTTCommands(allowed: ["water", "add_region"], topic: "treeline/b7")

    func refusal(_ payload: String) -> MQTTCommands.Refusal? {
        if case .failure(let r) = commands.check(Array(payload.utf8)) { return r }
        return nil
    }

    @Test func anAllowedCommandWithAnIDIsLetThroughUnderItsScopedKey() throws {
        let accepted = try commands.check(Array(#"{"id":"q1","cmd":"water","plant":"p"}"#.utf8)).get()
        #expect(accepted == MQTTCommands.Accepted(request: .water(plant: "p"), key: "mqtt:q1", id: "q1"))
        #expect(try commands.check(Array(#"{"id":7,"cmd":"water","plant":"p"}"#.utf8)).get().key == "mqtt:7")
    }

    @Test func aCommandNotInTheListIsRefusedNamingTheList() {
        let r = refusal(#"{"id":"x","cmd":"export"}"#)
        #expect(r?.id == "x" && r?.message == "export is not allowed over MQTT: mqtt.commands allows water, add_region")
        let reply = String(decoding: r?.reply ?? [], as: UTF8.self)
        #expect(reply == #"{"id":"x","class":"ERROR","message":"export is not allowed over MQTT: mqtt.commands allows water, add_region"}"#)
        #expect(refusal(#"{"id":"x","cmd":"undo_tree"}"#)?.message.hasPrefix("undo_tree is not allowed") == true)
        #expect(refusal(#"{"id":"x","cmd":"subscribe"}"#)?.message.contains("not allowed over MQTT") == true)
        let none = MQTTCommands(allowed: [], topic: "t")
        if case .failure(let r) = none.check(Array(#"{"id":"x","cmd":"state"}"#.utf8)) { #expect(r.message.hasSuffix("mqtt.commands allows none")) } else { Issue.record("ran") }
    }

    @Test func aMissingOrBadIDIsRefused() {
        #expect(refusal(#"{"cmd":"water","plant":"p"}"#)?.message.contains("needs an \"id\"") == true)
        let long = String(repeating: "a", count: 129)
        let r = refusal(#"{"id":"\#(long)","cmd":"water","plant":"p"}"#)
        #expect(r?.id == nil && r?.message.contains("1 to 128 bytes") == true, "the long id is not echoed")
        #expect(refusal(#"{"id":"a\u0001","cmd":"water","plant":"p"}"#)?.message.contains("printable") == true)
        #expect(refusal(#"{"id":"q","cmd":"water"}"#)?.message.contains("missing \"plant\"") == true)
    }

    @Test func aRetainedMessageIsToldOncePerTopic() {
        var c = commands
        #expect(c.retained(on: "treeline/b7/cmd")?.contains("treeline/b7/cmd") == true)
        #expect(c.retained(on: "treeline/b7/cmd") == nil)
        #expect(c.retained(on: "treeline/fleet/cmd") != nil)
    }

    @Test func theNamesAreTheSocketsButSubscribe() {
        #expect(Set(MQTTConfig.commandNames + ["subscribe"]) == Set(Command.commands) && MQTTConfig.commandNames.count + 1 == Command.commands.count)
        #expect(Command.removeTree(id: nil).name == "undo_tree" && Command.removeTree(id: 3).name == "remove_tree")
    }
}

/// The fleet's regions within limits: each limit named when it is gone over.
@Suite struct FleetRegionLimitChecks {
    let limits = FleetRegionLimits(bytes: 1000, features: 2, ringsPerPolygon: 2, verticesPerRing: 4, vertices: 6)

    func polygon(_ id: String, rings: Int, vertices: Int) -> Region {
        let ring = (0..<vertices).map { Coordinate(latitude: Double($0), longitude: 0) }
        return Region(id: id, kind: .album, name: id, shape: .polygons([Array(repeating: ring, count: rings)]))
    }

    @Test func eachLimitIsNamed() {
        #expect(limits.problem(bytes: 1000) == nil)
        #expect(limits.problem(bytes: 1001)?.contains("over the limit of 1000 bytes") == true)
        let circle = Region(id: "c", kind: .album, name: "c", shape: .circle(center: Coordinate(latitude: 0, longitude: 0), radius: 5))
        #expect(limits.problem([circle, circle, circle])?.contains("3 features, over the limit of 2") == true)
        #expect(limits.problem([polygon("a", rings: 3, vertices: 3)])?.contains("over the limit of 2 rings per polygon") == true)
        #expect(limits.problem([polygon("a", rings: 1, vertices: 5)])?.contains("over the limit of 4 vertices per ring") == true)
        #expect(limits.problem([polygon("a", rings: 1, vertices: 4), polygon("b", rings: 1, vertices: 4)])?.contains("over 6 vertices in all") == true)
        #expect(limits.problem([polygon("a", rings: 2, vertices: 3)]) == nil)
    }

    /// Counted on the JSON, before a region is built: a ring over the limit costs its parsing only.
    @Test func theMessageIsCountedBeforeItsRegionsAreBuilt() {
        func collection(_ features: [String]) -> [UInt8] { Array(#"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#.utf8) }
        func polygon(_ id: String, _ ring: String, rings: Int = 1) -> String {
            #"{"type":"Feature","properties":{"id":"\#(id)","kind":"album","name":"x"},"geometry":{"type":"Polygon","coordinates":[\#(Array(repeating: ring, count: rings).joined(separator: ","))]}}"#
        }
        let three = "[[0,0],[1,0],[1,1],[0,0]]", four = "[[0,0],[1,0],[1,1],[0,1],[0,0]]", five = "[[0,0],[1,0],[1,1],[0,1],[0,0.5],[0,0]]"
        #expect(limits.problem(document: collection([polygon("a", four)])) == nil, "4 vertices: the closing position repeats the first")
        #expect(limits.problem(document: collection([polygon("a", five)])) == "feature 0 (region a): a ring of 5 vertices, over the limit of 4 vertices per ring")
        #expect(limits.problem(document: collection([polygon("a", three, rings: 3)]))?.contains("a polygon of 3 rings, over the limit of 2 rings per polygon") == true)
        #expect(limits.problem(document: collection([polygon("a", three), polygon("b", four)])) == "feature 1 (region b): over 6 vertices in all")
        #expect(limits.problem(document: collection(Array(repeating: polygon("a", three), count: 3))) == "3 features, over the limit of 2")
        #expect(limits.problem(document: Array("not json".utf8)) == nil, "left to the reader, which says where")
    }
}
