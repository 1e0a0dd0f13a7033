import Foundation
import Geo
import GRDB
import Rules
import Store
import Testing
import Protocol

/// A real SQLite file in a temporary folder, removed afterwards.
func withStoreFile<T>(_ body: (String) throws -> T) throws -> T {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("treeline-store-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    return try body(dir.appendingPathComponent("treeline.sqlite").path)
}

func entry(_ n: Int, type: String = "enter", region: String = "plant-1", kind: String = "plant") -> JournalEntry {
    JournalEntry(time: UTCTime(nanoseconds: Int64(n) * 1_000_000_000), type: type, region: region, kind: kind,
                 json: Array(#"{"time":"t\#(n)","type":"\#(type)","region":"\#(region)"}"#.utf8))
}

@Suite struct Journal {
    @Test func seqsAreConsecutiveAndSurviveReopening() throws {
        try withStoreFile { path in
            do {
                let store = try Store(path: path)
                #expect(try store.lastSeq() == 0)
                let a = try store.commit([entry(1), entry(2)], lastFix: nil, regions: [])
                #expect(a.map(\.seq) == [1, 2])
                let b = try store.commit([entry(3)], lastFix: nil, regions: [])
                #expect(b.map(\.seq) == [3])
            }
            let again = try Store(path: path)
            #expect(try again.lastSeq() == 3)
            #expect(try again.commit([entry(4)], lastFix: nil, regions: []).map(\.seq) == [4])
            #expect(try again.events(after: 0).map(\.entry) == [entry(1), entry(2), entry(3), entry(4)])
        }
    }

    @Test func aSeqIsNeverGivenTwiceEvenOnceItsRowIsGone() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            try store.commit([entry(1), entry(2)], lastFix: nil, regions: [])
            // Someone prunes the journal by hand: the next number is still 3.
            try store.prune(through: 2)
            #expect(try store.count() == 0)
            #expect(try store.commit([entry(3)], lastFix: nil, regions: []).map(\.seq) == [3])
        }
    }

    /// The journal's name: 32 hex digits, kept across openings; made again if its row is lost
    /// or emptied by hand (every client must be told a name it can send back).
    @Test func theJournalHasOneNameUntilItsRowIsLost() throws {
        try withStoreFile { path in
            let name = try Store(path: path).journal
            #expect(name.count == 32 && name.allSatisfy(\.isHexDigit), "\(name)")
            #expect(try Store(path: path).journal == name)
            for edit in ["DELETE FROM journal_name", "UPDATE journal_name SET name = ''"] {
                let queue = try DatabaseQueue(path: path)
                try queue.write { try $0.execute(sql: edit) }
                try queue.close()
                let renamed = try Store(path: path).journal
                #expect(renamed.count == 32 && renamed != name, "\(edit): \(renamed)")
                #expect(try Store(path: path).journal == renamed, "\(edit): kept once made again")
            }
        }
    }

    @Test func eventsAfterFilterAndPage() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            var all: [JournalEntry] = []
            for n in 1...1000 {
                let kind = ["plant", "album", "reforestation"][n % 3]
                let type = ["enter", "exit"][n % 2]
                all.append(entry(n, type: type, region: "\(kind)-\(n % 7)", kind: kind))
            }
            try store.commit(Array(all[..<600]), lastFix: nil, regions: [])
            try store.commit(Array(all[600...]), lastFix: nil, regions: [])
            let page = try store.events(after: 100, limit: 256)
            #expect(page.first?.seq == 101 && page.last?.seq == 356 && page.count == 256)
            let filter = EventFilter(kinds: ["plant", "album"], regions: nil, types: ["exit"])
            var got: [JournalEvent] = []
            var after: Int64 = 0
            while true {
                let p = try store.events(after: after, filter: filter, limit: 50)
                if p.isEmpty { break }
                got += p
                after = p.last!.seq
            }
            let want = all.enumerated().filter { filter.matches($0.element) }
            #expect(got.map(\.seq) == want.map { Int64($0.offset + 1) })
            #expect(got.map(\.entry) == want.map(\.element))
            #expect(try store.events(after: 0, filter: EventFilter(kinds: [])).isEmpty)
        }
    }

    @Test func eventLineCarriesClassAndSeq() {
        var out: [UInt8] = []
        JournalEvent(seq: 42, entry: entry(7)).appendLine(to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"{"class":"EVENT","seq":42,"time":"t7","type":"enter","region":"plant-1"}"# + "\n")
    }
}

