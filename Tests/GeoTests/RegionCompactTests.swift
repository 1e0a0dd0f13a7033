@testable import Geo
@testable import Regions
import Testing

/// What a region set holds per region is small, and asks nothing of its users: a region's rarer
/// properties in a box of their own, each region's index by id in a table of 4-byte slots.
@Suite struct RegionCompact {
    static let square: Shape = .polygons([[[Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 0, longitude: 0.001),
                                            Coordinate(latitude: 0.001, longitude: 0.001)]]])

    /// Every id finds its region, the first where ids repeat, across table sizes (8 slots to
    /// 32,768); an id not there finds none.
    @Test func everyIDFindsItsRegionAndTheFirstWins() {
        for n in [0, 1, 3, 4, 5, 1_000, 16_384] {
            var regions = (0..<n).map { Region(id: "r\($0)", kind: .album, name: "r\($0)", shape: Self.square) }
            regions += (0..<(n / 3)).map { Region(id: "r\($0 * 3)", kind: .plant, name: "again", shape: Self.square) }
            let set = RegionSet(regions, rasters: false, parallel: false)
            for i in 0..<n { #expect(set.index(ofID: "r\(i)") == i, "n \(n), r\(i)") }
            #expect(set.index(ofID: "r\(n)") == nil && set.index(ofID: "") == nil && set.index(ofID: "R0") == nil)
        }
    }

    /// Each region's boxes read back in order, one or two (a second only across the
    /// antimeridian, kept apart): the first, the last and neighbours of two-box regions.
    @Test func eachRegionsBoxesReadBackFromTheFlatStore() {
        let boxes: [[GeoBox]] = (0..<1_000).map { i in
            let b = GeoBox(minLat: Double(i) / 20 - 25, minLon: 170, maxLat: Double(i) / 20 - 24, maxLon: 180)
            return i % 7 == 3 || i == 0 || i == 999 ? [b, GeoBox(minLat: b.minLat, minLon: -180, maxLat: b.maxLat, maxLon: -179)] : [b]
        }
        let flat = FenceBoxes(boxes)
        #expect(flat.count == 1_000 && flat.map(Array.init) == boxes)
        #expect(flat[3].count == 2 && flat[4].count == 1 && flat[999].count == 2 && flat[998].count == 1)
        let set = RegionSet([Region(id: "far", kind: .album, name: "far", shape: .circle(center: Coordinate(latitude: 10, longitude: 179.9999), radius: 500)),
                             Region(id: "near", kind: .album, name: "near", shape: Self.square)])
        #expect(set.boxes[0].count == 2 && set.boxes[1].count == 1)
        #expect(set.boxes.map(Array.init) == [Fence.boxes(of: set.regions[0].shape), Fence.boxes(of: set.regions[1].shape)])
    }

    /// The boxed properties read back as set, a copy keeps its own, and a region with none of
    /// them holds no box.
    @Test func theRarerPropertiesReadBackAndCopiesKeepTheirOwn() {
        let bare = Region(id: "a", kind: .plant, name: "a", shape: Self.square)
        #expect(bare.intervalDays == nil && bare.lastWatered == nil && bare.species.isEmpty && bare.priority == nil
            && bare.note == nil && bare.project == nil)
        var full = Region(id: "a", kind: .plant, name: "a", shape: Self.square, intervalDays: 7,
                          lastWatered: UTCTime(nanoseconds: 1_700_000_000_000_000_000), species: ["Quercus suber"],
                          priority: 2.5, note: "by the well", project: "north")
        let copy = full
        #expect(full != bare && copy == full)
        full.note = "moved"
        full.species.append("Pinus pinea")
        #expect(copy.note == "by the well" && copy.species == ["Quercus suber"])
        #expect(full.note == "moved" && full.species == ["Quercus suber", "Pinus pinea"] && full.intervalDays == 7
            && full.lastWatered == UTCTime(nanoseconds: 1_700_000_000_000_000_000) && full.priority == 2.5
            && full.project == "north")
        var emptied = copy
        emptied.intervalDays = nil
        emptied.lastWatered = nil
        emptied.species = []
        emptied.priority = nil
        emptied.note = nil
        emptied.project = nil
        #expect(emptied == bare)
        #expect(MemoryLayout<Region>.stride <= 80, "a bare region is its id, kind, name, shape and one reference")
    }
}
