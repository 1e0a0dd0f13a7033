import Foundation
import Store
import Testing

// Reading the journal back a page at a time (`Store.events(before:limit:)`, the `journal`
// command): the newest first page, older pages by `before`, `more` until the first event, and
// pruned events simply absent. `withStoreFile` and `entry` come from StoreTests.swift.

@Suite struct JournalPages {
    @Test func pagesBackFromTheNewestToTheFirst() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            try store.commit((1...25).map { entry($0) }, lastFix: nil, regions: [])
            let newest = try store.events(before: nil, limit: 10)
            #expect(newest.events.map(\.seq) == Array(16...25) && newest.more)
            let older = try store.events(before: 16, limit: 10)
            #expect(older.events.map(\.seq) == Array(6...15) && older.more)
            let first = try store.events(before: 6, limit: 10)
            #expect(first.events.map(\.seq) == Array(1...5) && !first.more)
            #expect(try store.events(before: 1, limit: 10).events.isEmpty)
            // Exactly a page left: no more after it.
            #expect(try store.events(before: 11, limit: 10).more == false)
            try store.prune(through: 12)
            let afterPruning = try store.events(before: 16, limit: 10)
            #expect(afterPruning.events.map(\.seq) == [13, 14, 15] && !afterPruning.more)
        }
    }
}
