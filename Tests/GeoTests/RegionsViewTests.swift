import Foundation
import Geo
import JSON
import Regions
import Testing

// A map's view of the regions (`RegionsQuery`, `RegionsSelection`, `RingSimplifier`): the fence
// index's answer for a box, the cap (largest first), named regions, and rings thinned to a pixel
// that stay rings.

/// A circle of `n` vertices around (lat, lon), `radius` degrees of latitude, open.
private func rvRing(_ lat: Double, _ lon: Double, radius: Double, n: Int) -> [Coordinate] {
    (0..<n).map { k in
        let a = Double(k) / Double(n) * 2 * Double.pi
        return Coordinate(latitude: lat + radius * sin(a), longitude: lon + radius * cos(a) / cos(lat * Double.pi / 180))
    }
}

/// A grid of 20 × 20 regions 0.01° apart near Lisbon: odd ones circles, even ones polygons whose
/// size grows with their index.
private func rvSet() -> RegionSet {
    var regions: [Region] = []
    for row in 0..<20 {
        for col in 0..<20 {
            let k = row * 20 + col
            let lat = 38.6 + Double(row) * 0.01, lon = -9.2 + Double(col) * 0.01
            let shape: Shape = k % 2 == 1
                ? .circle(center: Coordinate(latitude: lat, longitude: lon), radius: 50)
                : .polygons([[rvRing(lat, lon, radius: 0.0005 + Double(k) * 0.00001, n: 40)]])
            regions.append(Region(id: "r\(k)", kind: k % 2 == 1 ? .plant : .reforestation, name: "R \(k)", shape: shape,
                                  intervalDays: k % 2 == 1 ? 3 : nil))
        }
    }
    return RegionSet(regions)
}

@Suite struct RegionsViewTests {
    @Test func aViewGetsWhatItsBoxMeetsFromTheIndex() {
        let set = rvSet()
        // Rows 2…4 and columns 5…7: 9 regions whose boxes meet it (their centres inside).
        let view = RegionsQuery.BBox(west: -9.2 + 0.05 - 0.001, south: 38.6 + 0.02 - 0.001, east: -9.2 + 0.07 + 0.001, north: 38.6 + 0.04 + 0.001)
        let picked = RegionsSelection(RegionsQuery(bbox: view), in: set)
        #expect(picked.indices == [45, 46, 47, 65, 66, 67, 85, 86, 87])
        #expect(picked.total == 9 && !picked.truncated)
        // Far away: nothing.
        #expect(RegionsSelection(RegionsQuery(bbox: .init(west: 10, south: 10, east: 11, north: 11)), in: set).indices.isEmpty)
        // The whole world, and a view across the antimeridian (west > east) that covers these longitudes.
        #expect(RegionsSelection(RegionsQuery(bbox: .init(west: -180, south: -90, east: 180, north: 90), limit: 10_000), in: set).total == 400)
        #expect(RegionsSelection(RegionsQuery(bbox: .init(west: 170, south: 0, east: -9.195, north: 50), limit: 10_000), in: set).total == 20)
    }

    @Test func theCapKeepsTheLargestAndSaysSo() throws {
        let set = rvSet()
        let picked = RegionsSelection(RegionsQuery(bbox: .init(west: -180, south: -90, east: 180, north: 90), limit: 5), in: set)
        #expect(picked.total == 400 && picked.truncated)
        // The largest polygons are the last even ones.
        #expect(picked.indices == [390, 392, 394, 396, 398])
        // The bounds are of all 400, not of the five kept.
        let b = try #require(picked.bounds)
        #expect(b.minLat < 38.6 && b.maxLat > 38.79 && b.minLon < -9.2 && b.maxLon > -9.01)
        // One kept: the largest; ties go to the earlier.
        #expect(RegionsSelection(RegionsQuery(limit: 1), in: set).indices == [398])
        #expect(RegionsSelection(RegionsQuery(limit: 2, ids: ["r1", "r3", "r5"]), in: set).indices == [1, 3])
        // A view without a limit is capped all the same.
        #expect(RegionsQuery(bbox: .init(west: 0, south: 0, east: 1, north: 1)).cap == RegionsQuery.defaultViewLimit)
        #expect(RegionsQuery().cap == nil)
    }

