import Foundation
import AR
import Geo
import TestSupport
import Testing

// The issue's set-up: observer 45.0, 18.0, screen 360×640, fov 60,80, box 100×40.
// hPPD = 6, vPPD = 8; the box centre on a row at y = 640·0.55 − 20 = 332; x = 130 + 6Δ.
let observer = Coordinate(latitude: 45.0, longitude: 18.0)

func camera(heading: Double = 0, pitch: Double = 0, projection: Projection = .linear) -> Camera {
    Camera(screenWidth: 360, screenHeight: 640, horizontalFOV: 60, verticalFOV: 80, heading: heading, pitch: pitch, projection: projection)
}

func poi(_ id: String, _ lat: Double, _ lon: Double, priority: Double = 0) -> POI {
    POI(id: id, coordinate: Coordinate(latitude: lat, longitude: lon), priority: priority)
}

/// A POI `metres` from the observer along `bearing`.
func poi(_ id: String, bearing: Double, metres: Double, priority: Double = 0) -> POI {
    POI(id: id, coordinate: Geodesic.wgs84.direct(from: observer, bearing: bearing, distance: metres), priority: priority)
}

func layout(_ pois: [POI], _ cam: Camera = camera(), _ options: LayoutOptions = LayoutOptions()) -> [String: LayoutItem] {
    let l = StackingProjector(camera: cam, options: options).layout(observer: observer, pois: pois)
    return Dictionary(uniqueKeysWithValues: l.items.map { ($0.id, $0) })
}

func near(_ a: Double?, _ b: Double, _ tolerance: Double = 1) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance
}

@Suite struct IssueScenarios {
    /// 1. Heading 0, pitch 0, offset none.
    @Test func scenario1HeadingZero() throws {
        let items = layout([
            poi("A", 45.003597, 18.0), poi("B", 45.00507, 18.00261), poi("C", 45.006761, 17.99652),
            poi("E", 45.006359, 18.008994), poi("D", 45.0, 18.006359), poi("F", 44.997302, 18.0),
        ])
        #expect(items.count == 6, "every POI is active, whatever its direction")
        let a = try #require(items["A"]), b = try #require(items["B"]), c = try #require(items["C"])
        #expect(near(a.x, 130) && near(b.x, 250) && near(c.x, 10), "x: A \(a.x!), B \(b.x!), C \(c.x!)")
        for item in [a, b, c] {
            #expect(near(item.y, 332), "\(item.id) y \(item.y)")
            #expect(item.level == 0, "\(item.id) lifted \(item.level) times")
            #expect(item.inNearView && item.visible)
        }
        let e = try #require(items["E"])
        #expect(e.inNearView, "E at Δ \(e.delta) is within the 60° near view")
        #expect(near(e.x, 400) && !e.visible, "E off screen at x \(e.x!)")
        for id in ["D", "F"] {
            let item = try #require(items[id])
            #expect(!item.inNearView && !item.visible, "\(id) at Δ \(item.delta)")
        }
        #expect(near(items["D"]!.delta, 90, 0.01) && near(items["F"]!.delta, 180, 0.01))
    }

    /// 2. Offset manual:0:0.05, four POIs due north given out of order; then heading 10, pitch 10.
    @Test func scenario2ManualOffsetStacksNorth() throws {
        let pois = [poi("N1", 45.008993, 18.0), poi("N2", 45.001799, 18.0), poi("N3", 45.012591, 18.0), poi("N4", 45.005396, 18.0)]
        let options = LayoutOptions(offset: .manual(threshold: 0, pixelsPerMetre: 0.05))
        let straight = layout(pois, camera(), options)
        let expected = ["N2": 322.0, "N4": 277, "N1": 232, "N3": 187]
        for (id, y) in expected {
            let item = try #require(straight[id])
            #expect(near(item.y, y), "\(id) y \(item.y), expected \(y)")
            #expect(near(item.x, 130))
        }
        // N2 stays; N4 goes over N2; N1 starts 39.97 px above N2 (999.4 m), so over N2 then N4.
        #expect(straight.mapValues(\.level) == ["N2": 0, "N4": 1, "N1": 2, "N3": 2])

        let turned = layout(pois, camera(heading: 10, pitch: 10), options)
        for id in expected.keys {
            let s = try #require(straight[id]), t = try #require(turned[id])
            #expect(near(t.x, s.x! - 60, 1e-6), "\(id): x \(t.x!) vs \(s.x!)")
            #expect(near(t.y, s.y + 80, 1e-6), "\(id): y \(t.y) vs \(s.y)")
            #expect(near(t.y, expected[id]! + 80) && near(t.x, 70))
        }
    }

