import Foundation
import Geo
import Rules
import Store
import Testing
import TestSupport

// The two layers of regions (Store+Regions.swift), captures and the track (Store+Records.swift),
// retention (Store+Retention.swift), trees' removal and projects, on a real SQLite file.
// `withStoreFile` and `entry` come from StoreTests.swift.

func lsFeature(_ id: String, radius: Int = 30) -> String {
    #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-8.24,40.1]},"properties":{"id":"\#(id)","kind":"plant","name":"\#(id)","radius_m":\#(radius),"interval_days":3}}"#
}

func lsSeconds(_ s: Int64) -> UTCTime { UTCTime(nanoseconds: s * 1_000_000_000) }

/// A journal entry at `s` seconds.
func lsEvent(_ s: Int64, _ type: String, _ region: String) -> JournalEntry {
    JournalEntry(time: lsSeconds(s), type: type, region: region, kind: "plant",
                 json: Array(#"{"time":"\#(s)","type":"\#(type)","region":"\#(region)"}"#.utf8))
}

@Suite struct LayerStoreUserLayer {
    @Test func addStoresTheRegionAndItsEventWithConsecutiveSeqs() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            try store.commit([entry(1)], lastFix: nil, regions: [])
            let a = try store.apply(.add(id: "basil", feature: lsFeature("basil")), event: lsEvent(2, "region_added", "basil"))
            let b = try store.apply(.add(id: "mint", feature: lsFeature("mint")), event: lsEvent(3, "region_added", "mint"))
            #expect([a.seq, b.seq] == [2, 3])
            #expect(a.entry == lsEvent(2, "region_added", "basil"))
            #expect(try store.userRegions() == [StoredFeature(id: "basil", feature: lsFeature("basil")),
                                                StoredFeature(id: "mint", feature: lsFeature("mint"))])
            #expect(try store.events(after: 1).map(\.entry) == [lsEvent(2, "region_added", "basil"), lsEvent(3, "region_added", "mint")])
            #expect(try store.usedIDs() == ["basil", "mint"])
            // What was saved is there after reopening.
            let again = try Store(path: path)
            #expect(try again.userRegions().map(\.id) == ["basil", "mint"])
            #expect(try again.lastSeq() == 3)
        }
    }

    @Test func addingAnIDAgainFailsAndWritesNothing() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            _ = try store.apply(.add(id: "basil", feature: lsFeature("basil")), event: lsEvent(1, "region_added", "basil"))
            let before = try store.count()
            #expect {
                _ = try store.apply(.add(id: "basil", feature: lsFeature("basil", radius: 12)), event: lsEvent(2, "region_added", "basil"))
            } throws: { e in
                "\(e)".contains("'basil'") && "\(e)".contains(path)
            }
            #expect(try store.count() == before && before == 1, "no second event")
            #expect(try store.lastSeq() == 1)
            #expect(try store.userRegions() == [StoredFeature(id: "basil", feature: lsFeature("basil"))], "the row is unchanged")
            // The next change still gets the next number.
            #expect(try store.apply(.add(id: "mint", feature: lsFeature("mint")), event: lsEvent(3, "region_added", "mint")).seq == 2)
        }
    }

    @Test func updateReplacesTheFeatureAndAnUnknownIDWritesNothing() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            _ = try store.apply(.add(id: "basil", feature: lsFeature("basil")), event: lsEvent(1, "region_added", "basil"))
            let u = try store.apply(.update(id: "basil", feature: lsFeature("basil", radius: 12)), event: lsEvent(2, "region_updated", "basil"))
            #expect(u.seq == 2)
            #expect(try store.userRegions() == [StoredFeature(id: "basil", feature: lsFeature("basil", radius: 12))])
            #expect(throws: StoreError.self) {
                _ = try store.apply(.update(id: "thyme", feature: lsFeature("thyme")), event: lsEvent(3, "region_updated", "thyme"))
            }
            #expect(try store.count() == 2)
            #expect(try store.userRegions().map(\.id) == ["basil"])
        }
    }

    @Test func removeDeletesTheRowAndItsStateAndTheIDStaysUsed() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            _ = try store.apply(.add(id: "basil", feature: lsFeature("basil")), event: lsEvent(1, "region_added", "basil"))
            _ = try store.apply(.add(id: "mint", feature: lsFeature("mint")), event: lsEvent(2, "region_added", "mint"))
            let t = lsSeconds(5)
            try store.commit([], lastFix: nil, regions: [(id: "basil", state: RegionState(inside: true, enteredAt: t, lastWatered: t)),
                                                        (id: "mint", state: RegionState(lastWatered: t))])
            let removed = try store.apply(.remove(id: "basil"), event: lsEvent(6, "region_removed", "basil"))
            #expect(removed.seq == 3)
            #expect(try store.userRegions().map(\.id) == ["mint"])
            let state = try store.state()
            #expect(state.regions["basil"] == nil)
            #expect(state.regions["mint"] == RegionState(lastWatered: t))
            #expect(try store.usedIDs() == ["basil", "mint"])
            #expect(try store.events(after: 0).map(\.entry.type) == ["region_added", "region_added", "region_removed"])
            // The id is never given again, and a second removal finds nothing (and journals nothing).
            #expect(throws: StoreError.self) {
                _ = try store.apply(.add(id: "basil", feature: lsFeature("basil")), event: lsEvent(7, "region_added", "basil"))
            }
            #expect(throws: StoreError.self) {
                _ = try store.apply(.remove(id: "basil"), event: lsEvent(8, "region_removed", "basil"))
            }
            #expect(try store.count() == 3)
            #expect(try store.userRegions().map(\.id) == ["mint"])
        }
    }
}

