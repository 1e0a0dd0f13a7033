import AR
import Geo
import TestSupport
import Testing

/// A random stacking problem, made to hit what the reference is touchy about: boxes in tight
/// clusters (long climbs), exact duplicates, y on a grid (boxes that touch but do not overlap, and
/// the same y for all, as with offset none), ties in distance, clusters on the panorama's seam,
/// priorities, and caps. With `mixedSizes`, boxes of their own sizes too (as a view sizes each to
/// its text): narrow and wide, short and tall, among boxes of the stacking's size.
struct RandomLayout: CustomStringConvertible {
    var seed: UInt64
    var boxes: [ScreenBox] = []
    var stacking: Stacking
    var mixedSizes = false

    init(seed: UInt64, maxCount: Int = 250, mixedSizes: Bool = false) {
        self.mixedSizes = mixedSizes
        self.seed = seed
        var rng = SplitMix64(seed: seed)
        func pick(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        let sizes: [(Double, Double)] = [(100, 40), (100, 40), (60, 20), (150, 45), (33.3, 17.9)]
        let (w, h) = sizes[pick(sizes.count)]
        let screenWidth = [360.0, 640, 1280, 217][pick(4)]
        let fov = [60.0, 45, 90, 37.5][pick(4)]
        let hppd = screenWidth / fov
        let seam = pick(5) == 0 ? nil : Stacking.Seam(centerX: screenWidth / 2, panoramaWidth: 360 * hppd)
        let count = 1 + pick(maxCount)
        let clusters = (0..<(1 + pick(6))).map { _ -> (Double, Double) in
            // Centre (Δ, degrees) and spread; one in three on the seam.
            (pick(3) == 0 ? 180 - rng.uniform(0, 8) : rng.uniform(-180, 180), [0.0, 2, 10, 40][pick(4)])
        }
        let yMode = pick(4)  // 0: all on one row, 1: a grid of 5 px, 2: continuous, 3: a grid of h+5
        let y0 = rng.uniform(-50, 700)
        let gridX = pick(3) == 0
        let tiesInDistance = pick(3) == 0
        let priorities = pick(3) == 0
        for i in 0..<count {
            let (c, spread) = clusters[pick(clusters.count)]
            var delta = c + rng.uniform(-spread, spread)
            if delta > 180 { delta -= 360 } else if delta <= -180 { delta += 360 }
            // Its own size: one of a few (several boxes share each, as names of a length do).
            let own: BoxSize? = mixedSizes && pick(3) != 0
                ? [BoxSize(width: w * 1.7, height: h), BoxSize(width: w * 0.6, height: h * 1.5), BoxSize(width: w * 1.3, height: h * 2.1),
                   BoxSize(width: 33.3, height: 17.9), BoxSize(width: w + rng.uniform(-20, 20), height: h + rng.uniform(-8, 8))][pick(5)]
                : nil
            let bw = own?.width ?? w
            var x = screenWidth / 2 - bw / 2 + delta * hppd
            if gridX { x = (x / (w / 2)).rounded() * (w / 2) }
            let y: Double
            switch yMode {
            case 0: y = y0
            case 1: y = y0 - (rng.uniform(0, 300) / 5).rounded() * 5
            case 2: y = y0 - rng.uniform(0, 300)
            default: y = y0 - Double(pick(6)) * (h + 5)
            }
            let distance = tiesInDistance ? Double(10 * (1 + pick(5))) : rng.uniform(1, 5000)
            let priority = priorities ? Double(pick(3)) : 0
            boxes.append(ScreenBox(x: x, y: y, distance: distance, id: "p\((i * 7919) % 10007)", priority: priority, size: own))
        }
        // Now and then duplicates: the same box twice under another id.
        if count > 3, pick(4) == 0 {
            for k in 0..<(count / 4) {
                var b = boxes[pick(count)]
                b.id = "dup\(k)"
                boxes.append(b)
            }
        }
        let maxLevels: Int? = pick(4) == 0 ? pick(6) : nil
        let topLimit: Double? = pick(4) == 0 ? y0 - rng.uniform(0, 400) : nil
        stacking = Stacking(boxWidth: w, boxHeight: h, seam: seam, maxLevels: maxLevels, topLimit: topLimit)
    }

    var reference: [Placement] {
        ReferenceStacking.stack(boxes, boxWidth: stacking.boxWidth, boxHeight: stacking.boxHeight, seam: stacking.seam,
                                maxLevels: stacking.maxLevels, topLimit: stacking.topLimit)
    }

    var description: String {
        "seed \(seed): \(boxes.count) boxes \(stacking.boxWidth)×\(stacking.boxHeight)\(mixedSizes ? " and their own sizes" : ""), seam \(String(describing: stacking.seam)), max levels \(String(describing: stacking.maxLevels)), top \(String(describing: stacking.topLimit))"
    }
}

/// The first box whose placement differs, for the failure message.
func firstDifference(_ a: [Placement], _ b: [Placement]) -> String {
    guard a.count == b.count else { return "\(a.count) placements vs \(b.count)" }
    for i in a.indices where a[i] != b[i] { return "box \(i): \(a[i]) vs reference \(b[i])" }
    return "none"
}

@Suite struct StackingEqualsTheReference {
    /// 3,000 seeded layouts of up to 250 boxes: every y (to the bit), level and hidden flag equal.
    @Test func randomLayouts() {
        var lifted = 0, hidden = 0, differing: [String] = []
        for seed in UInt64(1)...3000 {
            let layout = RandomLayout(seed: seed)
            let fast = layout.stacking.stack(layout.boxes)
            let reference = layout.reference
            if fast != reference { differing.append("\(layout): \(firstDifference(fast, reference))") }
            lifted += reference.reduce(0) { $0 + $1.level }
            hidden += reference.reduce(0) { $0 + ($1.hidden ? 1 : 0) }
        }
        #expect(differing.count == 0, "first: \(differing.first ?? "")")
        // The layouts do exercise the stacking: many lifts, and caps that hide.
        #expect(lifted > 1_000_000 && hidden > 10_000, "lifts \(lifted), hidden \(hidden)")
    }