    /// 3. Three POIs a little apart: offset none lifts only B; the manual offset lifts B and C.
    @Test func scenario3OffsetsChangeWhatOverlaps() throws {
        let pois = [poi("A", 45.002698, 18.0), poi("B", 45.003543, 18.000883), poi("C", 45.004225, 18.002175)]
        let flat = layout(pois)
        #expect(near(flat["A"]!.y, 332) && near(flat["B"]!.y, 287) && near(flat["C"]!.y, 332),
                "A \(flat["A"]!.y), B \(flat["B"]!.y), C \(flat["C"]!.y)")
        #expect(flat["B"]!.level == 1 && flat["C"]!.level == 0)
        let manual = layout(pois, camera(), LayoutOptions(offset: .manual(threshold: 0, pixelsPerMetre: 0.05)))
        #expect(near(manual["A"]!.y, 317) && near(manual["B"]!.y, 272) && near(manual["C"]!.y, 227),
                "A \(manual["A"]!.y), B \(manual["B"]!.y), C \(manual["C"]!.y)")
        #expect(manual["B"]!.level == 1 && manual["C"]!.level == 1)
    }
}

@Suite struct Offsets {
    /// Automatic: the nearest starts on the row (332), the farthest 30 px below the top edge
    /// of the box's centre line: 332 − (352 − 30) = 10; between them linearly.
    @Test func automaticSpansTheUpperScreen() throws {
        let pois = [poi("near", bearing: 0, metres: 100), poi("mid", bearing: 90, metres: 300), poi("far", bearing: 180, metres: 500)]
        let items = layout(pois, camera(), LayoutOptions(offset: .automatic))
        #expect(near(items["near"]!.y, 332, 1e-6))
        #expect(near(items["far"]!.y, 10, 1e-6))
        #expect(near(items["mid"]!.y, 171, 1e-6))
        // All as far (two POIs at one place): no offset at all, M = 0.
        let here = Geodesic.wgs84.direct(from: observer, bearing: 40, distance: 200)
        let same = layout([POI(id: "a", coordinate: here), POI(id: "b", coordinate: here)], camera(), LayoutOptions(offset: .automatic))
        #expect(same.values.allSatisfy { near($0.anchorY, 332, 1e-9) })
        #expect(same["b"]!.level == 1, "and the second stacks on the first")
    }

    @Test func manualThresholdLeavesNearerPOIsOnTheRow() {
        let items = layout([poi("in", bearing: 0, metres: 150), poi("out", bearing: 90, metres: 400)], camera(),
                           LayoutOptions(offset: .manual(threshold: 200, pixelsPerMetre: 0.1)))
        #expect(near(items["in"]!.y, 332, 1e-6))
        #expect(near(items["out"]!.y, 332 - 20, 1e-6))
    }
}

@Suite struct ActivePOIs {
    @Test func nearestMaxVisibleWithinMaxDistance() {
        let pois = (1...10).map { poi("p\($0)", bearing: Double($0) * 36, metres: Double($0) * 100) }
        let l = StackingProjector(camera: camera(), options: LayoutOptions(maxDistance: 650, maxVisible: 4)).layout(observer: observer, pois: pois)
        #expect(l.items.map(\.id) == ["p1", "p2", "p3", "p4"])
        #expect(l.beyondMaxDistance == 4 && l.beyondMaxVisible == 2 && l.poiCount == 10)
    }

