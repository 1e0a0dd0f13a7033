import Foundation
import Geo
import Protocol
import Rules
import Store
import Synchronization
import Testing
import TestSupport

// The base layer in one record (`Store+BaseLayer`): what one announcement writes, and the
// region events a subscriber asking `base_regions` gets back from it, page by page.

private func announcement(_ n: Int, at s: Int64 = 1) -> Store.BaseAnnouncement {
    Store.BaseAnnouncement(key: "k\(s)", files: ["a.geojson"], kinds: Array(repeating: "plant", count: n), time: lsSeconds(s), kindOf: { _ in "plant" })
}

/// The region events that change means, as an event per region said them: added and
/// updated in file order, then the removals. (type, id, feature or "").
private func expected(_ change: BaseLayerChange) -> [String] {
    let rows = (change.added.map { ($0, "region_added") } + change.updated.map { ($0, "region_updated") }).sorted { $0.0.position < $1.0.position }
    return rows.map { "\($0.1) \($0.0.feature.id) \($0.0.feature.feature)" } + change.removed.map { "region_removed \($0.id) " }
}

/// What a reader that pages through the journal from `cursor` gets, `limit` at a time.
private func readAll(_ store: Store, from cursor: JournalCursor = JournalCursor(seq: 0), filter: EventFilter, limit: Int) throws -> (events: [JournalEvent], pages: Int) {
    var out: [JournalEvent] = []
    var at = cursor
    var pages = 0
    while true {
        let page = try store.page(after: at, filter: filter, limit: limit)
        pages += 1
        #expect(page.events.count <= limit)
        out += page.events
        at = page.next
        if page.atEnd { return (out, pages) }
        #expect(pages < 10_000)
    }
}

