@testable import Geo
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing
@testable import JSON
@testable import Regions

/// Inputs that fuzzing found accepted when they should not be, or slow where they need not be.
@Suite struct HostileJSON {
    func error(_ text: String) -> JSONSyntaxError? {
        do {
            _ = try JSONDocument.parse(Array(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test func numbersBeyondADoubleAreRefused() {
        #expect(error(#"{"priority": 1e400}"#)?.message == "number 1e400 is out of range (beyond ±1.8e308)")
        #expect(error(#"[-1e309]"#)?.message.hasPrefix("number -1e309 is out of range") == true)
        #expect(error(#"[1e308, 1e-400]"#) == nil, "underflow to 0 is a number")
    }

    @Test func aNameGivenTwiceIsRefusedWithItsPlace() {
        let e = error("{\"cmd\":\"water\",\n \"plant\":\"a\", \"plant\":\"b\"}")
        #expect(e?.message == "duplicate member \"plant\" in an object: give each name once")
        #expect(e?.line == 2 && e?.column == 15)
        // Past 16 members the check goes through a set: same answer.
        let many = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(error("{\(many),\"k7\":1}")?.message == "duplicate member \"k7\" in an object: give each name once")
        #expect(error("{\(many)}") == nil)
        #expect((try? JSONDocument.parse(Array(#"{"a":1,"a":2}"#.utf8), duplicateMembers: true)) != nil)
    }

    @Test func byteOrderMarksTrailingCommasAndUTF16AreNotJSON() {
        #expect(error("\u{FEFF}{\"cmd\":\"state\"}") != nil)
        #expect(error(#"{"cmd":"state",}"#) != nil)
        #expect(error(#"{"kinds":["plant",]}"#) != nil)
        let utf16 = Array(#"{"cmd":"state"}"#.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect((try? JSONDocument.parse(utf16)) == nil)
    }

    /// Many `coordinates` arrays that are not positions are read again as plain JSON; the error
    /// that is finally reported still has its right place (positions are counted once, for it).
    @Test func theErrorAfterManyFallbacksHasItsPlace() {
        let copies = String(repeating: "{\"coordinates\":[{}]},\n", count: 8_000)
        let text = "{\"type\":\"FeatureCollection\",\"features\":[],\"x\":[\n" + copies + "{\"coordinates\":[1,]}]}"
        let e = error(text)
        #expect(e?.line == 8_002)
        #expect(e?.column == 19)
        #expect(e?.message == "unexpected ']' where a value should be")
    }

    @Test func excerptsAreCut() {
        #expect(TextExcerpt.short("abc") == "abc")
        let long = String(repeating: "9", count: 10_000_000)
        #expect(TextExcerpt.short(long) == String(repeating: "9", count: 80) + "…")
        #expect(error("[\(long)x]")?.message.count ?? 0 < 200, "no message repeats the input")
    }
}

@Suite struct HostileFences {
    func issues(_ text: String) -> [String] {
        do {
            _ = try RegionFile.parse(Array(text.utf8), file: "t.geojson")
            return []
        } catch {
            return error.issues.map(\.message)
        }
    }

    func circle(_ radius: String) -> String {
        #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"id":"a","kind":"album","radius_m":\#(radius),"priority":1},"geometry":{"type":"Point","coordinates":[-8.24,40.1]}}]}"#
    }

    @Test func radiiOutsideAMetreTo1000KmAreRefused() {
        #expect(issues(circle("1e-300")) == ["radius_m must be from 1 to 1000000 metres, not 1e-300"])
        #expect(issues(circle("2e7")) == ["radius_m must be from 1 to 1000000 metres, not 20000000"])
        #expect(issues(circle("1")).isEmpty)
        #expect(issues(circle("1000000")).isEmpty)
    }

    @Test func anInfinitePriorityIsRefused() {
        let text = circle("10").replacingOccurrences(of: #""priority":1"#, with: #""priority":1e400"#)
        #expect(issues(text).first?.contains("out of range") == true)
    }

    /// The quadtree's first crossing is the brute force's, on rings made to cross themselves
    /// (random walks) and on simple ones (stars).
    @Test func theFirstCrossingIsTheSameAsComparingEveryPair() {
        var rng = SplitMix64(seed: 7)
        func bruteForce(_ r: [Planar]) -> (Int, Int)? {
            for i in 0..<r.count {
                for j in (i + 1)..<r.count where PolygonCheck.edgesMeet(r, i, j) { return (i, j) }
            }
            return nil
        }
        var crossing = 0
        for round in 0..<300 {
            let n = 4 + Int(rng.uniform(0, 120))
            var ring: [Planar] = []
            if round % 3 == 0 {
                for k in 0..<n {
                    let t = 2 * Double.pi * Double(k) / Double(n), r = 50 + rng.uniform(0, 40)
                    ring.append(Planar(x: r * cos(t), y: r * sin(t)))
                }
            } else {
                var p = Planar(x: 0, y: 0)
                for _ in 0..<n {
                    ring.append(p)
                    // Snapped to a grid now and then: touching vertices and collinear edges.
                    p = Planar(x: p.x + rng.uniform(-10, 10), y: p.y + rng.uniform(-10, 10))
                    if round % 3 == 2 { p = Planar(x: p.x.rounded(), y: p.y.rounded()) }
                }
            }
            let fast = PolygonCheck.selfIntersection(ring), slow = bruteForce(ring)
            #expect(fast?.0 == slow?.0 && fast?.1 == slow?.1, "round \(round)")
            if slow != nil { crossing += 1 }
        }
        #expect(crossing > 100, "the random walks must cross themselves for this to mean anything")
    }

    /// A valid ring of 160,000 vertices, as a GPS traces a large area: the candidates offered stay
    /// proportional to n (comparing every pair is 1.3·10¹⁰), and the ring is valid.
    @Test func aLongValidRingCostsAboutNLogN() {
        for n in [20_000, 160_000] {
            var ring: [Planar] = []
            for k in 0..<n {
                let t = 2 * Double.pi * Double(k) / Double(n)
                let wobble: Double = 0.1 * sin(37 * t) + 0.02 * sin(911 * t)
                let r: Double = 2000 * (1 + wobble)
                ring.append(Planar(x: r * cos(t), y: r * sin(t)))
            }
            let offered = SegmentPairs(ring: ring).forEachCandidate { _, _ in true }
            #expect(offered < 20 * n, "n = \(n): \(offered) candidate pairs")
            #expect(PolygonCheck.selfIntersection(ring) == nil)
            #expect(!PolygonCheck.ringsCross(ring, ring.map { Planar(x: $0.x * 0.5, y: $0.y * 0.5) }))
        }
    }
}