@Suite struct LayerStoreRetention {
    @Test func pruneKeepsTheRegionEventsOfRegionsInForceAndOnlyThose() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            #expect(try store.retention().prunedThrough == 0 && store.retention().prunedAt == nil)
            try store.commit([
                lsEvent(10, "enter", "basil"),           // 1: old fix event: goes
                lsEvent(11, "region_added", "basil"),    // 2: old, basil kept: stays
                lsEvent(12, "water_due", "basil"),       // 3: old fix event of a kept region: goes
                lsEvent(13, "region_added", "gone"),     // 4: old, of a region no longer there: goes
                lsEvent(14, "region_removed", "gone"),   // 5: likewise
                lsEvent(15, "region_added", "mint"),     // 6: old, mint kept: stays
                lsEvent(100, "enter", "mint"),           // 7: new: stays
                lsEvent(101, "region_added", "gone2"),   // 8: new: stays
            ], lastFix: nil, regions: [])
            let now = lsSeconds(1_000)
            let r = try store.prune(journalBefore: lsSeconds(50), trackBefore: lsSeconds(0), keeping: ["basil", "mint"], now: now)
            #expect(r.prunedThrough == 5 && r.events == 4 && r.points == 0)
            #expect(try store.events(after: 0).map(\.seq) == [2, 6, 7, 8])
            #expect(try store.retention().prunedThrough == 5 && store.retention().prunedAt == now)

