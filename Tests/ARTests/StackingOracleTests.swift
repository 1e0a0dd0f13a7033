import AR
import Geo
import TestSupport
import Testing

/// A random stacking problem, made to hit what the reference is touchy about: boxes in tight
/// clusters (long climbs), exact duplicates, y on a grid (boxes that touch but do not overlap, and
/// the same y for all, as with offset none), ties in distance, clusters on the panorama's seam,
/// priorities, and caps.
struct RandomLayout: CustomStringConvertible {
    var seed: UInt64
    var boxes: [ScreenBox] = []
    var stacking: Stacking

    init(seed: UInt64, maxCount: Int = 250) {
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
            var x = screenWidth / 2 - w / 2 + delta * hppd
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
            boxes.append(ScreenBox(x: x, y: y, distance: distance, id: "p\((i * 7919) % 10007)", priority: priority))
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
        "seed \(seed): \(boxes.count) boxes \(stacking.boxWidth)×\(stacking.boxHeight), seam \(String(describing: stacking.seam)), max levels \(String(describing: stacking.maxLevels)), top \(String(describing: stacking.topLimit))"
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
        for seed in UInt64(20_001)...20_300 {
            let layout = RandomLayout(seed: seed)
            let s = layout.stacking, w = s.boxWidth, h = s.boxHeight
            let placed = s.stack(layout.boxes)
            let shown = s.order(layout.boxes).filter { !placed[$0].hidden }
            var overlaps = 0
            for (k, later) in shown.enumerated() {
                let x = layout.boxes[later].x, y = placed[later].y
                let frames = [x] + (s.alternateX(x).map { [$0] } ?? [])
                for earlier in shown[..<k] {
                    let ex = layout.boxes[earlier].x, ey = placed[earlier].y
                    if y < ey + h && ey < y + h && frames.contains(where: { $0 < ex + w && ex < $0 + w }) { overlaps += 1 }
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
            let projector = StackingProjector(camera: cam, options: options)
            let items = projector.layout(observer: observer, pois: pois).items.filter { $0.x != nil }
            let boxes = items.map { ScreenBox(x: $0.x!, y: $0.anchorY, distance: $0.distance, id: $0.id, priority: pois[$0.poi].priority) }
            let s = projector.stacking
            let reference = ReferenceStacking.stack(boxes, boxWidth: s.boxWidth, boxHeight: s.boxHeight, seam: s.seam, maxLevels: s.maxLevels, topLimit: s.topLimit)
            let got = items.map { Placement(y: $0.y, level: $0.level, hidden: $0.hidden) }
            #expect(firstDifference(got, reference) == "none", "round \(round)")
        }
    }
}