    @Test func namedRegionsAndTheMissing() {
        let set = rvSet()
        let picked = RegionsSelection(RegionsQuery(ids: ["r7", "gone", "r3", "r7"]), in: set)
        #expect(picked.indices == [3, 7])
        #expect(picked.missing == ["gone"])
    }

    /// Plants watered at the ends of what a file or a command can say (1678, 2261): the reply
    /// says when each is due, where the sums once overflowed (a trap at every `regions`).
    @Test func wateringsAtTheEndsOfTimeAreAnswered() throws {
        let c = Coordinate(latitude: 40.1, longitude: -8.2)
        let set = RegionSet([Region(id: "old", kind: .plant, name: "old", shape: .circle(center: c, radius: 30), intervalDays: 365),
                             Region(id: "late", kind: .plant, name: "late", shape: .circle(center: c, radius: 30), intervalDays: 365)])
        let oldest = try #require(UTCTime(iso8601: "1678-01-01T00:00:00Z")), latest = try #require(UTCTime(iso8601: "2261-12-31T00:00:00Z"))
        let now = try #require(UTCTime(iso8601: "2026-12-02T00:00:00Z"))
        let inForce = RegionsInForce(set: set, baseCount: 2, inside: [false, false], lastWatered: [oldest, latest], at: nil, now: now)
        #expect(inForce.isDue(0) == true && inForce.isDue(1) == false)
        let text = String(decoding: inForce.regionsReply(geometry: false), as: UTF8.self)
        #expect(text.contains(#""last_watered":"1678-01-01T00:00:00.000Z","next_due":"1679-01-01T00:00:00.000Z","due_in_s":-10979193600,"due":true"#), "\(text)")
        #expect(text.contains(#""next_due":"2262-04-11T23:47:16.854Z","due_in_s":7427202436,"due":false"#), "\(text)")
    }

    @Test func theReplySaysWhatTheCapCut() throws {
        let set = rvSet()
        let inForce = RegionsInForce(set: set, baseCount: set.count, inside: Array(repeating: false, count: set.count),
                                     lastWatered: Array(repeating: nil, count: set.count), at: nil, now: UTCTime(nanoseconds: 0))
        let bytes = inForce.regionsReply(RegionsQuery(geometry: true, bbox: .init(west: -180, south: -90, east: 180, north: 90), zoom: 10, limit: 3))
        let doc = try JSONDocument.parse(bytes)
        guard case let .object(members) = doc.root else { Issue.record("not an object"); return }
        let m = Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(m["total"]?.number == 400)
        guard case let .array(bounds)? = m["bounds"] else { Issue.record("no bounds"); return }
        #expect(bounds.count == 4)
        if case .bool(true)? = m["truncated"] {} else { Issue.record("not truncated") }
        guard case let .array(items)? = m["regions"] else { Issue.record("no regions"); return }
        #expect(items.count == 3)
        // Without a view or a limit: no count, as before.
        let all = String(decoding: inForce.regionsReply(geometry: false), as: UTF8.self)
        #expect(!all.contains("\"total\"") && !all.contains("\"truncated\""))
        let named = String(decoding: inForce.regionsReply(RegionsQuery(ids: ["r1", "nope"])), as: UTF8.self)
        #expect(named.hasSuffix(#""missing":["nope"]}"#))
    }

    @Test func boxesThatAreNotViewsAreNamed() {
        #expect(RegionsQuery.BBox(west: 0, south: 1, east: 1, north: 0).problem?.contains("south is north") == true)
        #expect(RegionsQuery.BBox(west: -181, south: 0, east: 1, north: 1).problem?.contains("longitudes") == true)
        #expect(RegionsQuery.BBox(west: 0, south: -91, east: 1, north: 1).problem?.contains("latitudes") == true)
        #expect(RegionsQuery.BBox(west: .nan, south: 0, east: 1, north: 1).problem?.contains("finite") == true)
        #expect(RegionsQuery.BBox(west: 179, south: 0, east: -179, north: 1).problem == nil)
    }
}