    @Test func priorityComesBeforeDistance() {
        let pois = [poi("near", bearing: 0, metres: 100), poi("important", bearing: 0, metres: 900, priority: 2)]
        let one = StackingProjector(camera: camera(), options: LayoutOptions(maxVisible: 1)).layout(observer: observer, pois: pois)
        #expect(one.items.map(\.id) == ["important"])
        // Stacking places it first: it stays on the row and the nearer one goes over it.
        let both = layout(pois)
        #expect(both["important"]!.level == 0 && near(both["important"]!.y, 332, 1e-6))
        #expect(both["near"]!.level == 1 && near(both["near"]!.y, 287, 1e-6))
        // Without priorities the reference order: the nearer stays.
        let plain = layout(pois.map { POI(id: $0.id, coordinate: $0.coordinate) })
        #expect(plain["near"]!.level == 0 && plain["important"]!.level == 1)
    }
}

@Suite struct Seam {
    @Test func deltaWrapsAcrossNorth() {
        #expect(StackingProjector.delta(bearing: 10, heading: 350) == 20)
        #expect(StackingProjector.delta(bearing: 350, heading: 10) == -20)
        #expect(StackingProjector.delta(bearing: 180, heading: 0) == 180)
        #expect(StackingProjector.delta(bearing: 0, heading: 180) == 180)
        let items = layout([poi("east", bearing: 10, metres: 300)], camera(heading: 350))
        #expect(near(items["east"]!.x, 130 + 20 * 6, 1e-6))
    }

    /// Behind the observer, 179° and 181° are 2° apart but at the two ends of the panorama
    /// (x 1204 and −944): the reference's alternate frame makes them see each other.
    @Test func boxesAtBothEndsOfThePanoramaStack() throws {
        for heading in [0.0, 90, 180.5, 359] {
            let a = poi("a", bearing: heading + 179, metres: 200), b = poi("b", bearing: heading + 181, metres: 300)
            let items = layout([a, b], camera(heading: heading))
            let xa = try #require(items["a"]?.x), xb = try #require(items["b"]?.x)
            #expect(abs(xa - xb) > 2000, "heading \(heading): the two are at opposite ends")
            #expect(items["a"]!.level == 0 && items["b"]!.level == 1, "heading \(heading)")
            #expect(near(items["b"]!.y, 287, 1e-6))
        }
        // Far from the seam the same 2° apart simply overlap.
        let items = layout([poi("a", bearing: 89, metres: 200), poi("b", bearing: 91, metres: 300)])
        #expect(items["b"]!.level == 1)
    }
}

@Suite struct Pinhole {
    let f = 180 / tan(30 * Double.pi / 180)

    /// A real camera: the centre and the edges of the field of view land where the linear
    /// mapping puts them, the directions between nearer the centre (tan Δ / tan 30°).
    @Test func tangentMapping() throws {
        let pois = [0.0, 15, -15, 30, 45].map { poi("d\(Int($0))", bearing: $0 < 0 ? 360 + $0 : $0, metres: 200) }
        let pin = layout(pois, camera(projection: .pinhole))
        let lin = layout(pois, camera())
        #expect(near(pin["d0"]!.x, 130, 1e-6))
        #expect(near(pin["d30"]!.x, 130 + 180, 1e-6), "the fov's edge at the screen's edge")
        #expect(near(pin["d30"]!.x, lin["d30"]!.x!, 1e-6))
        #expect(near(pin["d15"]!.x, 130 + 180 * tan(15 * Double.pi / 180) / tan(30 * Double.pi / 180), 1e-6))
        #expect(near(pin["d15"]!.x, 213.5, 0.1) && near(lin["d15"]!.x, 220, 1e-6), "pinhole 83.5 px right of centre, linear 90")
        #expect(near(pin["d-15"]!.x, 130 - 83.54, 0.01))
        #expect(near(pin["d45"]!.x, 130 + f, 1e-6))
    }

