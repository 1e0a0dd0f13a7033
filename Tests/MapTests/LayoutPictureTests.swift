import AR
import Foundation
import Geo
import Testing
@testable import Map

/// The AR screen picture (`treeline layout --svg`).
@Suite struct LayoutPictures {
    let observer = Coordinate(latitude: 45.0, longitude: 18.0)
    let camera = Camera(screenWidth: 360, screenHeight: 640, horizontalFOV: 60, verticalFOV: 80, heading: 0)

    func poi(_ id: String, _ name: String, bearing: Double, metres: Double) -> POI {
        POI(id: id, name: name, coordinate: Geodesic.wgs84.direct(from: observer, bearing: bearing, distance: metres))
    }

    func picture(_ pois: [POI], options: LayoutOptions = LayoutOptions()) -> (XMLNode, Layout) {
        let layout = StackingProjector(camera: camera, options: options).layout(observer: observer, pois: pois)
        let svg = LayoutPicture(camera: camera, options: options, layout: layout, pois: pois, title: "test").render()
        guard let root = parseXML(svg) else {
            Issue.record("not well-formed XML")
            return (XMLNode(name: "none", attributes: [:]), layout)
        }
        return (root, layout)
    }

    @Test func oneBoxPerVisiblePOIWithNameAndDistance() throws {
        let pois = [poi("a", "Oak stand", bearing: 0, metres: 400), poi("b", "Spring", bearing: 20, metres: 600),
                    poi("c", "Behind", bearing: 180, metres: 300), poi("d", "Stacked", bearing: 2, metres: 800)]
        let (root, layout) = picture(pois)
        let boxes = root.elements("g").filter { $0["class"] == "poi" }
        #expect(boxes.count == layout.visibleCount && boxes.count == 3)
        let oak = try #require(root.element(id: "poi-a"))
        #expect(oak.allText.contains("Oak stand") && oak.allText.contains("400 m"))
        let stacked = try #require(root.element(id: "poi-d"))
        #expect(stacked.allText.contains("800 m") && stacked.allText.contains("↑1"), "the lifted box says so")
        // Its box is where the layout put it, on the screen group's coordinates.
        let rect = try #require(stacked.elements("rect").first)
        let item = try #require(layout.items.first { $0.id == "d" })
        #expect(abs((rect.double("y") ?? 0) - item.y - 0.5) < 0.06)
        #expect(root.allText.contains("4 active of 4 POIs: 3 on screen"))
    }

    @Test func namesAreEscapedAndCutToTheBox() throws {
        let wide = picture([poi("x", "Fish & <chips> \"stand\" O'Neil", bearing: 0, metres: 100)], options: LayoutOptions(boxWidth: 300))
        #expect(try #require(wide.0.element(id: "poi-x")).allText.contains("Fish & <chips> \"stand\" O'Neil"),
                "escaped in the file, plain after parsing")
        let narrow = picture([poi("y", "A very long name for a plant indeed", bearing: 0, metres: 100)])
        let text = try #require(narrow.0.element(id: "poi-y")).allText
        #expect(text.contains("A very long") && text.contains("…") && !text.contains("indeed"), "cut to the 100 px box")
    }

    @Test func offScreenPOIsInTheNearViewGetArrows() throws {
        let pois = [poi("e", "Ridge planting", bearing: 45, metres: 1000), poi("w", "West gate", bearing: 320, metres: 500),
                    poi("f", "Far behind", bearing: 180, metres: 100)]
        let (root, layout) = picture(pois)
        #expect(layout.visibleCount == 0)
        let arrows = root.elements("g").filter { $0["class"] == "offscreen" }
        #expect(arrows.count == 2, "E and W, not the one behind")
        #expect(arrows.contains { $0.allText.contains("Ridge planting 1 km") })
        #expect(arrows.contains { $0.allText.contains("West gate 500 m") })
    }

    /// A box cut by the screen's edge stays where the layout put it; its text moves into the part
    /// on the screen, and a sliver too thin for text gets an edge arrow.
    @Test func boxesCutByTheEdgeKeepReadableText() throws {
        // x = 130 + 6Δ: Δ −31.67° puts the box at x −60 (40 px on screen), Δ 35.83° at x 345 (15 px).
        let pois = [poi("cut", "Old chestnut", bearing: 360 - 190.0 / 6, metres: 800), poi("sliver", "Ridge planting", bearing: 215.0 / 6, metres: 1000)]
        let (root, layout) = picture(pois)
        #expect(layout.items.allSatisfy { $0.visible })
        let cut = try #require(root.element(id: "poi-cut"))
        #expect(abs((cut.elements("rect").first?.double("x") ?? 0) + 59.5) < 0.06, "the box keeps its place")
        let texts = cut.elements("text")
        #expect(texts.count == 2 && texts.allSatisfy { $0.double("x") == 4 }, "text starts on the screen")
        #expect(texts[0].allText.hasPrefix("Old") && texts[1].allText == "800 m", "\(texts.map(\.allText))")
        let sliver = try #require(root.element(id: "poi-sliver"))
        #expect(sliver.elements("text").isEmpty)
        let arrows = root.elements("g").filter { $0["class"] == "offscreen" }
        #expect(arrows.count == 1 && arrows[0].allText.contains("Ridge planting 1 km"))
    }

    @Test func distanceLabels() {
        #expect(LayoutPicture.distanceLabel(85.4) == "85 m")
        #expect(LayoutPicture.distanceLabel(999.4) == "999 m")
        #expect(LayoutPicture.distanceLabel(999.9999) == "1 km")
        #expect(LayoutPicture.distanceLabel(1449) == "1.4 km")
        #expect(LayoutPicture.distanceLabel(23_400) == "23 km")
    }
}