    /// 2,000 seeded layouts where two boxes in three have their own size: a box lifted over
    /// another goes to the other's top − its own height − 5, and overlaps are of both frames.
    @Test func randomLayoutsOfMixedSizes() {
        var lifted = 0, hidden = 0, differing: [String] = []
        for seed in UInt64(50_001)...52_000 {
            let layout = RandomLayout(seed: seed, mixedSizes: true)
            let fast = layout.stacking.stack(layout.boxes)
            let reference = layout.reference
            if fast != reference { differing.append("\(layout): \(firstDifference(fast, reference))") }
            lifted += reference.reduce(0) { $0 + $1.level }
            hidden += reference.reduce(0) { $0 + ($1.hidden ? 1 : 0) }
        }
        #expect(differing.count == 0, "\(differing.count) differ; first: \(differing.first ?? "")")
        #expect(lifted > 500_000 && hidden > 5_000, "lifts \(lifted), hidden \(hidden)")
    }

    /// A few big ones, as the benchmark's: thousands of boxes in one place climb high.
    @Test func bigLayouts() {
        for seed in UInt64(9001)...9004 {
            let layout = RandomLayout(seed: seed, maxCount: 3000)
            let fast = layout.stacking.stack(layout.boxes)
            let reference = layout.reference
            #expect(firstDifference(fast, reference) == "none", "\(layout)")
        }
    }

