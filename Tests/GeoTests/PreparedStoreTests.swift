@testable import Geo
@testable import Regions
import TestSupport
import Testing

/// A region set's prepared store (`RegionSet.storeBytes`): read back, it is the set written,
/// answer for answer; and bytes it did not write, cut short or changed, are refused, never read
/// out of bounds.
@Suite struct PreparedStore {
    /// 400 fences near Lisbon (stars with holes and second parts, circles; coordinates of many
    /// decimals), plus fences with every property, in fixed point, and across the antimeridian.
    static let set: RegionSet = {
        var rng = SplitMix64(seed: 48)
        var regions = starRegions(400, around: Coordinate(latitude: 38.7, longitude: -9.14), within: 15_000, sizes: 50...1_500,
                                  circleEvery: 4, vertices: [3, 5, 12, 40, 90], rng: &rng)
        regions.append(Region(id: "plant-1", kind: .plant, name: "Sobreiro do muro", shape: .circle(center: Coordinate(latitude: 38.71, longitude: -9.15), radius: 30),
                              intervalDays: 7, lastWatered: UTCTime(nanoseconds: 1_764_000_000_000_000_000), species: ["Quercus suber"],
                              priority: 2.5, note: "by the wall", project: nil))
        regions.append(Region(id: "área-2", kind: .reforestation, name: "Encosta", shape: .polygons(Polygons([[[
            Coordinate(latitude: 38.70, longitude: -9.12), Coordinate(latitude: 38.70, longitude: -9.11),
            Coordinate(latitude: 38.71, longitude: -9.11), Coordinate(latitude: 38.71, longitude: -9.12),
        ]]])), species: ["Pinus pinea", "Arbutus unedo"], note: nil, project: "Lousã 2026"))
        regions.append(Region(id: "dateline", kind: .album, name: "dateline", shape: .polygons(Polygons([[[
            Coordinate(latitude: -17.0, longitude: 179.99), Coordinate(latitude: -17.0, longitude: -179.99),
            Coordinate(latitude: -16.99, longitude: -179.99), Coordinate(latitude: -16.99, longitude: 179.99),
        ]]]))))
        return RegionSet(regions)
    }()

    static func read(_ bytes: [UInt8]) throws(StoreFormatError) -> RegionSet {
        let r = bytes.withUnsafeBytes { b in Result { () throws(StoreFormatError) in try RegionSet(storeBytes: b) } }
        return try r.get()
    }

    /// Points over the fences and around them, on their edges' ends too.
    static let points: [Coordinate] = {
        var rng = SplitMix64(seed: 7)
        var out = (0..<4_000).map { _ in
            Geodesic.wgs84.direct(from: Coordinate(latitude: 38.7, longitude: -9.14), bearing: rng.uniform(0, 360), distance: rng.uniform(0, 17_000))
        }
        out += [Coordinate(latitude: -16.995, longitude: 179.995), Coordinate(latitude: -16.995, longitude: -179.995),
                Coordinate(latitude: 38.705, longitude: -9.115), Coordinate(latitude: 38.71, longitude: -9.15)]
        for r in set.regions.prefix(60) {
            if case let .polygons(p) = r.shape { out += p[0][0].prefix(3) }
        }
        return out
    }()

    @Test func aSetReadBackAnswersAsTheSetWritten() throws {
        let set = Self.set
        let bytes = set.storeBytes()
        let back = try Self.read(bytes)
        #expect(back.regions == set.regions, "every region, properties and shape, as written")
        #expect(Array(back.boxes) == Array(set.boxes))
        #expect(back.bySize == set.bySize && back.bounds == set.bounds)
        #expect(back.index(ofID: "área-2") == set.index(ofID: "área-2") && back.index(ofID: "r399") == 399 && back.index(ofID: "none") == nil)
        var inside = 0
        for c in Self.points {
            let a = set.containing(c), b = back.containing(c)
            #expect(a == b, "the fences containing \(c)")
            inside += a.count
            let na = set.nearestBoundary(c), nb = back.nearestBoundary(c)
            #expect(na?.index == nb?.index && na?.signedDistance.bitPattern == nb?.signedDistance.bitPattern)
            var nearA: [Int] = [], nearB: [Int] = []
            set.forEachNear(c, within: 300) { i, _ in nearA.append(i) }
            back.forEachNear(c, within: 300) { i, _ in nearB.append(i) }
            #expect(nearA == nearB)
        }
        #expect(inside > 1_000, "the points meet the fences (\(inside) pairs)")
        for i in [0, 3, 401, 402] {
            #expect(set.signedDistance(i, Self.points[5]).bitPattern == back.signedDistance(i, Self.points[5]).bitPattern)
        }
        #expect(back.storeBytes() == bytes, "written again, the same bytes")
        let empty = try Self.read(RegionSet([]).storeBytes())
        #expect(empty.count == 0 && empty.containing(Self.points[0]).isEmpty)
    }