            // Nothing more to prune: pruned_through stays.
            let none = try store.prune(journalBefore: lsSeconds(50), trackBefore: lsSeconds(0), keeping: ["basil", "mint"], now: lsSeconds(2_000))
            #expect(none.prunedThrough == 5 && none.events == 0)
            // basil removed since: its old region_added (seq 2) goes, and pruned_through does not go down to 2.
            let later = try store.prune(journalBefore: lsSeconds(50), trackBefore: lsSeconds(0), keeping: ["mint"], now: lsSeconds(3_000))
            #expect(later.prunedThrough == 5 && later.events == 1)
            #expect(try store.events(after: 0).map(\.seq) == [6, 7, 8])
            #expect(try store.retention().prunedThrough == 5 && store.retention().prunedAt == lsSeconds(3_000))
            // Later: everything before 200 s but mint's region event; 8 is the highest deleted.
            let all = try store.prune(journalBefore: lsSeconds(200), trackBefore: lsSeconds(0), keeping: ["mint"], now: lsSeconds(4_000))
            #expect(all.prunedThrough == 8 && all.events == 2)
            #expect(try store.events(after: 0).map(\.seq) == [6])
            #expect(try Store(path: path).retention().prunedThrough == 8)
        }
    }

    @Test func pruneDropsOldTrackPointsAndKeepsNewerOnes() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            let c = Coordinate(latitude: 40.1, longitude: -8.24)
            let points = [10, 20, 30, 60, 70].map { TrackPoint(time: lsSeconds($0), coordinate: c, error: 2.5) }
            for p in points { try store.commit([], lastFix: nil, regions: [], track: p) }
            #expect(try store.track() == points)
            let r = try store.prune(journalBefore: lsSeconds(0), trackBefore: lsSeconds(30), keeping: [], now: lsSeconds(100))
            #expect(r.points == 2 && r.events == 0 && r.prunedThrough == 0)
            #expect(try store.track().map(\.time) == [lsSeconds(30), lsSeconds(60), lsSeconds(70)], "a point at the limit stays")
            #expect(try store.track(from: lsSeconds(31), through: lsSeconds(60)) == [points[3]])
            #expect(try store.lastTrackPoint() == points[4])
        }
    }
}

@Suite struct LayerStoreRecords {
    @Test func capturesByAlbumOldestFirst() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            #expect(try store.captures().isEmpty)
            let c = Coordinate(latitude: 40.1, longitude: -8.24)
            let a = try store.recordCapture(album: "beach", time: lsSeconds(10), at: c, error: 3, file: "IMG_1.jpg", note: nil)
            let b = try store.recordCapture(album: "forest", time: lsSeconds(20), at: c, error: 4, file: nil, note: "fog")
            let d = try store.recordCapture(album: "beach", time: lsSeconds(30), at: c, error: 5, file: nil, note: nil)
            #expect([a.id, b.id, d.id] == [1, 2, 3])
            #expect(try store.captures(album: "beach") == [a, d])
            #expect(try store.captures(album: "forest") == [Capture(id: 2, album: "forest", time: lsSeconds(20), coordinate: c, error: 4, note: "fog")])
            #expect(try store.captures(album: "lake").isEmpty)
            #expect(try Store(path: path).captures() == [a, b, d])
        }
    }

    @Test func removeTreeTakesTheLastOrTheOneGivenAndNilWhenNone() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            #expect(try store.removeTree(nil) == nil)
            let c = Coordinate(latitude: 40.1, longitude: -8.24)
            let t1 = try store.recordTree(area: "ref", species: "Quercus robur", at: c, planted: lsSeconds(1), project: "spring")
            let t2 = try store.recordTree(area: "ref", species: "Arbutus unedo", at: c, planted: nil, project: "autumn")
            let t3 = try store.recordTree(area: "ref", species: "Pinus pinaster", at: c, planted: lsSeconds(3), project: "spring")
            #expect(try store.trees(project: "spring") == [t1, t3])
            #expect(try store.trees(project: "autumn") == [t2])
            #expect(try store.trees(project: "winter").isEmpty)
            #expect(try store.removeTree(nil) == t3, "undo: the last recorded")
            #expect(try store.removeTree(1) == t1)
            #expect(try store.removeTree(1) == nil, "already gone")
            #expect(try store.removeTree(99) == nil)
            #expect(try store.trees() == [t2])
            // Numbers are not given again.
            #expect(try store.recordTree(area: "ref", species: "Quercus robur", at: c, planted: nil).id == 4)
            #expect(try store.removeTree(nil)?.id == 4)
            #expect(try store.removeTree(nil) == t2)
            #expect(try store.removeTree(nil) == nil)
        }
    }
}