@Suite struct MonitorStateStorage {
    @Test func stateRoundTripsAndChangesOnlyWhatIsGiven() throws {
        try withStoreFile { path in
            let t = UTCTime(nanoseconds: 1_800_000_000_000_000_000)
            let fix = LastFix(time: t, coordinate: Coordinate(latitude: 40.1, longitude: -8.2), error: 3.5)
            do {
                let store = try Store(path: path)
                #expect(try store.state() == StoredState())
                try store.commit([entry(1)], lastFix: fix, regions: [
                    (id: "plant-1", state: RegionState(inside: true, enteredAt: t, dwellDone: false, lastWatered: t, alertedFor: nil)),
                    (id: "album-2", state: RegionState(inside: false, enteredAt: nil, dwellDone: true, lastWatered: nil, alertedFor: t)),
                ])
                var later = fix
                later.time = UTCTime(nanoseconds: t.nanoseconds + 1_000_000_000)
                try store.commit([], lastFix: later, regions: [(id: "album-2", state: RegionState(inside: true, enteredAt: later.time))])
            }
            let s = try Store(path: path).state()
            #expect(s.lastFix?.time.nanoseconds == t.nanoseconds + 1_000_000_000)
            #expect(s.lastFix?.coordinate == fix.coordinate && s.lastFix?.error == 3.5)
            #expect(s.regions["plant-1"] == RegionState(inside: true, enteredAt: t, dwellDone: false, lastWatered: t, alertedFor: nil))
            #expect(s.regions["album-2"] == RegionState(inside: true, enteredAt: UTCTime(nanoseconds: t.nanoseconds + 1_000_000_000)))
            #expect(s.regions.count == 2)
        }
    }

    @Test func aMissingFolderIsAClearError() {
        #expect {
            _ = try Store(path: "/nonexistent-treeline/treeline.sqlite")
        } throws: { e in
            "\(e)".contains("/nonexistent-treeline") && "\(e)".contains("does not exist")
        }
    }

    @Test func aFileThatIsNotADatabaseIsAClearError() throws {
        try withStoreFile { path in
            try Data("hello, not sqlite, just text that is long enough to be a header".utf8).write(to: URL(fileURLWithPath: path))
            #expect {
                _ = try Store(path: path)
            } throws: { e in
                "\(e)".contains(path) && "\(e)".contains("not a database")
            }
        }
    }
}

@Suite struct RecordedTrees {
    @Test func plantWritesOnlyWhatTheCheckAllowsAndNumbersNeverRepeat() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            let a = Coordinate(latitude: 40.1, longitude: -8.2), b = Coordinate(latitude: 40.2, longitude: -8.3)
            var seen: [[PlantedTree]] = []
            let allow = { (area: String) in { (trees: [PlantedTree]) -> PlantingVerdict in
                seen.append(trees)
                var v = PlantingVerdict()
                v.area = area
                return v
            } }
            let (v1, t1) = try store.plant(species: "Quercus robur", at: a, planted: nil, check: allow("ref-a"))
            #expect(v1.allowed && t1?.id == 1 && t1?.area == "ref-a")
            // A refusal writes nothing.
            let (v2, t2) = try store.plant(species: "Quercus robur", at: b, planted: nil) { trees in
                seen.append(trees)
                var v = PlantingVerdict()
                v.refusal = .tooNear(tree: 1, metres: 2, spacing: 5)
                return v
            }
            #expect(!v2.allowed && t2 == nil)
            let (_, t3) = try store.plant(species: "Arbutus unedo", at: b, planted: UTCTime(nanoseconds: 5), check: allow("ref-b"))
            #expect(t3?.id == 2)
            #expect(seen.map(\.count) == [0, 1, 1], "each check saw the trees recorded before it")
            #expect(try store.trees().map(\.id) == [1, 2])
            #expect(try store.trees(area: "ref-b").map(\.species) == ["Arbutus unedo"])
            #expect(try Store(path: path).trees(area: "ref-b").first?.planted == UTCTime(nanoseconds: 5))
        }
    }
}
