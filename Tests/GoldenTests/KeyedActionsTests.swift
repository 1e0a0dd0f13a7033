import Engine
import Foundation
import Geo
import Logging
import Protocol
import Regions
import Rules
import Server
import Store
import Testing
import Web

/// Actions with an idempotency key and with `ago_s`, on a real engine and journal (the golden
/// world: a plant, an album and an area, five fixes from 09:00:00 to 09:00:04 walking into them).
@Suite(.serialized) struct KeyedActions {
    func text(_ r: Result<KeyedAnswer, CommandError>) -> String {
        switch r {
        case .success(.ran(.success(let b))): "ran " + String(decoding: b, as: UTF8.self)
        case .success(.ran(.failure(let e))): "refused " + e.message
        case .success(.repeated(let b)): "repeated " + String(decoding: b, as: UTF8.self)
        case .failure(let e): "failed " + e.message
        }
    }

    func waterings(_ store: Store) throws -> [String] {
        try store.events(after: 0, filter: EventFilter(), limit: 1000).filter { $0.entry.type == "watered" }.map { String(decoding: $0.entry.json, as: UTF8.self) }
    }

    @Test func aKeyRunsItsChangeOnceAndIsTiedToItsRequest() async throws {
        let world = try await GoldenWorld.make()
        defer { world.remove() }
        let e = world.engine
        let first = text(await e.answer(.water(plant: "plant-a"), key: "web:k1"))
        #expect(first.hasPrefix("ran "))
        // The same request again, even with another ago_s (a retry that waited longer): the first answer.
        #expect(text(await e.answer(.water(plant: "plant-a", ago: 30), key: "web:k1")) == "repeated " + first.dropFirst(4))
        #expect(try waterings(world.store).count == 1)
        // The same key on another request is another key: it runs, and never gets the first answer.
        let other = text(await e.answer(.undoWater(plant: "plant-a"), key: "web:k1"))
        #expect(other.hasPrefix("ran "), "\(other)")
        // Another source's key of the same name is another key.
        #expect(text(await e.answer(.water(plant: "plant-a"), key: "mqtt:k1")).hasPrefix("ran "))
        #expect(try waterings(world.store).count == 2)
        // A read with a key is answered, not recorded.
        #expect(text(await e.answer(.state, key: "web:k2")).hasPrefix("ran {\"class\":\"STATE\""))
        #expect(text(await e.answer(.state, key: "web:k2")).hasPrefix("ran "))
    }

    /// A watering done a minute ago is recorded at the board's time minus a minute: the last
    /// fix's time carried on by the monotonic clock, not any wall clock.
    @Test func aWateringAMinuteAgoIsRecordedThen() async throws {
        let world = try await GoldenWorld.make()
        defer { world.remove() }
        let event = try await world.engine.water(plant: "plant-a", ago: 60).get()
        let lastFix = UTCTime(year: 2026, month: 5, day: 1, nanosOfDay: (9 * 3600 + 4) * 1_000_000_000)!
        let offset = Double(event.entry.time.nanoseconds - lastFix.nanoseconds) / 1e9
        #expect(offset >= -60 && offset < -55, "recorded \(offset) s from the last fix")
        // One done before the watering now recorded adds nothing, and says so.
        let earlier = await world.engine.water(plant: "plant-a", ago: 120)
        guard case .failure(let refusal) = earlier else { Issue.record("an earlier watering was recorded"); return }
        #expect(refusal.message.contains("has a later watering recorded"))
        #expect(!refusal.retryLater)
    }

    /// A capture taken 2 s ago is recorded where the track says the board was then; one from
    /// an hour ago, when the board had no fix near, is refused with why.
    @Test func aCaptureIsPlacedByTheTrack() async throws {
        let world = try await GoldenWorld.make()
        defer { world.remove() }
        let answer = try await world.engine.capture(album: "album-a", file: nil, note: nil, ago: 2).get()
        let o = try #require(try JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any])
        let capture = try #require(o["capture"] as? [String: Any], "\(o)")
        let lat = try #require(capture["lat"] as? Double)
        #expect(lat >= 40.1 && lat <= 40.1 + 4 * 2e-6 + 1e-9, "a point of the walk: \(lat)")
        let old = await world.engine.capture(album: "album-a", file: nil, note: nil, ago: 3600)
        guard case .failure(let refusal) = old else { Issue.record("a capture an hour before any fix was recorded"); return }
        #expect(refusal.message.contains("no fix within 45 s"))
    }

    /// After a restart, before its first fix, the board cannot tell its time: an action done a
    /// while ago is refused for now (retry later), never placed at the fix from before the stop.
    @Test func beforeTheFirstFixAfterARestartAgoWaits() async throws {
        let world = try await GoldenWorld.make()
        defer { world.remove() }
        var logger = Logger(label: "keyed")
        logger.logLevel = .critical
        let regions = try RegionFile.parse(Array(GoldenWorld.regions.utf8), file: "golden.geojson")
        let again = try Engine(store: world.store, base: regions.map { ($0, "golden.geojson") }, config: MonitorConfig(),
                               retention: Retention(journalDays: 36_500, trackDays: 36_500), hub: Hub(), version: "golden",
                               logger: logger, onStatus: { _ in })
        try await again.start()
        let water: Result<[UInt8], CommandError> = await again.water(plant: "plant-a", ago: 5).map { _ in [] }
        let capture = await again.capture(album: "album-a", file: nil, note: nil, ago: 5)
        let plant = await again.plant(species: "Quercus robur", area: nil, at: nil, project: nil, planted: nil, ago: 5)
        for r in [water, capture, plant] {
            guard case .failure(let e) = r else { Issue.record("done before a fix"); continue }
            #expect(e.retryLater, "\(e.message)")
            #expect(e.message.contains("no fix since it started"))
        }
        // Without ago_s a watering is now, as before.
        let now = await again.water(plant: "plant-a")
        #expect((try? now.get()) != nil, "\(now)")
    }
}
