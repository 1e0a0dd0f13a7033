import AR
import Geo
import TestSupport
import Testing

/// Numbers a client sends for a layout (socket, HTTP, MQTT): each bounded to what makes sense,
/// what they derive finite, and every loop of the stacking bounded by the boxes, whatever it is given.
@Suite struct HostileSettings {
    func cam(_ w: Double = 360, _ h: Double = 640, fov: (Double, Double) = (60, 80), heading: Double = 0,
             projection: Projection = .linear) -> Camera {
        Camera(screenWidth: w, screenHeight: h, horizontalFOV: fov.0, verticalFOV: fov.1, heading: heading, projection: projection)
    }

    /// The request that froze the daemon: each value passed its own check, and pixels per
    /// degree came out infinite.
    @Test func theFreezingRequestIsRefused() {
        let c = cam(1e300, 1e300, fov: (1e-300, 1e-300))
        #expect(c.horizontalPixelsPerDegree == .infinity, "what the stacking was handed")
        #expect(c.problems.map(\.setting) == [.screen, .fieldOfView])
        #expect(c.problems.first?.message == "the screen must be 1 to 16384 pixels wide and tall")
    }

    @Test(arguments: [Projection.linear, .pinhole]) func cameraBoundsAreInclusive(_ p: Projection) {
        for ok in [cam(1, 1, fov: (1, 1), projection: p), cam(16_384, 16_384, fov: (179, 179), heading: 720, projection: p),
                   cam(360, 640, fov: (60, 80), heading: -360, projection: p)] {
            #expect(ok.problems.isEmpty, "\(ok)")
        }
        let bad: [(Camera, SettingProblem.Setting)] = [
            (cam(16_385, 640, projection: p), .screen), (cam(360, 0.5, projection: p), .screen), (cam(.nan, 640, projection: p), .screen),
            (cam(fov: (0.99, 80), projection: p), .fieldOfView), (cam(fov: (60, 179.5), projection: p), .fieldOfView),
            (cam(fov: (360, 80), projection: p), .fieldOfView), (cam(heading: 721, projection: p), .heading),
            (cam(heading: -1e300, projection: p), .heading), (cam(heading: .infinity, projection: p), .heading),
        ]
        for (c, setting) in bad { #expect(c.problems.map(\.setting) == [setting], "\(c)") }
    }

    @Test func optionBoundsAreInclusive() {
        #expect(LayoutOptions(boxWidth: 1, boxHeight: 16_384, offset: .manual(threshold: 20_038_000, pixelsPerMetre: 10_000),
                              maxDistance: 20_038_000, maxVisible: 10_000, maxLevels: 10_000).problems.isEmpty)
        let bad: [(LayoutOptions, SettingProblem.Setting)] = [
            (LayoutOptions(boxWidth: 0.5), .box), (LayoutOptions(boxHeight: 16_385), .box), (LayoutOptions(boxWidth: 1e-300), .box),
            (LayoutOptions(offset: .manual(threshold: 0, pixelsPerMetre: 1e300)), .offset),
            (LayoutOptions(offset: .manual(threshold: 3e7, pixelsPerMetre: 1)), .offset),
            (LayoutOptions(maxDistance: 1e300), .maxDistance), (LayoutOptions(maxVisible: 10_001), .maxVisible),
            (LayoutOptions(maxVisible: 0), .maxVisible), (LayoutOptions(maxLevels: 10_001), .maxLevels), (LayoutOptions(maxLevels: -1), .maxLevels),
        ]
        for (o, setting) in bad { #expect(o.problems.map(\.setting) == [setting], "\(o)") }
    }

    /// Boxes of their own size: at most 1,000, each side 1 to 16,384 px, the wrong one named.
    @Test func ownSizesAreBounded() {
        let most = Dictionary(uniqueKeysWithValues: (0..<1_000).map { ("p\($0)", BoxSize(width: 1, height: 16_384)) })
        #expect(LayoutOptions(sizes: most).problems.isEmpty)
        var tooMany = most
        tooMany["one more"] = BoxSize(width: 100, height: 40)
        #expect(LayoutOptions(sizes: tooMany).problems.map(\.message) == ["at most 1000 boxes may have their own size (1001 given): size the boxes a view shows"])
        for bad in [BoxSize(width: 0.5, height: 40), BoxSize(width: 100, height: 16_385), BoxSize(width: .nan, height: 40), BoxSize(width: 100, height: -.infinity)] {
            let o = LayoutOptions(sizes: ["fine": BoxSize(width: 100, height: 40), "olive": bad])
            #expect(o.problems.map(\.message) == ["the box of 'olive' must be 1 to 16384 pixels wide and tall"], "\(bad)")
        }
    }

    /// The class, below the checks: a stacking handed what no check would pass still ends, each
    /// box at most one level per box placed before it. Before, a width of 1e-300 walked 2·10¹⁵
    /// column keys for each box, and a lift that rounds to no move climbed for ever.
    @Test(.timeLimit(.minutes(1))) func theStackingEndsWhateverItIsGiven() {
        let n = 200
        let widths: [Double] = [1e-300, 1, 100]
        for w in widths {
            for (x, y) in [(1e300, 1e300), (0.0, 1e300), (1e300, 0.0), (0.0, 0.0)] {
                let boxes = (0..<n).map { ScreenBox(x: x, y: y + Double($0 % 2), distance: Double($0), id: "b\($0)") }
                for seam in [nil, Stacking.Seam(centerX: 0, panoramaWidth: .infinity), Stacking.Seam(centerX: 180, panoramaWidth: 1e-300)] {
                    for topLimit in [nil, 0.0, -1e300] {
                        let s = Stacking(boxWidth: w, boxHeight: w, seam: seam, topLimit: topLimit)
                        let placed = s.stack(boxes)
                        #expect(placed.count == n)
                        #expect(placed.allSatisfy { $0.level < n }, "w \(w), x \(x), y \(y)")
                        // And when every box starts on one row.
                        let row = s.stack(boxes.map { ScreenBox(x: $0.x, y: y, distance: $0.distance, id: $0.id) })
                        #expect(row.allSatisfy { $0.level <= n })
                    }
                }
            }
        }
    }

    /// Bounded loops change nothing for ordinary boxes: the same placements as the reference.
    @Test func ordinaryStackingIsUnchanged() {
        var boxes: [ScreenBox] = []
        for k in 0..<300 { boxes.append(ScreenBox(x: Double((k * 37) % 400), y: 300 - Double((k * 13) % 90), distance: Double(k), id: "p\(k)")) }
        let s = Stacking(boxWidth: 100, boxHeight: 40, seam: Stacking.Seam(centerX: 180, panoramaWidth: 2160))
        let placed = s.stack(boxes)
        #expect(placed.contains { $0.level > 3 }, "a real stack")
        #expect(placed == ReferenceStacking.stack(boxes, boxWidth: 100, boxHeight: 40, seam: s.seam, maxLevels: nil, topLimit: nil))
    }
}