    /// The reference's own promise, which the fast stacking keeps: a placed box overlaps no box
    /// placed before it, with its own frame or, near the seam, its alternate one.
    @Test func placedBoxesDoNotOverlap() {
        for seed in UInt64(20_001)...20_400 {
            let layout = RandomLayout(seed: seed, mixedSizes: seed % 2 == 0)
            let s = layout.stacking
            let size = { (i: Int) in layout.boxes[i].size ?? BoxSize(width: s.boxWidth, height: s.boxHeight) }
            let placed = s.stack(layout.boxes)
            let shown = s.order(layout.boxes).filter { !placed[$0].hidden }
            var overlaps = 0
            for (k, later) in shown.enumerated() {
                let x = layout.boxes[later].x, y = placed[later].y, w = size(later).width, h = size(later).height
                let widest = layout.boxes.indices.map { size($0).width }.max() ?? w
                let frames = [x] + (s.alternateX(x, width: w, reach: widest).map { [$0] } ?? [])
                for earlier in shown[..<k] {
                    let ex = layout.boxes[earlier].x, ey = placed[earlier].y, ew = size(earlier).width, eh = size(earlier).height
                    if y < ey + eh && ey < y + h && frames.contains(where: { $0 < ex + ew && ex < $0 + w }) { overlaps += 1 }
                }
            }
            #expect(overlaps == 0, "\(layout): \(overlaps) overlapping pairs")
        }
    }

    /// The projector end to end: random POIs around an observer, random cameras and options; its
    /// items equal the reference run on the same boxes.
    @Test func projectorMatchesTheReference() {
        var rng = SplitMix64(seed: 77)
        for round in 0..<300 {
            let count = 1 + Int(rng.next() % 300)
            let pois = (0..<count).map { i in
                POI(id: "poi-\(i)", coordinate: Geodesic.wgs84.direct(from: observer, bearing: rng.uniform(0, 360), distance: rng.uniform(5, 3000)),
                    priority: round % 4 == 0 ? Double(rng.next() % 3) : 0)
            }
            let projection: Projection = round % 3 == 0 ? .pinhole : .linear
            let cam = Camera(screenWidth: [360.0, 1280][round % 2], screenHeight: [640.0, 720][round % 2], horizontalFOV: [60.0, 90][rng.next() % 2 == 0 ? 0 : 1],
                             verticalFOV: [80.0, 45][round % 2], heading: rng.uniform(0, 360), pitch: rng.uniform(-30, 30), projection: projection)
            let offsets: [DistanceOffset] = [.none, .automatic, .manual(threshold: 100, pixelsPerMetre: 0.1)]
            var options = LayoutOptions(offset: offsets[round % 3], maxVisible: 1 + Int(rng.next() % 300))
            if round % 5 == 0 { options.maxLevels = Int(rng.next() % 4) }
            if round % 7 == 0 { options.clampToScreen = true }
            if round % 11 == 0 { options.maxDistance = 1500 }
            // Every other round, boxes sized to their names (as the AR view sends them), some ids
            // not among the POIs at all.
            if round % 2 == 1 {
                for i in stride(from: 0, to: count + 20, by: 1 + Int(rng.next() % 3)) {
                    options.sizes["poi-\(i)"] = BoxSize(width: rng.uniform(60, 260).rounded(), height: [40.0, 56, 74][Int(rng.next() % 3)])
                }
            }
            let projector = StackingProjector(camera: cam, options: options)
            let items = projector.layout(observer: observer, pois: pois).items.filter { $0.x != nil }
            let boxes = items.map {
                ScreenBox(x: $0.x!, y: $0.anchorY, distance: $0.distance, id: $0.id, priority: pois[$0.poi].priority,
                          size: options.sizes[$0.id])
            }
            // Each item is its own box's size, its x its own width's (centred on its direction).
            for item in items {
                let own = options.sizes[item.id]
                #expect(item.width == own?.width ?? options.boxWidth && item.height == own?.height ?? options.boxHeight)
                #expect(item.x == projector.x(delta: item.delta, width: item.width))
            }
            let s = projector.stacking
            let reference = ReferenceStacking.stack(boxes, boxWidth: s.boxWidth, boxHeight: s.boxHeight, seam: s.seam, maxLevels: s.maxLevels, topLimit: s.topLimit)
            let got = items.map { Placement(y: $0.y, level: $0.level, hidden: $0.hidden) }
            #expect(firstDifference(got, reference) == "none", "round \(round)")
        }
    }
}