    @Test func pitchMovesByTheTangentToo() {
        let fv = 320 / tan(40 * Double.pi / 180)
        let items = layout([poi("a", bearing: 0, metres: 200)], camera(pitch: 20, projection: .pinhole))
        #expect(near(items["a"]!.y, 332 + fv * tan(20 * Double.pi / 180), 1e-6))
        #expect(near(items["a"]!.y, 332 + 138.8, 0.1))
        #expect(near(layout([poi("a", bearing: 0, metres: 200)], camera(pitch: 20))["a"]!.y, 332 + 160, 1e-6))
    }

    @Test func behindTheCameraHasNoPlace() throws {
        let items = layout([poi("front", bearing: 10, metres: 200), poi("side", bearing: 95, metres: 200), poi("back", bearing: 200, metres: 300)],
                           camera(projection: .pinhole))
        #expect(items["front"]!.x != nil && items["front"]!.visible)
        for id in ["side", "back"] {
            let item = try #require(items[id])
            #expect(item.x == nil && !item.visible && item.level == 0 && !item.hidden)
        }
        // No seam either: behind is simply not drawn, so nothing there stacks.
        let behind = layout([poi("a", bearing: 179, metres: 200), poi("b", bearing: 181, metres: 300)], camera(projection: .pinhole))
        #expect(behind.values.allSatisfy { $0.x == nil && $0.level == 0 })
    }

    @Test func stacksLikeTheLinearOne() {
        let items = layout([poi("a", bearing: 0, metres: 200), poi("b", bearing: 5, metres: 300)], camera(projection: .pinhole))
        #expect(items["b"]!.level == 1 && near(items["b"]!.y, 287, 1e-6))
    }
}

@Suite struct ClampingAndLevels {
    /// The manual offset puts far POIs above the screen; pitch puts them below. Clamped, they
    /// start on it.
    @Test func startingYIsClampedToTheScreen() {
        let pois = [poi("far", bearing: 0, metres: 10_000), poi("side", bearing: 20, metres: 100)]
        let options = LayoutOptions(offset: .manual(threshold: 0, pixelsPerMetre: 0.1))
        let free = layout(pois, camera(), options)
        #expect(near(free["far"]!.y, 332 - 1000, 1e-6) && !free["far"]!.visible)
        var clamped = options
        clamped.clampToScreen = true
        let kept = layout(pois, camera(), clamped)
        #expect(kept["far"]!.y == 0 && kept["far"]!.visible)
        let down = layout(pois, camera(pitch: 45), clamped)
        #expect(down["side"]!.y == 600, "332 − 10 + 360 = 682 would be below; clamped to H − h")
        #expect(down["far"]!.y == 0)
    }