@Suite struct RingSimplifierTests {
    @Test func aRingIsThinnedToAPixelAndStaysARing() {
        var scratch = RingSimplifier.Scratch()
        let ring = rvRing(38.7, -9.1, radius: 0.005, n: 400)   // about 550 m across
        let far = RingSimplifier.simplify(ring, zoom: 5, scratch: &scratch)
        let near = RingSimplifier.simplify(ring, zoom: 16, scratch: &scratch)
        let closest = RingSimplifier.simplify(ring, zoom: 24, scratch: &scratch)
        // At zoom 5 the ring is under a pixel: a triangle. Finer zooms keep more, all from the ring, in order.
        #expect(far.count == 3)
        #expect(near.count > far.count && near.count < ring.count)
        #expect(closest.count > near.count)
        for thinned in [far, near, closest] {
            var k = 0
            for c in thinned {
                guard let j = ring[k...].firstIndex(of: c) else { Issue.record("a vertex not of the ring, or out of order"); break }
                k = j + 1
            }
        }
        // Every vertex left out lies within a pixel (at zoom 16) of the thinned outline.
        let scale = RingSimplifier.worldPixels(zoom: 16)
        func px(_ c: Coordinate) -> (Double, Double) {
            let phi = c.latitude * Double.pi / 180
            return (c.longitude / 360 * scale, log(tan(Double.pi / 4 + phi / 2)) / (2 * Double.pi) * scale)
        }
        let outline = (near + [near[0]]).map(px)
        for c in ring {
            let p = px(c)
            var best = Double.infinity
            for k in 0..<(outline.count - 1) {
                let a = outline[k], b = outline[k + 1]
                let dx = b.0 - a.0, dy = b.1 - a.1
                let t = max(0, min(1, ((p.0 - a.0) * dx + (p.1 - a.1) * dy) / (dx * dx + dy * dy)))
                best = min(best, hypot(p.0 - a.0 - t * dx, p.1 - a.1 - t * dy))
            }
            #expect(best <= 1.000001)
        }
    }

    @Test func positionsAreWrittenToATenthOfAPixel() {
        #expect(RingSimplifier.decimals(zoom: 0) == 1)
        #expect(RingSimplifier.decimals(zoom: 10) == 4)
        #expect(RingSimplifier.decimals(zoom: 17) == 6)
        #expect(RingSimplifier.decimals(zoom: 24) == 9)
        for z in 0...24 {
            let tenth = 360 / RingSimplifier.worldPixels(zoom: z) / 10
            #expect(pow(10, -Double(RingSimplifier.decimals(zoom: z))) <= tenth || RingSimplifier.decimals(zoom: z) == 9)
        }
    }

    @Test func smallRingsHolesAndCirclesAsTheyMustBe() {
        var scratch = RingSimplifier.Scratch()
        let triangle = [Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 1, longitude: 0), Coordinate(latitude: 0, longitude: 1)]
        #expect(RingSimplifier.simplify(triangle, zoom: 0, scratch: &scratch) == triangle)
        let outer = rvRing(38.7, -9.1, radius: 0.01, n: 200), hole = rvRing(38.7, -9.1, radius: 0.002, n: 100)
        guard case let .polygons(parts) = RingSimplifier.simplify(.polygons([[outer, hole]]), zoom: 3, scratch: &scratch) else {
            Issue.record("not polygons")
            return
        }
        #expect(parts.count == 1 && parts[0].count == 2 && parts[0].allSatisfy { $0.count >= 3 })
        let circle = Shape.circle(center: Coordinate(latitude: 1, longitude: 2), radius: 30)
        #expect(RingSimplifier.simplify(circle, zoom: 1, scratch: &scratch) == circle)
    }

    @Test func aRingAcrossTheAntimeridianIsThinnedAsDrawn() {
        var scratch = RingSimplifier.Scratch()
        // A square from 179.5° E to 179.5° W with many vertices along each side.
        var ring: [Coordinate] = []
        for k in 0..<50 { ring.append(Coordinate(latitude: 10, longitude: normalised(179.5 + Double(k) / 50))) }
        for k in 0..<50 { ring.append(Coordinate(latitude: 10 + Double(k) / 50, longitude: -179.5)) }
        for k in 0..<50 { ring.append(Coordinate(latitude: 11, longitude: normalised(-179.5 - Double(k) / 50))) }
        for k in 0..<50 { ring.append(Coordinate(latitude: 11 - Double(k) / 50, longitude: 179.5)) }
        let thinned = RingSimplifier.simplify(ring, zoom: 8, scratch: &scratch)
        // The four corners, nothing between them (each side is straight).
        #expect(thinned.count == 4)
    }

    private func normalised(_ lon: Double) -> Double { lon > 180 ? lon - 360 : (lon < -180 ? lon + 360 : lon) }
}
