import Geo
import JSON
import Testing
@testable import Walks

/// Trails as pure logic: the regions entered in, the trail events out, compared as sequences.
struct TrailBookTests {
    static let here = Coordinate(latitude: 38.7, longitude: -9.1)
    static func time(_ s: Int64) -> UTCTime { UTCTime(nanoseconds: 1_800_000_000_000_000_000 + s * 1_000_000_000) }
    static let abc = Trail(id: "abc", name: "A to C", checkpoints: [.init(region: "a", action: .water), .init(region: "b"), .init(region: "c")])

    /// Walks `entered` (one region a step, one second apart) with nothing else inside.
    static func walk(_ book: inout TrailBook, _ entered: [String], inside: Set<String> = []) -> [String] {
        var out: [String] = []
        for (k, r) in entered.enumerated() {
            for e in book.entered(r, at: time(Int64(k + 1)), here, inside: { inside.contains($0) }) {
                out.append("\(e.type.rawValue) \(e.region)\(e.index.map { " #\($0)" } ?? "")")
            }
        }
        return out
    }

    @Test func inOrderEachCheckpointOnceThenCompleted() {
        var book = TrailBook(trails: [Self.abc])
        let started = book.start("abc", at: Self.time(0), from: Self.here, inside: { _ in false })
        #expect(started.map(\.type) == [.trailStarted])
        let got = Self.walk(&book, ["x", "a", "a", "b", "x", "c", "a"])
        #expect(got == ["checkpoint_reached a #0", "checkpoint_reached b #1", "checkpoint_reached c #2", "trail_completed c"])
        #expect(book.run == nil)
        #expect(book.completed["abc"] == Self.time(6))
    }

    @Test func aLaterCheckpointFirstIsOutOfOrderAndDoesNotAdvance() {
        var book = TrailBook(trails: [Self.abc])
        _ = book.start("abc", at: Self.time(0), from: nil, inside: { _ in false })
        let got = Self.walk(&book, ["c", "b", "a", "c", "b", "c"])
        #expect(got == ["checkpoint_out_of_order c #2", "checkpoint_out_of_order b #1", "checkpoint_reached a #0",
                        "checkpoint_out_of_order c #2", "checkpoint_reached b #1", "checkpoint_reached c #2", "trail_completed c"])
    }

    @Test func startingInsideTheFirstReachesIt() {
        var book = TrailBook(trails: [Self.abc])
        let events = book.start("abc", at: Self.time(0), from: Self.here, inside: { $0 == "a" || $0 == "b" })
        #expect(events.map { "\($0.type.rawValue) \($0.region)" } == ["trail_started a", "checkpoint_reached a", "checkpoint_reached b"])
        #expect(book.run?.next == 2)
    }

    /// A plant inside an area: entering the plant reaches it, and the area it is inside at once.
    @Test func overlappingCheckpointsAreReachedTogether() {
        let t = Trail(id: "t", checkpoints: [.init(region: "plant"), .init(region: "area")])
        var book = TrailBook(trails: [t])
        _ = book.start("t", at: Self.time(0), from: nil, inside: { _ in false })
        let got = Self.walk(&book, ["area", "plant"], inside: ["area", "plant"])
        #expect(got == ["checkpoint_out_of_order area #1", "checkpoint_reached plant #0", "checkpoint_reached area #1", "trail_completed area"])
    }

    @Test func levelsUnlockInTurn() {
        let one = Trail(id: "one", checkpoints: [.init(region: "a")])
        let two = Trail(id: "two", checkpoints: [.init(region: "b")], requires: ["one"])
        var book = TrailBook(trails: [one])
        #expect(book.refusal(toAdd: two) == nil)
        #expect(book.refusal(toAdd: Trail(id: "three", checkpoints: [.init(region: "b")], requires: ["nope"])) != nil)
        book.add(two)
        #expect(book.refusal(toStart: "two") == "trail 'two' unlocks when 'one' is completed")
        #expect(book.refusal(toRemove: "one") == "trail 'two' requires 'one': remove that one first")
        _ = book.start("one", at: Self.time(0), from: nil, inside: { _ in false })
        #expect(book.refusal(toStart: "two") == "trail 'one' is under way: stop it first (stop_trail)")
        #expect(book.refusal(toRemove: "one") == "trail 'one' is under way: stop it first (stop_trail)")
        _ = Self.walk(&book, ["a"])
        #expect(book.refusal(toStart: "two") == nil)
    }

    @Test func completedTakesTheTimeAndTheDistanceWalked() {
        let t = Trail(id: "t", checkpoints: [.init(region: "far")])
        var book = TrailBook(trails: [t])
        let start = Coordinate(latitude: 0, longitude: 0)
        _ = book.start("t", at: Self.time(0), from: start, inside: { _ in false })
        book.walked(to: Coordinate(latitude: 0, longitude: 0.001))
        book.walked(to: Coordinate(latitude: 0, longitude: 0.002))
        let end = Coordinate(latitude: 0.001, longitude: 0.002)
        let done = book.entered("far", at: Self.time(90), end, inside: { _ in false }).last
        let expected = Geodesic.wgs84.distance(start, Coordinate(latitude: 0, longitude: 0.002)) + Geodesic.wgs84.distance(Coordinate(latitude: 0, longitude: 0.002), end)
        #expect(done?.type == .trailCompleted)
        #expect(done?.took == 90)
        #expect(abs((done?.walked ?? 0) - expected) < 1e-6)
    }

    @Test func definitionsReadBackAndBadOnesAreRefusedWithAReason() throws {
        let t = Trail(id: "t", name: "Walk", checkpoints: [.init(region: "a", action: .capture), .init(region: "b")], requires: ["r"], project: "spring")
        #expect(try Trail.read(json: t.json) == t)
        let cases: [(String, String)] = [
            (#"{"checkpoints":["a"]}"#, "missing \"trail\""),
            (#"{"trail":"t"}"#, "missing \"checkpoints\""),
            (#"{"trail":"t","checkpoints":"a"}"#, "non-empty list"),
            (#"{"trail":"t","checkpoints":[{"region":"a","action":"dance"}]}"#, "not one of water, capture, plant"),
            (#"{"trail":"t","checkpoints":[{"action":"water"}]}"#, "has no \"region\""),
            (#"{"trail":"t","checkpoints":[7]}"#, "checkpoint 1 must be"),
            (#"{"trail":"t","checkpoints":["a"],"color":"red"}"#, "unknown key \"color\""),
            (#"{"trail":"t\u202e","checkpoints":["a"]}"#, "\"trail\""),
            (#"{"trail":"t","checkpoints":["a"],"requires":["t"]}"#, "cannot require itself"),
        ]
        for (text, expected) in cases {
            #expect(throws: TrailError.self) { try Trail.read(json: Array(text.utf8)) }
            do { _ = try Trail.read(json: Array(text.utf8)) } catch { #expect(error.message.contains(expected), "\(text): \(error.message)") }
        }
        let many = "{\"trail\":\"t\",\"checkpoints\":[" + Array(repeating: "\"a\"", count: Trail.maxCheckpoints + 1).joined(separator: ",") + "]}"
        do { _ = try Trail.read(json: Array(many.utf8)) } catch { #expect(error.message.contains("at most \(Trail.maxCheckpoints)")) }
    }
}

/// What the review found: going back is not ahead, a region reached in one step is not reached
/// twice in it, a run that does not fit is dropped, the sizes are bounded.
struct TrailBookEdgeTests {
    @Test func goingBackIntoAReachedRegionIsNotOutOfOrder() {
        let aba = Trail(id: "aba", checkpoints: [.init(region: "a"), .init(region: "b"), .init(region: "a")])
        var book = TrailBook(trails: [aba])
        _ = book.start("aba", at: TrailBookTests.time(0), from: nil, inside: { _ in false })
        let got = TrailBookTests.walk(&book, ["a", "a", "b", "a"])
        #expect(got == ["checkpoint_reached a #0", "checkpoint_reached b #1", "checkpoint_reached a #2", "trail_completed a"])
    }

    /// [A, B, A] with A and B overlapping: entering A reaches A, and B the walker is inside,
    /// but not A again in the same step.
    @Test func aRegionIsReachedOnceAStep() {
        let aba = Trail(id: "aba", checkpoints: [.init(region: "a"), .init(region: "b"), .init(region: "a")])
        var book = TrailBook(trails: [aba])
        _ = book.start("aba", at: TrailBookTests.time(0), from: nil, inside: { _ in false })
        let got = TrailBookTests.walk(&book, ["a"], inside: ["a", "b"])
        #expect(got == ["checkpoint_reached a #0", "checkpoint_reached b #1"])
        #expect(book.run?.next == 2)
    }

    @Test func theSameRegionTwiceInARowIsRefused() {
        let text = #"{"trail":"t","checkpoints":["a","a"]}"#
        do { _ = try Trail.read(json: Array(text.utf8)); Issue.record("taken") } catch { #expect(error.message.contains("one visit reaches both")) }
        let both = #"{"trail":"t","id":"u","checkpoints":["a"]}"#
        do { _ = try Trail.read(json: Array(both.utf8)); Issue.record("taken") } catch { #expect(error.message.contains("not both")) }
    }

    @Test func theCheckpointsOfAllTrailsAreBounded() {
        let big = (0..<Trail.maxCheckpoints).map { Trail.Checkpoint(region: "r\($0)") }
        var book = TrailBook()
        for k in 0..<(TrailBook.maxCheckpoints / Trail.maxCheckpoints) { book.add(Trail(id: "t\(k)", checkpoints: big)) }
        #expect(book.refusal(toAdd: Trail(id: "one-more", checkpoints: [.init(region: "x")]))?.contains("20000") == true)
    }

    @Test func aRunThatDoesNotFitIsDropped() {
        let t = Trail(id: "t", checkpoints: [.init(region: "a")])
        var past = TrailBook(trails: [t], run: TrailRun(trail: "t", next: 1, started: TrailBookTests.time(0)))
        #expect(past.dropRunThatDoesNotFit() != nil && past.run == nil)
        var gone = TrailBook(trails: [], run: TrailRun(trail: "t", next: 0, started: TrailBookTests.time(0)))
        #expect(gone.dropRunThatDoesNotFit() != nil && gone.run == nil)
        var fine = TrailBook(trails: [t], run: TrailRun(trail: "t", next: 0, started: TrailBookTests.time(0)))
        #expect(fine.dropRunThatDoesNotFit() == nil && fine.run != nil)
    }
}