    /// Clamped, a box that would go over the top edge is hidden and counted.
    @Test func liftOverTheTopHides() {
        let pois = (0..<4).map { poi("p\($0)", bearing: 0, metres: 100 + Double($0) * 10) }
        var options = LayoutOptions(offset: .none)
        options.clampToScreen = true
        let l = StackingProjector(camera: camera(pitch: -37), options: options).layout(observer: observer, pois: pois)
        // pitch −37: y = 332 − 296 = 36; then 36 − 45 < 0.
        let byID = Dictionary(uniqueKeysWithValues: l.items.map { ($0.id, $0) })
        #expect(near(byID["p0"]!.y, 36, 1e-6) && !byID["p0"]!.hidden)
        for id in ["p1", "p2", "p3"] { #expect(byID[id]!.hidden && !byID[id]!.visible) }
        #expect(l.hiddenCount == 3 && l.visibleCount == 1)
        // Unclamped they drift off the top, as in HDAugmentedReality.
        let free = layout(pois, camera(pitch: -37))
        #expect(near(free["p3"]!.y, 36 - 135, 1e-6) && free["p3"]!.level == 3 && !free["p3"]!.visible)
    }

    @Test func maxLevelsHidesWhatNeedsMoreLifts() {
        let pois = (0..<6).map { poi("p\($0)", bearing: Double($0) * 0.1, metres: 100 + Double($0)) }
        let l = StackingProjector(camera: camera(), options: LayoutOptions(maxLevels: 2)).layout(observer: observer, pois: pois)
        #expect(l.items.map(\.level) == [0, 1, 2, 2, 2, 2])
        #expect(l.items.map(\.hidden) == [false, false, false, true, true, true])
        #expect(l.hiddenCount == 3)
        // Hidden boxes are not obstacles: with a cap of 0 one box per place.
        let flat = StackingProjector(camera: camera(), options: LayoutOptions(maxLevels: 0))
            .layout(observer: observer, pois: [poi("a", bearing: 0, metres: 100), poi("b", bearing: 1, metres: 110), poi("c", bearing: 30, metres: 120)])
        #expect(flat.items.map(\.hidden) == [false, true, false])
    }

    @Test func noCapMeansTheReference() {
        let pois = (0..<6).map { poi("p\($0)", bearing: 0, metres: 100 + Double($0)) }
        let items = StackingProjector(camera: camera(), options: LayoutOptions()).layout(observer: observer, pois: pois).items
        #expect(items.map(\.level) == [0, 1, 2, 3, 4, 5])
        #expect(zip(items, items.dropFirst()).allSatisfy { near($0.y - $1.y, 45, 1e-9) })
    }
}

@Suite struct Smoothing {
    @Test func headingAcrossNorth() {
        var s = AngleSmoother(circular: true)
        #expect(s.add(350, at: 0) == 350)
        #expect(near(s.add(10, at: 1), 358.0, 1e-9))
        #expect(near(s.add(10, at: 2), 2.8, 1e-9))
        #expect(near(s.add(10, at: 3), 5.68, 1e-9))
        // And back the other way.
        var t = AngleSmoother(circular: true)
        t.add(10, at: 0)
        #expect(near(t.add(350, at: 1), 2.0, 1e-9))
        #expect(near(t.add(350, at: 2), 357.2, 1e-9))
    }

    @Test func bigJumpsEarlyAreTakenAsTheyAre() {
        var s = AngleSmoother(circular: true)
        s.add(10, at: 0)
        #expect(s.add(80, at: 1) == 80, "70° within the first 10 s: the compass settling")
        #expect(near(s.add(95, at: 9.9), 86, 1e-9), "15° from the last sample: smoothed, 80 + 0.4·15")
        #expect(near(s.add(115.1, at: 9.95), 115.1, 1e-9), "20.1° from the last sample (95): taken")
        var later = AngleSmoother(circular: true)
        later.add(10, at: 0)
        #expect(near(later.add(80, at: 10), 38, 1e-9), "after 10 s even a big jump is smoothed")
        var edge = AngleSmoother(circular: true)
        edge.add(350, at: 0)
        #expect(near(edge.add(10, at: 0.5), 358, 1e-9), "exactly 20° is not over 20°")
    }

    @Test func pitchIsSmoothedOnTheLine() {
        var o = OrientationSmoother()
        _ = o.add(heading: 350, pitch: 0, at: 0)
        let r = o.add(heading: 10, pitch: 10, at: 1)
        #expect(near(r.heading, 358, 1e-9) && near(r.pitch, 4, 1e-9))
        var p = AngleSmoother(circular: false)
        p.add(-80, at: 0)
        #expect(near(p.add(-70, at: 20), -76, 1e-9))
        #expect(AngleSmoother(factor: 1, circular: true).value == nil)
        var none = AngleSmoother(factor: 1, circular: true)
        none.add(0, at: 0)
        #expect(none.add(15, at: 20) == 15, "factor 1: no smoothing")
    }
}
