/// A fence set in a prepared store (`RegionSet`'s, in Regions): its flat arrays as they lie in
/// memory, read back by a copy each. The upper levels of the index and the cores' boxes are made
/// again: they are cheap, and what is made again needs no check.
///
/// A store is a file, and a file is checked before it is trusted: every number the queries use
/// to reach into an array (a core's rings, raster and edge runs; the index's items; the regions'
/// cores) is checked to stay within its array, so that a store cut short, damaged or written by
/// hand is refused with what is wrong in it, never read out of bounds.
extension FenceSet {
    package func write(to w: inout StoreWriter) {
        w.int(count)
        boxes.write(to: &w)
        w.array(index.entryBoxes)
        w.array(index.items)
        w.array(cores)
        w.array(regionOfCore)
        w.array(coreOfRegion)
        w.array(vertices)
        w.array(ringEnds)
        w.rasterWords(grids)
        w.array(blocks)
    }

    /// The set `write` wrote, for `count` regions whose shapes `shape` gives.
    package init(reading r: inout StoreReader, count: Int, shape: @escaping @Sendable (Int) -> Shape) throws(StoreFormatError) {
        guard try r.int() == count else { throw StoreFormatError("the fences are not as many as the regions") }
        let boxes = try FenceBoxes(reading: &r, count: count)
        let entryBoxes: [GeoBox] = try r.array("index boxes"), items: [Int32] = try r.array("index items")
        let cores: [FenceCore] = try r.array("cores")
        let regionOfCore: [Int32] = try r.array("regions of cores")
        let coreOfRegion: [Int32] = try r.array("cores of regions")
        let vertices: [Planar] = try r.array("vertices")
        let ringEnds: [Int32] = try r.array("ring ends")
        let grids = try r.rasterWords("rasters")
        let blocks: [EdgeBlock] = try r.array("edge blocks")
        guard let index = BoxIndex(entryBoxes: entryBoxes, items: items) else { throw StoreFormatError("index: boxes and items differ in number") }
        guard cores.count == count, regionOfCore.count == count, coreOfRegion.count == count else {
            throw StoreFormatError("\(cores.count) cores for \(count) regions")
        }
        for (k, i) in regionOfCore.enumerated() where !(i >= 0 && Int(i) < count && coreOfRegion[Int(i)] == Int32(k)) {
            throw StoreFormatError("core \(k): its region \(i) is not one whose core it is")
        }
        guard items.count == count + boxes.lazy.filter({ $0.count == 2 }).count,
              items.allSatisfy({ $0 >= 0 && Int($0) < count }) else {
            throw StoreFormatError("index: its items are not the cores' boxes")
        }
        for k in cores.indices { try Self.check(core: k, cores[k], vertices: vertices.count, ringEnds: ringEnds, grids: grids.count, blocks: blocks.count) }
        storage = Storage(count: count, shape: shape, boxes: boxes, index: index, cores: cores, regionOfCore: regionOfCore,
                          coreOfRegion: coreOfRegion, vertices: vertices, ringEnds: ringEnds, grids: grids, blocks: blocks,
                          coreBoxes: Self.coreBoxes(boxes, regionOfCore))
    }

    /// That a polygon's core reaches only into the store's arrays, as the queries read them: its
    /// rings (3 vertices at least each) within the vertices, its raster's words and its edge
    /// blocks (⌈n / 8⌉ per ring of n) within theirs. A circle reaches into none.
    private static func check(core k: Int, _ core: FenceCore, vertices: Int, ringEnds: [Int32], grids: Int, blocks: Int) throws(StoreFormatError) {
        // The numbers the queries compute a cell or a distance from: a frame as `LocalFrame`
        // makes it, and a circle's radius or a polygon's raster placed by finite numbers (a NaN
        // or negative scale would put a point's cell outside its raster, and a zero one gives NaN
        // bounds: a built raster's scale is 32 cells over its width, above 0).
        let f = core.frame
        guard abs(f.origin.latitude) <= 90, abs(f.origin.longitude) <= 180, f == LocalFrame(origin: f.origin) else {
            throw StoreFormatError("core \(k): its frame is not one a fence has")
        }
        if core.radius > 0 {
            guard core.radius.isFinite else { throw StoreFormatError("core \(k): a circle of radius \(core.radius)") }
            return
        }
        guard core.radius == 0, core.reach.isFinite, core.reach >= 0, core.gridMinX.isFinite, core.gridMinY.isFinite,
              core.gridScaleX.isFinite, core.gridScaleY.isFinite, core.gridScaleX > 0, core.gridScaleY > 0 else {
            throw StoreFormatError("core \(k): its raster or reach is not placed by finite numbers")
        }
        guard core.ringStart >= 0, core.ringStart < core.ringEnd, Int(core.ringEnd) <= ringEnds.count, core.vertexStart >= 0,
              core.gridStart >= 0, Int(core.gridStart) + FenceCore.gridWords <= grids else {
            throw StoreFormatError("core \(k): its rings or raster lie outside the store")
        }
        let rings = Int(core.ringStart)..<Int(core.ringEnd)
        var start = Int(core.vertexStart), runs = 0
        for r in rings {
            let end = Int(ringEnds[r])
            guard end - start >= 3, end <= vertices else { throw StoreFormatError("core \(k): ring \(r) lies outside the vertices") }
            runs += (end - start + EdgeBlock.edges - 1) / EdgeBlock.edges
            start = end
        }
        guard core.blockStart >= 0, Int(core.blockStart) + runs <= blocks else {
            throw StoreFormatError("core \(k): its edge blocks lie outside the store")
        }
    }
}