    @Test func bytesCutShortOrWithMoreAreRefused() {
        let small = RegionSet(Array(Self.set.regions.suffix(8)))
        let bytes = small.storeBytes()
        var refused = 0
        for n in 0..<bytes.count {
            do { _ = try Self.read(Array(bytes.prefix(n))); Issue.record("\(n) of \(bytes.count) bytes read") } catch { refused += 1 }
        }
        #expect(refused == bytes.count)
        #expect(throws: StoreFormatError.self) { try Self.read(bytes + [0]) }
        #expect(throws: StoreFormatError.self) { try Self.read(Array("{\"type\":\"FeatureCollection\"}".utf8)) }
    }

    /// The bytes of `set`'s store with one array's element changed: the array is found in the
    /// bytes by its own bytes (it is written as it lies in memory).
    func patched<T: BitwiseCopyable>(_ array: [T], at element: Int, _ change: (inout T) -> Void) throws -> [UInt8] {
        var bytes = Self.set.storeBytes()
        let whole = array.withUnsafeBytes { Array($0) }
        let start = try #require(bytes.indices.first { bytes[$0..<min(bytes.count, $0 + whole.count)].elementsEqual(whole) },
                                 "the array's bytes are in the store")
        var value = array[element]
        change(&value)
        withUnsafeBytes(of: &value) { v in
            for (k, b) in v.enumerated() { bytes[start + element * MemoryLayout<T>.stride + k] = b }
        }
        return bytes
    }

    @Test func offsetsOutsideTheirArraysAreRefusedWithWhatIsWrong() throws {
        let f = Self.set.fences
        let polygon = try #require(f.cores.firstIndex { $0.radius == 0 && $0.ringEnd - $0.ringStart >= 1 })
        func refused(_ bytes: [UInt8], _ words: String) {
            do {
                _ = try Self.read(bytes)
                Issue.record("read: \(words)")
            } catch {
                #expect(error.description.contains(words), "\(error.description)")
            }
        }
        func core(_ change: (FenceCore) -> FenceCore) throws -> [UInt8] { try patched(f.cores, at: polygon) { $0 = change($0) } }
        func with(_ c: FenceCore, ringEnd: Int32? = nil, vertexStart: Int32? = nil, gridStart: Int32? = nil, blockStart: Int32? = nil) -> FenceCore {
            FenceCore(frame: c.frame, radius: c.radius, gridMinX: c.gridMinX, gridMinY: c.gridMinY, gridScaleX: c.gridScaleX, gridScaleY: c.gridScaleY,
                      gridStart: gridStart ?? c.gridStart, reach: c.reach, vertexStart: vertexStart ?? c.vertexStart, ringStart: c.ringStart,
                      ringEnd: ringEnd ?? c.ringEnd, blockStart: blockStart ?? c.blockStart)
        }
        refused(try core { with($0, ringEnd: Int32(f.ringEnds.count + 1)) }, "core \(polygon): its rings or raster lie outside the store")
        refused(try core { with($0, gridStart: Int32(f.grids.count - 1)) }, "core \(polygon): its rings or raster lie outside the store")
        refused(try core { with($0, vertexStart: -1) }, "core \(polygon): its rings or raster lie outside the store")
        refused(try core { with($0, blockStart: Int32(f.blocks.count)) }, "core \(polygon): its edge blocks lie outside the store")
        let ring = Int(f.cores[polygon].ringStart)
        refused(try patched(f.ringEnds, at: ring) { $0 = Int32(f.vertices.count + 8) }, "lies outside the vertices")
        refused(try patched(f.ringEnds, at: ring) { $0 = f.cores[polygon].vertexStart + 2 }, "lies outside the vertices")
        refused(try patched(f.index.items, at: 0) { $0 = Int32(f.count) }, "index: its items are not the cores' boxes")
        refused(try patched(f.regionOfCore, at: 0) { $0 = f.regionOfCore[1] }, "core 0: its region")
        refused(try patched(f.coreOfRegion, at: 0) { $0 = Int32(f.count) }, "is not one whose core it is")
    }

    @Test func aCoresNumbersMustPlaceItsRasterAndFrame() throws {
        let f = Self.set.fences
        let polygon = try #require(f.cores.firstIndex { $0.radius == 0 })
        let circle = try #require(f.cores.firstIndex { $0.radius > 0 })
        func with(_ c: FenceCore, radius: Double? = nil, scaleX: Double? = nil, reach: Double? = nil, origin: Coordinate? = nil) -> FenceCore {
            FenceCore(frame: origin.map { LocalFrame(origin: $0) } ?? c.frame, radius: radius ?? c.radius, gridMinX: c.gridMinX, gridMinY: c.gridMinY,
                      gridScaleX: scaleX ?? c.gridScaleX, gridScaleY: c.gridScaleY, gridStart: c.gridStart, reach: reach ?? c.reach,
                      vertexStart: c.vertexStart, ringStart: c.ringStart, ringEnd: c.ringEnd, blockStart: c.blockStart)
        }
        let cases: [(Int, (FenceCore) -> FenceCore, String)] = [
            (polygon, { with($0, scaleX: .nan) }, "its raster or reach is not placed by finite numbers"),
            (polygon, { with($0, scaleX: -1e6) }, "its raster or reach is not placed by finite numbers"),
            (polygon, { with($0, scaleX: .infinity) }, "its raster or reach is not placed by finite numbers"),
            (polygon, { with($0, scaleX: 0) }, "its raster or reach is not placed by finite numbers"),
            (polygon, { with($0, reach: .nan) }, "its raster or reach is not placed by finite numbers"),
            (polygon, { with($0, radius: .nan) }, "its raster or reach is not placed by finite numbers"),
            (polygon, { with($0, radius: -3) }, "its raster or reach is not placed by finite numbers"),
            (polygon, { with($0, origin: Coordinate(latitude: .nan, longitude: 0)) }, "its frame is not one a fence has"),
            (circle, { with($0, radius: .infinity) }, "a circle of radius"),
            (circle, { c in
                let frame = c.frame
                var bytes = withUnsafeBytes(of: frame) { Array($0) }
                bytes[MemoryLayout<Coordinate>.stride] ^= 1  // o.x, one bit off its origin's
                let changed = bytes.withUnsafeBytes { $0.load(as: LocalFrame.self) }
                return FenceCore(frame: changed, radius: c.radius, gridMinX: 0, gridMinY: 0, gridScaleX: 0, gridScaleY: 0, gridStart: 0, reach: c.reach,
                                 vertexStart: 0, ringStart: 0, ringEnd: 0, blockStart: 0)
            }, "its frame is not one a fence has"),
        ]
        for (k, change, words) in cases {
            do {
                _ = try Self.read(try patched(f.cores, at: k) { $0 = change($0) })
                Issue.record("read: \(words)")
            } catch {
                #expect("\(error)".contains("core \(k): \(words)"), "\(error)")
            }
        }
    }

    @Test func aRegionsValuesMustBeOnesAFileGives() {
        let c = Coordinate(latitude: 38.7, longitude: -9.1)
        let bad: [Region] = [
            Region(id: "p", kind: .plant, name: "p", shape: .circle(center: c, radius: 30), priority: .infinity),
            Region(id: "n", kind: .album, name: "n", shape: .circle(center: c, radius: 30), note: String(repeating: "x", count: Region.maxTextBytes + 1)),
            Region(id: "o", kind: .album, name: "o", shape: .circle(center: Coordinate(latitude: 91, longitude: 0), radius: 30)),
            Region(id: "r", kind: .album, name: "r", shape: .circle(center: c, radius: 0.5)),
            Region(id: "w", kind: .plant, name: "w", shape: .circle(center: c, radius: 30), intervalDays: 3, lastWatered: UTCTime(nanoseconds: .min + 1)),
            Region(id: "x", kind: .plant, name: "x", shape: .circle(center: c, radius: 30), intervalDays: 3, lastWatered: UTCTime(nanoseconds: .max)),
            Region(id: "q", kind: .album, name: "q", shape: .polygons(Polygons([[[c, Coordinate(latitude: 38.7, longitude: 181), Coordinate(latitude: 38.8, longitude: -9.1)]]]))),
            // Texts a regions file refuses: an escape sequence, a line break, a text-direction override.
            Region(id: "e\u{1B}[2J", kind: .album, name: "e", shape: .circle(center: c, radius: 30)),
            Region(id: "l", kind: .album, name: "two\nlines", shape: .circle(center: c, radius: 30)),
            Region(id: "s", kind: .reforestation, name: "s", shape: .circle(center: c, radius: 30), species: ["Pinus\u{202E}txt.exe"]),
            Region(id: "t", kind: .album, name: "t", shape: .circle(center: c, radius: 30), note: "ok", project: "p\u{9B}31m"),
        ]
        for r in bad {
            #expect(throws: StoreFormatError.self, "region \(r.id)") { try Self.read(RegionSet([r], rasters: false).storeBytes()) }
        }
        let good = Region(id: "g", kind: .plant, name: "g", shape: .circle(center: c, radius: 30), intervalDays: 3, priority: -2,
                          note: String(repeating: "x", count: Region.maxTextBytes))
        #expect((try? Self.read(RegionSet([good]).storeBytes()))?.regions == [good])
        let oldest = Region(id: "o", kind: .plant, name: "o", shape: .circle(center: c, radius: 30), intervalDays: 3,
                            lastWatered: UTCTime(iso8601: "1678-01-01T00:00:00+23:59"))
        #expect((try? Self.read(RegionSet([oldest]).storeBytes()))?.regions == [oldest], "the earliest watering a file gives")
    }

    @Test func aShapeWhoseLayoutDoesNotHoldIsRefused() throws {
        guard case let .polygons(p) = Self.set.regions[0].shape else { Issue.record("r0 is a star"); return }
        let w = p.storedWords
        // The first ring's end one position in: a ring of one position.
        var bytes = try patched(w, at: Polygons.header + Int(w[0])) { $0 = 1 }
        #expect(throws: StoreFormatError.self) { try Self.read(bytes) }
        bytes = try patched(w, at: 0) { $0 = 0 }
        #expect(throws: StoreFormatError.self) { try Self.read(bytes) }
        #expect(Polygons(storedWords: w) != nil && Polygons(storedWords: Array(w.dropLast())) == nil && Polygons(storedWords: []) == nil)
        #expect(Polygons(storedWords: w + [0, 0]) == nil, "more words than the positions take")
    }

    /// Any byte changed: the store is refused, or read into a set whose queries stay within its
    /// arrays (a debug build checks every index: a read out of bounds would stop the test).
    @Test func anyByteChangedIsRefusedOrHarmless() {
        let small = RegionSet(Array(Self.set.regions.suffix(40)))
        let bytes = small.storeBytes()
        var rng = SplitMix64(seed: 3)
        var refused = 0, read = 0
        for _ in 0..<2_000 {
            var b = bytes
            let k = Int(rng.next() % UInt64(b.count))
            b[k] = UInt8(truncatingIfNeeded: rng.next() | 1) ^ b[k]
            guard let set = try? Self.read(b) else { refused += 1; continue }
            read += 1
            var cache = NearbyCache(), along: [Int32] = []
            for (a, c) in zip(Self.points.suffix(11), Self.points.suffix(10)) {
                _ = set.containing(c)
                _ = set.nearestBoundary(c)
                set.forEachNear(c, within: 500) { _, _ in }
                let p = ECEF(c)
                for i in 0..<set.count {
                    _ = set.classify(i, c, p)
                    _ = set.signedDistanceUpperBound(i, p)
                    _ = set.approximateSignedDistance(i, p)
                    _ = set.circleBounds(i, p)
                    _ = set.chordUpperBound(i, p)
                }
                set.appendRegions(along: a, c, length: Geodesic.wgs84.distance(a, c), within: 200, cache: &cache, to: &along)
            }
        }
        #expect(refused > 0 && read > 0, "\(refused) refused, \(read) read (a changed vertex or box is a store of other fences)")
    }
}