/// A derived event as `expected` writes it.
private func described(_ e: JournalEvent) -> String {
    let o = try! JSONSerialization.jsonObject(with: Data(e.entry.json)) as! [String: Any]
    var feature = ""
    if o["feature"] != nil {
        // The feature as written: the text between `"feature":` and the closing brace.
        let text = String(decoding: e.entry.json, as: UTF8.self)
        let start = text.range(of: #","feature":"#)!.upperBound
        feature = String(text[start..<text.index(before: text.endIndex)])
    }
    return "\(e.entry.type) \(e.entry.region) \(feature)"
}

@Suite struct BaseLayerStoreTests {
    /// A first announcement leaves its Features to the writer, which asks for them a stretch at
    /// a time (`featureStretch`): 2.5 stretches of regions read back as the layer, in file order,
    /// each asked for once, and no stretch longer than the limit.
    @Test func aFirstAnnouncementMakesItsFeaturesAStretchAtATime() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            let n = Store.featureStretch * 5 / 2
            let now = (0..<n).map { StoredFeature(id: "p\($0)", feature: lsFeature("p\($0)", radius: 10 + $0 % 80)) }
            let change = BaseLayerChange.firstAnnouncement(ids: now.map(\.id))
            #expect(change.featuresDeferred && change.added.count == n && change.added.allSatisfy { $0.feature.feature.isEmpty })
            // Asked from other threads (each stretch after the first while the one before is
            // written), but one stretch after another, in file order.
            let asked = Mutex<[Range<Int>]>([])
            let record = try store.announceBase(change, announcement(n)) { range in
                asked.withLock { $0.append(range) }
                return now[range].map(\.feature)
            }
            let s = Store.featureStretch
            #expect(asked.withLock { $0 } == [0..<s, s..<2 * s, 2 * s..<n])
            #expect(try store.announcedBase() == now)
            let derived = try readAll(store, from: JournalCursor(seq: record!.seq - 1), filter: EventFilter(baseRegions: true), limit: 1000).events
            #expect(derived.map(described) == ["base_layer  "] + now.map { "region_added \($0.id) \($0.feature)" })
            // Announced again from the same regions: nothing changed, nothing made.
            let again = BaseLayerChange.between(announced: try store.announcedBase(), now: now)
            #expect(again.isEmpty && !again.featuresDeferred)
        }
    }

    /// 300 seeded changes (removed, edited, moved, new regions): each is one record, the layer
    /// reads back as the files say, and the record's region events are exactly the change's.
    @Test func eachChangeIsOneRecordWhoseRegionEventsAreTheChange() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            var rng = SplitMix64(seed: 19)
            var announced: [StoredFeature] = []
            for round in 0..<300 {
                var now = announced.filter { _ in rng.next() % 5 != 0 }
                for k in now.indices where rng.next() % 7 == 0 { now[k].feature = lsFeature(now[k].id, radius: Int(rng.next() % 90 + 10)) }
                if rng.next() % 2 == 0, now.count > 1 {
                    for k in stride(from: now.count - 1, to: 0, by: -1) { now.swapAt(k, Int(rng.next() % UInt64(k + 1))) }
                }
                for _ in 0..<Int(rng.next() % 4) {
                    let id = "r\(round)-\(rng.next() % 1000)"
                    if !now.contains(where: { $0.id == id }) { now.insert(StoredFeature(id: id, feature: lsFeature(id)), at: Int(rng.next() % UInt64(now.count + 1))) }
                }
                let change = BaseLayerChange.between(announced: announced, now: now)
                let before = try store.lastSeq()
                let record = try store.announceBase(change, announcement(now.count, at: Int64(round + 1)))
                announced = try store.announcedBase()
                #expect(announced == now, "round \(round)")
                let touched = !(change.added.isEmpty && change.updated.isEmpty && change.removed.isEmpty)
                #expect((record != nil) == touched, "round \(round): a record only for a change of regions")
                #expect(try store.lastSeq() == before + (touched ? 1 : 0))
                #expect(try store.baseLayerKey() == "k\(round + 1)")
                if let record {
                    let derived = try readAll(store, from: JournalCursor(seq: record.seq - 1), filter: EventFilter(baseRegions: true), limit: 3).events
                    #expect(derived.first?.entry.type == "base_layer" && derived.first?.part == nil)
                    #expect(derived.dropFirst().map(described) == expected(change), "round \(round)")
                    #expect(derived.dropFirst().allSatisfy { $0.seq == record.seq && $0.part != nil })
                }
            }
        }
    }

    @Test func theRecordSaysWhatChangedAndTheRowsGoWithTheRegionState() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            let first = [StoredFeature(id: "oak", feature: lsFeature("oak")), StoredFeature(id: "fig", feature: lsFeature("fig"))]
            let r1 = try #require(try store.announceBase(.between(announced: [], now: first), announcement(2)))
            #expect(r1.seq == 1 && r1.entry.type == "base_layer" && r1.entry.kind == "layer")
            let json = try JSONSerialization.jsonObject(with: Data(r1.entry.json)) as! [String: Any]
            #expect(json["regions"] as? Int == 2 && json["added"] as? Int == 2 && json["updated"] as? Int == 0 && json["removed"] as? Int == 0)
            #expect(json["key"] as? String == "k1" && json["files"] as? [String] == ["a.geojson"])
            try store.commit([], lastFix: nil, regions: [(id: "oak", state: RegionState(inside: true, enteredAt: lsSeconds(2))),
                                                        (id: "fig", state: RegionState(inside: true, enteredAt: lsSeconds(2)))])

            // fig reshaped (and shown with the monitor's watering), oak gone while inside, elm new.
            let second = [StoredFeature(id: "elm", feature: lsFeature("elm")), StoredFeature(id: "fig", feature: lsFeature("fig", radius: 12))]
            var a = announcement(2, at: 3)
            a.shown["fig"] = lsFeature("fig", radius: 13)
            a.inside["oak"] = true
            let r2 = try #require(try store.announceBase(.between(announced: first, now: second), a))
            #expect(r2.seq == 2, "a commit of state alone journals nothing")
            #expect(try store.announcedBase() == second)
            #expect(try store.state().regions.keys.sorted() == ["fig"], "the state of the region removed goes")
            let derived = try readAll(store, from: JournalCursor(seq: 1), filter: EventFilter(baseRegions: true), limit: 256).events
            #expect(derived.map(\.entry.type) == ["base_layer", "region_added", "region_updated", "region_removed"])
            #expect(derived.map(\.entry.region) == ["", "elm", "fig", "oak"])
            #expect(String(decoding: derived[2].entry.json, as: UTF8.self).contains(#""radius_m":13"#), "the Feature the event showed")
            #expect(String(decoding: derived[3].entry.json, as: UTF8.self).hasSuffix(#""layer":"base","inside":true}"#))
            // Without base_regions, the record alone.
            #expect(try store.events(after: 0).map(\.entry.type) == ["base_layer", "base_layer"])
            #expect(try readAll(store, filter: .all, limit: 256).events.map(\.entry.type) == ["base_layer", "base_layer"])

            // A layer that cannot be saved (an id twice) changes nothing and journals nothing.
            let twice = [StoredFeature(id: "ash", feature: lsFeature("ash")), StoredFeature(id: "ash", feature: lsFeature("ash"))]
            #expect(throws: StoreError.self) { _ = try store.announceBase(.between(announced: second, now: twice), announcement(2, at: 4)) }
            #expect(try store.announcedBase() == second)
            #expect(try store.lastSeq() == r2.seq && store.baseLayerKey() == "k3")
            #expect(try store.userRegions().isEmpty && store.usedIDs(layer: "user").isEmpty)
            #expect(try store.usedIDs(layer: "base") == ["oak", "fig", "elm"])
            #expect(try store.regionsAdded() == ["oak": lsSeconds(1), "fig": lsSeconds(1), "elm": lsSeconds(3)])
        }
    }

    /// 1,000 regions read 256 at a time: the pages cross the record's events and the events
    /// around it, every event comes once and in order, from any place a reader stopped at.
    @Test func pagesCrossTheRecordsEventsAndResumeFromAnyPart() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            try store.commit([lsEvent(1, "enter", "x")], lastFix: nil, regions: [])
            let layer = (0..<1_000).map { StoredFeature(id: "p\($0)", feature: lsFeature("p\($0)")) }
            let record = try #require(try store.announceBase(.between(announced: [], now: layer), announcement(1_000, at: 2)))
            try store.commit([lsEvent(3, "exit", "x"), lsEvent(4, "enter", "x")], lastFix: nil, regions: [])
            let all = try readAll(store, filter: EventFilter(baseRegions: true), limit: 256)
            #expect(all.events.count == 1 + 1 + 1_000 + 2)
            #expect(all.pages == 5, "4 full pages and the one that finds the end")
            #expect(all.events.map(\.entry.type) == ["enter", "base_layer"] + Array(repeating: "region_added", count: 1_000) + ["exit", "enter"])
            #expect(all.events[2...1_001].map(\.entry.region) == layer.map(\.id))
            let parts = all.events.compactMap(\.part)
            #expect(parts == parts.sorted() && Set(parts).count == 1_000)
            // From any event on, a reader gets the rest, once each (after event 904 exactly a page
            // of 97 of the record is left: the events after the record come on the next page).
            for k in [0, 1, 2, 255, 256, 700, 904, 1_001, 1_002, 1_003] {
                let e = all.events[k]
                let rest = try readAll(store, from: JournalCursor(seq: e.seq, part: e.part ?? (e.entry.type == "base_layer" ? 0 : nil)),
                                       filter: EventFilter(baseRegions: true), limit: 97).events
                #expect(rest.map(described) == all.events[(k + 1)...].map(described), "after event \(k)")
            }
            // Filters apply to the region events as to any: a kind, a region, a type.
            let one = try readAll(store, filter: EventFilter(regions: ["p512"], baseRegions: true), limit: 256).events
            #expect(one.map(\.entry.type) == ["region_added"] && one[0].seq == record.seq)
            let none = try readAll(store, filter: EventFilter(types: ["region_removed"], baseRegions: true), limit: 256).events
            #expect(none.isEmpty)
            let plants = try readAll(store, filter: EventFilter(kinds: ["plant"], baseRegions: true), limit: 256).events
            #expect(plants.count == 1_003 && !plants.contains { $0.entry.type == "base_layer" })
        }
    }

    /// Retention keeps a record whose regions are in force; one whose regions were all replaced
    /// goes, with its rows.
    @Test func pruneKeepsTheRecordsOfTheLayerInForce() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            let v1 = [StoredFeature(id: "a", feature: lsFeature("a")), StoredFeature(id: "b", feature: lsFeature("b"))]
            _ = try store.announceBase(.between(announced: [], now: v1), announcement(2, at: 1))
            let v2 = [StoredFeature(id: "a", feature: lsFeature("a", radius: 5)), StoredFeature(id: "b", feature: lsFeature("b", radius: 5))]
            _ = try store.announceBase(.between(announced: v1, now: v2), announcement(2, at: 2))
            let v3 = [StoredFeature(id: "a", feature: lsFeature("a", radius: 6)), StoredFeature(id: "b", feature: lsFeature("b", radius: 5))]
            _ = try store.announceBase(.between(announced: v2, now: v3), announcement(2, at: 3))
            let r = try store.prune(journalBefore: lsSeconds(100), trackBefore: lsSeconds(0), keeping: [], now: lsSeconds(200))
            #expect(r.events == 1, "record 1: all its rows replaced")
            #expect(try store.events(after: 0).map(\.seq) == [2, 3])
            let derived = try readAll(store, filter: EventFilter(baseRegions: true), limit: 256).events
            #expect(derived.map { "\($0.seq) \($0.entry.type) \($0.entry.region)" } == [
                "2 base_layer ", "2 region_updated a", "2 region_updated b", "3 base_layer ", "3 region_updated a"])
            #expect(try store.announcedBase() == v3)
        }
    }

    /// A region removed from the files, its removal pruned: read from seq 0 with base_regions,
    /// the record that added it no longer announces it (the layer rebuilt is the one in force),
    /// and its id is never given to a runtime region.
    @Test func aRemovalPrunedTakesTheRegionsAnnouncementWithIt() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            let v1 = [StoredFeature(id: "x", feature: lsFeature("x")), StoredFeature(id: "y", feature: lsFeature("y"))]
            _ = try store.announceBase(.between(announced: [], now: v1), announcement(2, at: 1))
            let v2 = [StoredFeature(id: "y", feature: lsFeature("y"))]
            _ = try store.announceBase(.between(announced: v1, now: v2), announcement(1, at: 2))
            let r = try store.prune(journalBefore: lsSeconds(100), trackBefore: lsSeconds(0), keeping: [], now: lsSeconds(200))
            #expect(r.events == 1 && r.prunedThrough == 2, "the removal's record goes; the first stays (y is in force)")
            let derived = try readAll(store, filter: EventFilter(baseRegions: true), limit: 256).events
            #expect(derived.map { "\($0.seq) \($0.entry.type) \($0.entry.region)" } == ["1 base_layer ", "1 region_added y"])
            #expect(try store.usedIDs(layer: "base") == ["x", "y"], "x stays a used id")
        }
    }
}
