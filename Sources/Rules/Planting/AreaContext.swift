#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo
import Regions

/// A region's rings in its fence's local frame, and how to ask whether a planar point may hold a
/// tree.
struct AreaContext {
    let regions: RegionSet
    let index: Int
    let margin: Double
    let frame: LocalFrame
    /// Polygons: each part's rings (outer first), open.
    let parts: [[[Planar]]]
    /// Circles: the radius (centred at the frame's origin); 0 for polygons.
    let radius: Double
    /// The largest chord from the frame's origin to a vertex (circles: the radius).
    let reach: Double

    /// Millimetres within which the planar answer defers to the region set.
    static let tolerance = 1e-3

    init(regions: RegionSet, index: Int, margin: Double) {
        self.regions = regions
        self.index = index
        self.margin = margin
        let fence = Fence(regions.regions[index].shape)
        frame = fence.frame
        switch regions.regions[index].shape {
        case let .circle(_, r):
            radius = r
            parts = []
            reach = r
        case let .polygons(shape):
            radius = 0
            var parts: [[[Planar]]] = []
            var ring = 0, start = 0
            for p in shape {
                var rings: [[Planar]] = []
                for _ in p {
                    let end = Int(fence.ringEnds[ring])
                    rings.append(Array(fence.vertices[start..<end]))
                    start = end
                    ring += 1
                }
                parts.append(rings)
            }
            self.parts = parts
            let o = ECEF(fence.frame.origin)
            reach = shape.flatMap { $0.flatMap { $0 } }.reduce(0) { max($0, ECEF($1).distance(to: o)) }
        }
    }

    /// Why `first` may not hold the first tree, if it may not.
    func refusal(_ first: Coordinate) -> PlanShortfall? {
        let sd = regions.signedDistance(index, first)
        let inside = regions.contains(index, first)
        if inside, sd >= margin { return nil }
        if inside, sd >= 0 { return .firstNearEdge(distance: sd, margin: margin) }
        let q = frame.project(first)
        for rings in parts where PlanarArea.ringContains(rings[0], q) && rings.count > 1 {
            return .firstInHole(distance: abs(sd))
        }
        return .firstOutside(distance: abs(sd))
    }

    func figures(spacing: Double) -> AreaFigures {
        if radius > 0 { return AreaFigures(squareMetres: .pi * radius * radius, perimeter: 2 * .pi * radius, spacing: spacing) }
        var area = 0.0, perimeter = 0.0
        for rings in parts {
            for (k, ring) in rings.enumerated() {
                area += (k == 0 ? 1 : -1) * PlanarArea.ringArea(ring)
                perimeter += PlanarArea.ringLength(ring)
            }
        }
        return AreaFigures(squareMetres: area, perimeter: perimeter, spacing: spacing)
    }

    /// Groups of parts whose boxes, grown by `pad`, meet: trees in different groups are farther
    /// apart than the spacing, so each group is filled on its own grid.
    func clusters(pad: Double) -> [(box: PlanarBox, rings: [[Planar]], longestEdgeAngle: Double)] {
        if radius > 0 {
            let r = radius * (1 + 1e-6) + 1e-3
            return [(PlanarBox(minX: -r, minY: -r, maxX: r, maxY: r), [], 0)]
        }
        var groups: [(box: PlanarBox, parts: [Int])] = parts.enumerated().map { k, rings in
            var b = PlanarBox.empty
            for p in rings[0] { b.add(p) }
            return (b, [k])
        }
        var merged = true
        while merged {
            merged = false
            outer: for i in groups.indices {
                for j in groups.indices where j > i && groups[i].box.grown(pad).intersects(groups[j].box.grown(pad)) {
                    groups[i].box = groups[i].box.union(groups[j].box)
                    groups[i].parts += groups[j].parts
                    groups.remove(at: j)
                    merged = true
                    break outer
                }
            }
        }
        return groups.map { g in
            let rings = g.parts.sorted().flatMap { parts[$0] }
            var longest = 0.0, angle = 0.0
            for ring in rings {
                var b = ring[ring.count - 1]
                for a in ring {
                    let dx = a.x - b.x, dy = a.y - b.y
                    if dx * dx + dy * dy > longest {
                        longest = dx * dx + dy * dy
                        angle = atan2(dy, dx)
                    }
                    b = a
                }
            }
            return (g.box, rings, angle)
        }
    }

    /// The admission test over `window`, for all the area's rings or just `rings`.
    func admission(window: PlanarBox, cellSize: Double, rings: [[Planar]]? = nil) -> Admission {
        let area = PlanarArea(rings: radius > 0 ? [] : rings ?? parts.flatMap { $0 }, window: window,
                              proximity: margin + Self.tolerance, cellSize: cellSize)
        return Admission(area: area, radius: radius, margin: margin, context: self)
    }
}
