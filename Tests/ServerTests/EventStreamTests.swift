import Foundation
import Geo
import NIOCore
import Server
import Store
import Testing
import Protocol

/// The subscription HTTP's Server-Sent Events read (`EventStream`), on a real SQLite journal:
/// the seam, the lag rule, an overflow while catching up, positions.
@Suite struct EventStreams {
    final class Journal: ServerDelegate {
        let store: Store
        let version = "test"
        init(_ store: Store) { self.store = store }
        func lastSeq() -> Int64 { (try? store.events(after: 0, limit: 1_000_000).last?.seq) ?? 0 }
        func prunedThrough() -> Int64 { 0 }
        func regionIDs() async -> Set<String> { ["a", "b"] }
        func answer(_ request: Command) async -> Result<[UInt8], CommandError> { .failure(CommandError("not here")) }
    }

    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tl-stream-\(UUID().uuidString.prefix(8))")

    func journal() throws -> (Journal, Hub) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (Journal(try Store(path: folder.appendingPathComponent("j.sqlite").path)), Hub())
    }

    /// Commits `n` enter events (regions a and b in turn), published unless told not to.
    @discardableResult
    func commit(_ n: Int, _ j: Journal, _ hub: Hub, publish: Bool = true) throws -> [JournalEvent] {
        let entries = (0..<n).map { k in
            JournalEntry(time: UTCTime(nanoseconds: 0), type: "enter", region: k % 2 == 0 ? "a" : "b", kind: "plant", json: Array(#"{"type":"enter"}"#.utf8))
        }
        let events = try j.store.commit(entries, lastFix: nil, regions: [])
        if publish { hub.publish(Batch(events)) }
        return events
    }

    func open(_ s: Subscribe, _ j: Journal, _ hub: Hub, limit: Int = 1024) async throws -> EventStream {
        switch await EventStream.open(s, delegate: j, hub: hub, queueLimit: limit) {
        case .success(let stream): return stream
        case .failure(let e): throw e
        }
    }

    /// The SUBSCRIBED line: since `since`, in `j`'s journal (named by its store).
    func subscribed(_ since: Int64, _ j: Journal) -> String {
        #"{"class":"SUBSCRIBED","since":\#(since),"journal":"\#(j.store.journal)"}"#
    }

    /// The first `count` items, each within `timeout` seconds (the stream itself waits for ever):
    /// if one does not come in time the stream is closed (which ends the pending `next`) and what
    /// came is returned, short, for the caller's comparison to fail on.
    func drain(_ stream: EventStream, count: Int, timeout: Double = 10) async -> [String] {
        var out: [String] = []
        while out.count < count {
            guard let item = await next(stream, timeout: timeout) else { break }
            switch item {
            case .line(let b): out.append(String(buffer: b))
            case .event(let seq, _): out.append("#\(seq)")
            case .position(let b): out.append(String(buffer: b))
            case .keepalive: out.append("keepalive")
            }
        }
        return out
    }

    /// The stream's next item, or nil at its end or when none comes within `timeout` seconds
    /// (the stream is then closed: its pending `next` returns and the test goes on).
    func next(_ stream: EventStream, timeout: Double) async -> EventStream.Item? {
        let first = FirstOf()
        return await withCheckedContinuation { (done: CheckedContinuation<EventStream.Item?, Never>) in
            first.set(done)
            Task {
                let item = await stream.next()
                first.resume(item)
            }
            Task {
                try? await Task.sleep(for: .seconds(timeout))
                if first.resume(nil) {
                    Issue.record("no item within \(timeout) s")
                    stream.close()
                }
            }
        }
    }

    @Test func theJournalThenLiveEventsWithoutAGapOrARepeat() async throws {
        let (j, hub) = try journal()
        defer { try? FileManager.default.removeItem(at: folder) }
        try commit(5, j, hub)
        let stream = try await open(Subscribe(since: 2), j, hub)
        // Committed after the stream entered the hub but published late, as the engine may.
        let late = try commit(2, j, hub, publish: false)
        #expect(await drain(stream, count: 3) == [subscribed(2, j), "#3", "#4"])
        hub.publish(Batch(late))
        try commit(1, j, hub)
        #expect(await drain(stream, count: 4) == ["#5", "#6", "#7", "#8"])
        stream.close()
        #expect(await stream.next() == nil as EventStream.Item?)
        #expect(hub.count == 0)
    }

    @Test func aReaderWhoFallsBehindGetsTheLaggedLineAndTheEnd() async throws {
        let (j, hub) = try journal()
        defer { try? FileManager.default.removeItem(at: folder) }
        try commit(2, j, hub)
        let stream = try await open(Subscribe(), j, hub, limit: 3)
        #expect(await drain(stream, count: 1) == [subscribed(2, j)])
        try commit(1, j, hub)
        #expect(await drain(stream, count: 1) == ["#3"])
        for _ in 0..<4 { try commit(1, j, hub) }  // 4 waiting: one over the limit of 3
        let rest = await drain(stream, count: 5)
        #expect(rest == [#"{"class":"ERROR","lagged":true,"seq":3,"message":"you were not reading: resubscribe with since 3"}"#], "\(rest)")
        #expect(hub.count == 0)
    }

    @Test func anOverflowWhileCatchingUpReadsTheJournalAgainInsteadOfLagging() async throws {
        let (j, hub) = try journal()
        defer { try? FileManager.default.removeItem(at: folder) }
        try commit(10, j, hub)
        let stream = try await open(Subscribe(since: 0), j, hub, limit: 2)
        #expect(await drain(stream, count: 3) == [subscribed(0, j), "#1", "#2"])
        for _ in 0..<5 { try commit(1, j, hub) }  // 5 live while it is still reading the journal
        #expect(await drain(stream, count: 13) == (3...15).map { "#\($0)" })
        try commit(1, j, hub)
        #expect(await drain(stream, count: 1) == ["#16"])
        stream.close()
    }

    @Test func filtersAndPositionsAsAsked() async throws {
        let (j, hub) = try journal()
        defer { try? FileManager.default.removeItem(at: folder) }
        try commit(4, j, hub)
        let stream = try await open(Subscribe(filter: EventFilter(regions: ["b"]), since: 0, positions: true), j, hub)
        #expect(await drain(stream, count: 3) == [subscribed(0, j), "#2", "#4"])
        #expect(hub.wantsPositions)
        // Positions are live only, the newest wins over one not yet read.
        hub.publish(position: Array(#"{"class":"POSITION","n":1}"#.utf8))
        hub.publish(position: Array(#"{"class":"POSITION","n":2}"#.utf8))
        try commit(2, j, hub)
        #expect(await drain(stream, count: 2) == ["#6", #"{"class":"POSITION","n":2}"#])
        stream.close()
        #expect(!hub.wantsPositions)
    }

    @Test func theSocketsChecksAndMessages() async throws {
        let (j, hub) = try journal()
        defer { try? FileManager.default.removeItem(at: folder) }
        try commit(3, j, hub)
        let unknown = await EventStream.open(Subscribe(filter: EventFilter(regions: ["zz"])), delegate: j, hub: hub, queueLimit: 8)
        #expect(throws: CommandError.self) { try unknown.get() }
        let ahead = await EventStream.open(Subscribe(since: 9), delegate: j, hub: hub, queueLimit: 8)
        #expect((try? ahead.get()) == nil)
        if case .failure(let e) = ahead { #expect(e.message.hasPrefix("since 9 is after the last event, 3")) }
        #expect(hub.count == 0)
    }

    /// A subscriber that names the journal it read: refused on another (its database replaced),
    /// whatever the seqs; taken on this one. The journal's name outlives a reopening of the
    /// file, and two databases have two names.
    @Test func aSubscriptionNamingAnotherJournalIsRefusedWhateverItsSeqs() async throws {
        let (j, hub) = try journal()
        defer { try? FileManager.default.removeItem(at: folder) }
        try commit(3, j, hub)
        let name = j.store.journal
        #expect(name.count == 32 && name.allSatisfy(\.isHexDigit), "\(name)")
        #expect(try Store(path: j.store.path).journal == name, "the same file, the same journal")
        let other = try Store(path: folder.appendingPathComponent("other.sqlite").path)
        #expect(other.journal != name && other.journal.count == 32)
        for since: Int64? in [nil, 0, 2, 3] {
            switch await EventStream.open(Subscribe(since: since, journal: other.journal), delegate: j, hub: hub, queueLimit: 16) {
            case .success(let s):
                s.close()
                Issue.record("since \(since.map(String.init) ?? "none") in another journal was taken")
            case .failure(let e):
                #expect(e.message.contains("journal \(other.journal) is not this board's, \(name)"), "\(e.message)")
                #expect(e.message.contains("this journal is not the one you read before"))
            }
        }
        #expect(hub.count == 0)
        let stream = try await open(Subscribe(since: 1, journal: name), j, hub)
        #expect(await drain(stream, count: 3) == [subscribed(1, j), "#2", "#3"])
        stream.close()
    }
}

/// Resumes a continuation once, with whichever result comes first.
final class FirstOf: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<EventStream.Item?, Never>?
    private var done = false

    func set(_ c: CheckedContinuation<EventStream.Item?, Never>) { lock.withLock { continuation = c } }

    /// Whether this call was the first (and so resumed it).
    @discardableResult
    func resume(_ item: EventStream.Item?) -> Bool {
        let c: CheckedContinuation<EventStream.Item?, Never>? = lock.withLock {
            guard !done else { return nil }
            done = true
            defer { continuation = nil }
            return continuation
        }
        c?.resume(returning: item)
        return c != nil
    }
}

extension EventStream.Item: Equatable {
    public static func == (a: Self, b: Self) -> Bool { "\(a)" == "\(b)" }
}
