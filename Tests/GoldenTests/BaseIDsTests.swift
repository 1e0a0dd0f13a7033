import Engine
import Foundation
import Geo
import Logging
import Regions
import Rules
import Server
import Store
import Testing

/// A base region's id is never given to a region added at runtime: not while the files have it,
/// nor once they no longer do, whether it went while the engine was stopped or by a reload, and
/// after any restart. The engine holds the ids used besides the base layer in force
/// (`Store.usedIDsBesideTheBaseLayer`) and asks the layer itself for the rest.
struct BaseIDsTests {
    static let features = [
        #"{"type":"Feature","properties":{"id":"plant-a","kind":"plant","name":"Oak","interval_days":3},"geometry":{"type":"Point","coordinates":[-8.2400,40.1000]}}"#,
        #"{"type":"Feature","properties":{"id":"plant-b","kind":"plant","name":"Ash","interval_days":3},"geometry":{"type":"Point","coordinates":[-8.2410,40.1000]}}"#,
        #"{"type":"Feature","properties":{"id":"plant-c","kind":"plant","name":"Elm","interval_days":3},"geometry":{"type":"Point","coordinates":[-8.2420,40.1000]}}"#,
    ]

    static func layer(_ ids: [String]) throws -> [(region: Region, file: String)] {
        let text = #"{"type":"FeatureCollection","features":["# + features.filter { f in ids.contains { f.contains("\"\($0)\"") } }.joined(separator: ",") + "]}"
        return try RegionFile.parse(Array(text.utf8), file: "base.geojson").map { ($0, "base.geojson") }
    }

    static func engine(_ store: Store, _ ids: [String]) async throws -> Engine {
        var logger = Logger(label: "base-ids")
        logger.logLevel = .critical
        let e = try Engine(store: store, base: try layer(ids), config: MonitorConfig(), retention: Retention(journalDays: 36_500, trackDays: 36_500),
                           hub: Hub(), version: "test", logger: logger, onStatus: { _ in })
        try await e.start()
        return e
    }

    /// The refusal of a runtime region named `id`, or "" when it was added.
    static func refusal(_ e: Engine, _ id: String) async -> String {
        let r = #"{"type":"Feature","properties":{"id":"\#(id)","kind":"album","name":"A"},"geometry":{"type":"Point","coordinates":[-8.24,40.1]}}"#
        let region = try! RegionFile.parse(Array(#"{"type":"FeatureCollection","features":[\#(r)]}"#.utf8), file: "cmd")[0]
        switch await e.addRegion(.feature(region)) {
        case .success: return ""
        case .failure(let error): return error.message
        }
    }

    @Test func aBaseIDIsNeverGivenToARuntimeRegion() async throws {
        let folder = NSTemporaryDirectory() + "treeline-base-ids-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try Store(path: folder + "/treeline.sqlite")
        let first = try await Self.engine(store, ["plant-a", "plant-b", "plant-c"])
        #expect(await Self.refusal(first, "plant-b").contains("is taken by a region of base.geojson"))
        // plant-b gone from the files while stopped.
        let second = try await Self.engine(store, ["plant-a", "plant-c"])
        #expect(await Self.refusal(second, "plant-b").contains("ids are never given again"))
        #expect(await Self.refusal(second, "plant-c").contains("is taken by a region of base.geojson"))
        // plant-c gone by a reload.
        let (user, version) = await second.userLayerInForce()
        let plan = try Engine.prepare(base: try Self.layer(["plant-a"]), user: user, regionsVersion: version, config: MonitorConfig(), store: store)
        guard case .success = await second.reload(plan, config: MonitorConfig(), retention: Retention(journalDays: 36_500, trackDays: 36_500)) else {
            Issue.record("the reload failed")
            return
        }
        #expect(await Self.refusal(second, "plant-c").contains("ids are never given again"))
        #expect(await Self.refusal(second, "plant-b").contains("ids are never given again"))
        // After a restart on the same files: both still refused, plant-a still a file's, and a
        // fresh id is taken.
        let third = try await Self.engine(store, ["plant-a"])
        #expect(await Self.refusal(third, "plant-b").contains("ids are never given again"))
        #expect(await Self.refusal(third, "plant-c").contains("ids are never given again"))
        #expect(await Self.refusal(third, "plant-a").contains("is taken by a region of base.geojson"))
        #expect(await Self.refusal(third, "album-new").isEmpty)
        #expect(await Self.refusal(third, "album-new").contains("is taken by a region added before"))
    }
}
