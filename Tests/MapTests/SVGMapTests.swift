import Geo
import Rules
import Testing
@testable import Map
import Regions

// MARK: - Fixtures

private let geod = Geodesic.wgs84
private let base = Coordinate(latitude: 52.0, longitude: 13.0)

/// The point `metres` from `from` along `bearing`.
private func go(_ from: Coordinate, _ bearing: Double, _ metres: Double) -> Coordinate {
    geod.direct(from: from, bearing: bearing, distance: metres)
}

/// A square ring of half-side `half` metres around `c` (corners by geodesic offsets).
private func square(_ c: Coordinate, half: Double) -> [Coordinate] {
    let n = go(c, 0, half), s = go(c, 180, half)
    return [go(n, 270, half), go(n, 90, half), go(s, 90, half), go(s, 270, half)]
}

private func time(_ h: Int, _ m: Int, _ s: Int) -> UTCTime {
    UTCTime(year: 2026, month: 4, day: 20, nanosOfDay: Int64(h * 3600 + m * 60 + s) * UTCTime.nanosPerSecond)!
}

private func event(_ type: RegionEvent.EventType, _ region: Int, _ at: Coordinate, _ t: UTCTime, transit: Bool = false) -> RegionEvent {
    RegionEvent(time: t, type: type, region: region, coordinate: at, distance: 1, error: 3, transit: transit)
}

/// A track 1000 m long, west to east through `base`.
private func straightTrack(_ map: inout SVGMap) {
    map.addTrack(go(base, 270, 500))
    map.addTrack(go(base, 90, 500))
}

/// Pixels per metre measured on the drawn track of `straightTrack`: the two drawn endpoints
/// are 1000 m apart on the ground.
private func pixelsPerMetre(_ doc: XMLNode) throws -> Double {
    let d = try #require(doc.element(id: "track-line")?["d"])
    let pts = try #require(subpaths(d).first)
    try #require(pts.count == 2)
    let dx = pts[1].0 - pts[0].0, dy = pts[1].1 - pts[0].1
    return (dx * dx + dy * dy).squareRoot() / 1000
}

private func render(_ map: SVGMap) throws -> (String, XMLNode) {
    let svg = map.render()
    let doc = try #require(parseXML(svg), "not well-formed XML:\n\(svg.prefix(2000))")
    return (svg, doc)
}

/// Parses "200 m" / "2 km" into metres.
private func metres(ofLabel s: String) -> Double? {
    let parts = s.split(separator: " ")
    guard parts.count == 2, let v = Double(parts[0]) else { return nil }
    switch parts[1] {
    case "m": return v
    case "km": return v * 1000
    default: return nil
    }
}

private func rect(_ n: XMLNode) -> Rect? {
    guard let x = n.double("x"), let y = n.double("y"), let w = n.double("width"), let h = n.double("height") else { return nil }
    return Rect(x: x, y: y, w: w, h: h)
}

// MARK: - Fences

@Test func polygonWithHoleIsOnePathWithTwoSubpathsAndEvenOdd() throws {
    let outer = square(base, half: 200), hole = square(base, half: 60)
    let region = Region(id: "r1", kind: .reforestation, name: "Oak stand", shape: .polygons([[outer, hole]]))
    let (_, doc) = try render(SVGMap(regions: [region]))
    let paths = doc.elements("path").filter { $0["class"] == "fence reforestation" }
    #expect(paths.count == 1)
    let path = try #require(paths.first)
    #expect(path["fill-rule"] == "evenodd")
    let sub = subpaths(try #require(path["d"]))
    #expect(sub.count == 2)
    #expect(sub.map(\.count) == [4, 4])
    #expect(try #require(path["d"]).filter { $0 == "Z" }.count == 2)
    // The hole lies inside the outer ring in pixels too.
    let ox = sub[0].map(\.0), hx = sub[1].map(\.0)
    #expect(hx.min()! > ox.min()! && hx.max()! < ox.max()!)
    // The name sits on the fence's ring, not in its hole: the centroid is in the hole, so the
    // label moves along the horizontal line to the widest inside stretch.
    let label = try #require(doc.element(id: "fence-labels")?.elements("text").first)
    #expect(label.allText == "Oak stand")
    let lx = try #require(label.double("x"))
    #expect(lx > ox.min()! && lx < ox.max()!)
    #expect(lx < hx.min()! || lx > hx.max()!)
}

@Test func multiPolygonRegionGivesOnePathPerPolygon() throws {
    let a = square(go(base, 270, 300), half: 50), b = square(go(base, 90, 300), half: 50)
    let region = Region(id: "two", kind: .album, name: "Two parts", shape: .polygons([[a], [b]]))
    let (_, doc) = try render(SVGMap(regions: [region]))
    let paths = doc.elements("path").filter { $0["class"] == "fence album" }
    #expect(paths.count == 2)
    #expect(paths.allSatisfy { subpaths($0["d"] ?? "").count == 1 })
    // One name per region.
    #expect(doc.element(id: "fence-labels")?.elements("text").count == 1)
}

@Test func circleRadiusIsTrueMetresOverMetresPerPixel() throws {
    var map = SVGMap(regions: [Region(id: "p", kind: .plant, name: "Fig", shape: .circle(center: go(base, 0, 100), radius: 100))])
    straightTrack(&map)
    let (_, doc) = try render(map)
    let ppm = try pixelsPerMetre(doc)
    let circle = try #require(doc.elements("circle").first { $0["class"] == "fence plant" })
    let r = try #require(circle.double("r"))
    #expect(abs(r - 100 * ppm) < 0.1, "r \(r) vs \(100 * ppm)")
    // The circle's centre is 100 m north of the track's midpoint.
    let d = subpaths(try #require(doc.element(id: "track-line")?["d"]))[0]
    let mid = ((d[0].0 + d[1].0) / 2, (d[0].1 + d[1].1) / 2)
    #expect(abs(try #require(circle.double("cx")) - mid.0) < 0.2)
    #expect(abs(mid.1 - (try #require(circle.double("cy"))) - 100 * ppm) < 0.2)
}

@Test func fencesAreColouredByKind() throws {
    let regions = [
        Region(id: "a", kind: .reforestation, name: "R", shape: .circle(center: base, radius: 300)),
        Region(id: "b", kind: .plant, name: "P", shape: .circle(center: go(base, 90, 100), radius: 20)),
        Region(id: "c", kind: .album, name: "A", shape: .circle(center: go(base, 270, 100), radius: 50)),
    ]
    let (_, doc) = try render(SVGMap(regions: regions))
    let fences = doc.elements("circle").filter { ($0["class"] ?? "").hasPrefix("fence ") }
    #expect(fences.count == 3)
    let fills = Set(fences.compactMap { $0["fill"] })
    #expect(fills.count == 3)
    // Largest first, so the small fences are drawn on top of the big one.
    #expect(fences.map { $0["data-id"] } == ["a", "c", "b"])
    // The legend names all three kinds and the track.
    let legend = try #require(doc.element(id: "legend")).allText
    for word in ["Reforestation", "Plant", "Album", "Track"] { #expect(legend.contains(word)) }
}

@Test func namesAreXMLEscaped() throws {
    let name = "Tom & Jerry's <\"garden\">"
    let region = Region(id: "x&y", kind: .album, name: name, shape: .circle(center: base, radius: 50))
    var map = SVGMap(regions: [region])
    map.title = "log <1> & more"
    map.addEvent(event(.enter, 0, base, time(12, 3, 41)))
    let (svg, doc) = try render(map)
    #expect(svg.contains("Tom &amp; Jerry&apos;s &lt;&quot;garden&quot;&gt;"))
    #expect(!svg.contains(name))
    #expect(svg.contains("data-id=\"x&amp;y\""))
    // Parsed back, the texts are the original names.
    #expect(doc.element(id: "fence-labels")?.elements("text").first?.allText == name)
    let labels = try #require(doc.element(id: "event-labels")).allText
    #expect(labels.contains("12:03:41 enter " + name))
    #expect(doc.elements("title").first?.allText == "log <1> & more")
}

@Test func controlCharactersInNamesStillGiveWellFormedXML() throws {
    let region = Region(id: "c", kind: .plant, name: "bad\u{01}name\u{1F}", shape: .circle(center: base, radius: 20))
    let (svg, _) = try render(SVGMap(regions: [region]))
    #expect(!svg.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
}

// MARK: - Track

@Test func breakTrackSplitsThePolylineAndDrawsTheGapDashed() throws {
    var map = SVGMap(regions: [])
    map.addTrack(base)
    map.addTrack(go(base, 90, 100))
    map.breakTrack()
    map.breakTrack() // a second break in a row makes no empty polyline
    map.addTrack(go(base, 90, 300))
    map.addTrack(go(base, 90, 400))
    let (_, doc) = try render(map)
    let line = subpaths(try #require(doc.element(id: "track-line")?["d"]))
    #expect(line.map(\.count) == [2, 2])
    let gaps = try #require(doc.element(id: "track-gaps"))
    #expect(gaps["stroke-dasharray"] != nil)
    let gap = subpaths(try #require(gaps["d"]))
    #expect(gap.count == 1)
    #expect(gap[0][0] == line[0][1] && gap[0][1] == line[1][0])
    // Start at the first fix, end at the last.
    let start = try #require(doc.element(id: "track-start"))
    let end = try #require(doc.element(id: "track-end"))
    #expect(start.double("cx") == line[0][0].0 && start.double("cy") == line[0][0].1)
    #expect(end.double("cx") == line[1][1].0 && end.double("cy") == line[1][1].1)
    #expect(try #require(doc.element(id: "legend")).allText.contains("GPS gap"))
    #expect(try #require(doc.element(id: "track-badges")).elements("text").map(\.allText) == ["S", "E"])
}

@Test func roundWalkKeepsStartAndEndBadgesApart() throws {
    var map = SVGMap(regions: [])
    for b in stride(from: 0.0, through: 360, by: 10) { map.addTrack(go(go(base, 0, 200), b + 180, 200)) }
    let (_, doc) = try render(map)
    let badges = try #require(doc.element(id: "track-badges")).elements("circle")
    try #require(badges.count == 2)
    let (ax, ay, bx, by) = (badges[0].double("cx")!, badges[0].double("cy")!, badges[1].double("cx")!, badges[1].double("cy")!)
    #expect((ax - bx) * (ax - bx) + (ay - by) * (ay - by) >= 15.9 * 15.9)
    // The end's own dot is not under the start badge.
    let end = try #require(doc.element(id: "track-end"))
    let ex = end.double("cx")!, ey = end.double("cy")!
    #expect((ax - ex) * (ax - ex) + (ay - ey) * (ay - ey) > 7 * 7)
}

@Test func breakBeforeAnyFixAndInvalidFixesAreHarmless() throws {
    var map = SVGMap(regions: [])
    map.breakTrack()
    map.addTrack(Coordinate(latitude: .nan, longitude: 0))
    map.addTrack(base)
    map.addTrack(Coordinate(latitude: 95, longitude: 0))
    map.addTrack(go(base, 0, 50))
    let (_, doc) = try render(map)
    #expect(subpaths(try #require(doc.element(id: "track-line")?["d"])).map(\.count) == [2])
    #expect(doc.element(id: "track-gaps") == nil)
}

@Test func denseTrackIsThinnedButKeepsItsEnds() throws {
    var map = SVGMap(regions: [])
    for i in 0...2000 { map.addTrack(go(base, 90, Double(i) * 0.5)) } // 1000 m in 0.5 m steps
    let (_, doc) = try render(map)
    let line = subpaths(try #require(doc.element(id: "track-line")?["d"]))[0]
    #expect(line.count < 1200) // about one point per pixel, not 2001
    let ppm = (line.last!.0 - line.first!.0) / 1000
    #expect(ppm > 0.9 && ppm < 1.2)
}

// MARK: - Events

@Test func enterAndRuleEventAtOneSpotShareOneMarkerWithTwoLines() throws {
    let region = Region(id: "oak", kind: .reforestation, name: "Oak stand", shape: .circle(center: base, radius: 200))
    var map = SVGMap(regions: [region])
    straightTrack(&map)
    let at = go(base, 270, 200)
    map.addEvent(event(.enter, 0, at, time(12, 3, 41)))
    map.addEvent(event(.plantingAllowed, 0, at, time(12, 3, 41)))
    map.addEvent(event(.exit, 0, go(base, 90, 200), time(12, 9, 2)))
    let (_, doc) = try render(map)
    let markers = try #require(doc.element(id: "events")).children
    #expect(markers.count == 2)
    let labels = try #require(doc.element(id: "event-labels")).children
    #expect(labels.count == 2)
    let first = labels[0].elements("text").map(\.allText)
    #expect(first == ["12:03:41 enter Oak stand", "12:03:41 planting_allowed Oak stand"])
    #expect(labels[1].elements("text").map(\.allText) == ["12:09:02 exit Oak stand"])
    // Marker colours differ by type, and the legend lists exactly the types present.
    #expect(markers[0]["fill"] != markers[1]["fill"])
    let legend = try #require(doc.element(id: "legend")).allText
    #expect(legend.contains("enter") && legend.contains("exit") && legend.contains("planting_allowed"))
    #expect(!legend.contains("dwell") && !legend.contains("capture"))
}

@Test func transitEventsAreHollowAndSaySo() throws {
    var map = SVGMap(regions: [Region(id: "p", kind: .plant, name: "Rose", shape: .circle(center: base, radius: 10))])
    straightTrack(&map)
    map.addEvent(event(.enter, 0, base, time(8, 0, 5), transit: true))
    map.addEvent(event(.enter, 0, go(base, 90, 300), time(8, 1, 0)))
    let (_, doc) = try render(map)
    let markers = try #require(doc.element(id: "events")).children
    #expect(markers.count == 2)
    #expect(markers[0]["fill"] == "#fff")
    #expect(markers[1]["fill"] != "#fff")
    let text = try #require(doc.element(id: "event-labels")).allText
    #expect(text.contains("08:00:05 enter Rose (transit)"))
    #expect(try #require(doc.element(id: "legend")).allText.contains("transit"))
}

@Test func labelsOfNearbyEventsDoNotOverlap() throws {
    var map = SVGMap(regions: [Region(id: "p", kind: .plant, name: "Beech", shape: .circle(center: base, radius: 30))])
    straightTrack(&map)
    // Twelve events about 12 px apart along a short stretch: separate markers, crowded labels.
    for i in 0..<12 {
        map.addEvent(event(i % 2 == 0 ? .enter : .exit, 0, go(base, 90, Double(i) * 12), time(9, 0, i)))
    }
    let (_, doc) = try render(map)
    let boxes = try #require(doc.element(id: "event-labels")).children.compactMap { $0.elements("rect").first.flatMap(rect) }
    #expect(boxes.count == 12)
    for i in 0..<boxes.count {
        for j in (i + 1)..<boxes.count {
            #expect(boxes[i].overlap(boxes[j]) == 0, "labels \(i) and \(j) overlap")
        }
    }
    // All inside the map area.
    let area = try #require(doc.element(id: "map-area").flatMap(rect))
    #expect(boxes.allSatisfy { area.contains($0) })
    // Labels moved away from their marker get a leader line.
    #expect(doc.element(id: "event-leaders") != nil)
}

@Test func eventsWithNoRoomForALabelAreNumberedAndListedBelowTheMap() throws {
    var map = SVGMap(regions: [Region(id: "p", kind: .plant, name: "Hazel", shape: .circle(center: base, radius: 30))], width: 600)
    straightTrack(&map)
    // 150 events 7 m apart on a 1 km line: far more labels than the map has room for.
    for i in 0..<150 {
        map.addEvent(event(i % 2 == 0 ? .enter : .exit, 0, go(go(base, 270, 500), 90, Double(i) * 7), time(10, i / 60, i % 60)))
    }
    let (_, doc) = try render(map)
    let labels = try #require(doc.element(id: "event-labels")).children
    let tags = try #require(doc.element(id: "event-tags")).children
    let markers = try #require(doc.element(id: "events")).children
    #expect(labels.count + tags.count == markers.count)
    #expect(!labels.isEmpty && !tags.isEmpty)
    // Labels never overlap each other when some events go to the list.
    let boxes = labels.compactMap { $0.elements("rect").first.flatMap(rect) }
    for i in 0..<boxes.count {
        for j in (i + 1)..<boxes.count { #expect(boxes[i].overlap(boxes[j]) == 0) }
    }
    // Tags are numbered 1...n, and the list below the map carries the same numbers.
    let numbers = tags.map { $0.elements("text").first?.allText }
    #expect(numbers == (1...tags.count).map { String($0) })
    let list = try #require(doc.element(id: "event-list"))
    let listed = list.elements("text").filter { $0["font-weight"] == "bold" && $0["text-anchor"] == "end" }.map(\.allText)
    #expect(listed == numbers)
    // Every event is on the map or in the list: 150 lines in all.
    let mapLines = labels.flatMap { $0.elements("text") }.count
    let listLines = list.elements("text").filter { $0["text-anchor"] == nil && $0["font-size"] == nil }.count
    #expect(mapLines + listLines == 150)
    // The list lies below the map.
    let area = try #require(doc.element(id: "map-area").flatMap(rect))
    #expect(list.elements("text").allSatisfy { ($0.double("y") ?? 0) > area.maxY })
    #expect(try #require(doc.double("height")) > (list.elements("text").compactMap { $0.double("y") }.max() ?? .infinity))
}

@Test func manyEventsAtOneSpotAreCappedWithAMoreLine() throws {
    var map = SVGMap(regions: [Region(id: "p", kind: .plant, name: "Elm", shape: .circle(center: base, radius: 30))])
    for i in 0..<9 { map.addEvent(event(.dwell, 0, base, time(10, i, 0))) }
    let (_, doc) = try render(map)
    let lines = try #require(doc.element(id: "event-labels")?.children.first).elements("text").map(\.allText)
    #expect(lines.count == 6)
    #expect(lines.last == "+ 4 more")
    #expect(lines.first == "10:00:00 dwell Elm")
}

@Test func eventForUnknownRegionIndexIsLabelledByIndex() throws {
    var map = SVGMap(regions: [])
    map.addEvent(event(.exit, 7, base, time(23, 59, 59)))
    let (_, doc) = try render(map)
    #expect(try #require(doc.element(id: "event-labels")).elements("text").map(\.allText) == ["23:59:59 exit #7"])
}

// MARK: - Scale bar, north arrow, extent

@Test func scaleBarIsARoundLengthMatchingTheScale() throws {
    for (width, half) in [(1200.0, 500.0), (800, 3000), (1200, 40), (1000, 20_000)] {
        var map = SVGMap(regions: [], width: width)
        map.addTrack(go(base, 270, half))
        map.addTrack(go(base, 90, half))
        let (_, doc) = try render(map)
        let d = subpaths(try #require(doc.element(id: "track-line")?["d"]))[0]
        let ppm = (d[1].0 - d[0].0) / (2 * half)
        let label = try #require(doc.element(id: "scale-label")?.allText)
        let m = try #require(metres(ofLabel: label), "label \(label)")
        var mantissa = m
        while mantissa >= 10 { mantissa /= 10 }
        while mantissa < 1 { mantissa *= 10 }
        #expect([1.0, 2, 5].contains { abs($0 - mantissa) < 1e-9 }, "\(label)")
        let bar = try #require(doc.element(id: "scale-bar")?.double("width"))
        #expect(abs(bar - m * ppm) < 0.05, "\(label): \(bar) px vs \(m * ppm)")
        // About a fifth of the width: the largest round length not above it.
        #expect(bar <= width / 5 + 0.01 && bar > width / 5 / 2.5 - 0.01, "\(bar) of \(width)")
    }
}

@Test func northArrowIsThere() throws {
    let (_, doc) = try render(SVGMap(regions: []))
    let arrow = try #require(doc.element(id: "north-arrow"))
    #expect(arrow.elements("text").map(\.allText) == ["N"])
    // It points up: the tip is the path's highest point.
    let pts = subpaths(try #require(arrow.elements("path").first?["d"]))[0]
    #expect(pts[0].1 == pts.map(\.1).min())
}

@Test func extentTakesNearFencesAndLeavesFarOnesOut() throws {
    let near = Region(id: "near", kind: .album, name: "Near", shape: .circle(center: go(base, 0, 550), radius: 100))
    let far = Region(id: "far", kind: .album, name: "Far", shape: .circle(center: go(base, 0, 20_000), radius: 100))
    var map = SVGMap(regions: [near, far])
    straightTrack(&map)
    let (_, doc) = try render(map)
    let ids = doc.elements("circle").compactMap { $0["data-id"] }
    #expect(ids == ["near"])
    // The near fence is wholly on the map.
    let area = try #require(doc.element(id: "map-area").flatMap(rect))
    let c = try #require(doc.elements("circle").first { $0["data-id"] == "near" })
    let (cx, cy, r) = (c.double("cx")!, c.double("cy")!, c.double("r")!)
    #expect(cy - r > area.y && cy + r < area.maxY && cx - r > area.x && cx + r < area.maxX)
    // The far one did not stretch the map: 1000 m of track spans most of the width.
    let ppm = try pixelsPerMetre(doc)
    #expect(ppm * 1000 > area.w * 0.7)
}

@Test func hugeFenceAroundAShortWalkDoesNotShrinkTheWalk() throws {
    let big = Region(id: "big", kind: .reforestation, name: "Forest", shape: .polygons([[square(base, half: 30_000)]]))
    var map = SVGMap(regions: [big])
    map.addTrack(base)
    map.addTrack(go(base, 90, 100))
    let (_, doc) = try render(map)
    let d = subpaths(try #require(doc.element(id: "track-line")?["d"]))[0]
    #expect(d[1].0 - d[0].0 > 50) // at least 50 px for the 100 m walk
    #expect(doc.elements("path").contains { $0["data-id"] == "big" })
}

@Test func withoutTrackTheMapShowsAllFences() throws {
    let a = Region(id: "a", kind: .plant, name: "A", shape: .circle(center: base, radius: 20))
    let b = Region(id: "b", kind: .plant, name: "B", shape: .circle(center: go(base, 45, 5000), radius: 20))
    let (_, doc) = try render(SVGMap(regions: [a, b]))
    let area = try #require(doc.element(id: "map-area").flatMap(rect))
    let circles = doc.elements("circle").filter { $0["data-id"] != nil }
    #expect(circles.count == 2)
    for c in circles {
        #expect(area.contains(Rect(x: c.double("cx")! - 1, y: c.double("cy")! - 1, w: 2, h: 2)))
    }
}

// MARK: - Degenerate input, validity, determinism

@Test func emptyInputGivesAValidSVG() throws {
    let (svg, doc) = try render(SVGMap(regions: []))
    #expect(doc.name == "svg")
    #expect(doc["xmlns"] == "http://www.w3.org/2000/svg")
    let w = try #require(doc.double("width")), h = try #require(doc.double("height"))
    #expect(w == 1200 && h > 300 && h.isFinite)
    #expect(!svg.contains("nan") && !svg.contains("inf"))
    #expect(doc.element(id: "scale-bar") != nil)
    #expect(doc.allText.contains("No track, events or fences"))
}

@Test func singlePointAndSingleEventDoNotDivideByZero() throws {
    var one = SVGMap(regions: [])
    one.addTrack(base)
    let (svg, doc) = try render(one)
    #expect(!svg.contains("nan") && !svg.contains("inf"))
    #expect(doc.element(id: "track-start") != nil)
    #expect(doc.element(id: "track-end") == nil)
    #expect(doc.element(id: "track-line") == nil) // one fix draws a dot, not a line

    var ev = SVGMap(regions: [])
    ev.addEvent(event(.dwell, 0, base, time(1, 2, 3)))
    let (svg2, _) = try render(ev)
    #expect(!svg2.contains("nan") && !svg2.contains("inf"))
}

@Test func fullMapIsWellFormedAndDeterministic() throws {
    func build() -> SVGMap {
        let regions = [
            Region(id: "r", kind: .reforestation, name: "Oak stand", shape: .polygons([[square(base, half: 250), square(go(base, 45, 60), half: 40)]])),
            Region(id: "p", kind: .plant, name: "Fig", shape: .circle(center: go(base, 90, 150), radius: 25)),
            Region(id: "a", kind: .album, name: "Old mill", shape: .circle(center: go(base, 200, 400), radius: 150)),
        ]
        var map = SVGMap(regions: regions, width: 900)
        map.title = "walk.nmea"
        for i in 0..<200 {
            if i == 120 { map.breakTrack() }
            map.addTrack(go(go(base, 270, 400), 80, Double(i) * 5))
        }
        map.addEvent(event(.enter, 0, go(base, 270, 250), time(12, 0, 0)))
        map.addEvent(event(.plantingAllowed, 0, go(base, 270, 250), time(12, 0, 0)))
        map.addEvent(event(.waterDue, 1, go(base, 90, 140), time(12, 5, 0)))
        map.addEvent(event(.captureLocked, 2, go(base, 90, 140), time(12, 5, 1)))
        map.addEvent(event(.exit, 0, go(base, 90, 250), time(12, 9, 0)))
        return map
    }
    let a = build().render(), b = build().render()
    #expect(a == b)
    let doc = try #require(parseXML(a))
    #expect(doc.elements("text").contains { $0.allText == "walk.nmea" })
    // Numbers keep at most two decimals.
    var longest = 0, run = 0, afterPoint = false
    for ch in a {
        if ch == "." { afterPoint = true; run = 0 } else if afterPoint && ch.isNumber { run += 1; longest = max(longest, run) } else { afterPoint = false }
    }
    #expect(longest <= 2)
}

// MARK: - Helpers

@Test func numberFormatting() {
    #expect(SVGText.num(12.0) == "12")
    #expect(SVGText.num(12.04) == "12")
    #expect(SVGText.num(12.06) == "12.1")
    #expect(SVGText.num(-0.04) == "0")
    #expect(SVGText.num(-3.14159, 2) == "-3.14")
    #expect(SVGText.num(1.05, 2) == "1.05")
    #expect(SVGText.num(0.5, 0) == "1")
    #expect(SVGText.num(1234567.891, 1) == "1234567.9")
    #expect(SVGText.num(.nan) == "0")
    #expect(SVGText.num(.infinity) == "0")
}

@Test func clockAndDistanceLabels() {
    #expect(SVGText.clock(time(12, 3, 41)) == "12:03:41")
    #expect(SVGText.clock(UTCTime(nanoseconds: 86_399_999_999_999)) == "23:59:59")
    #expect(SVGText.clock(UTCTime(nanoseconds: -1)) == "23:59:59")
    #expect(SVGText.distanceLabel(200) == "200 m")
    #expect(SVGText.distanceLabel(2000) == "2 km")
    #expect(SVGText.distanceLabel(0.5) == "0.5 m")
}

@Test func niceLengthsAreOneTwoFive() {
    #expect(MapRenderer.niceLength(240) == 200)
    #expect(MapRenderer.niceLength(199) == 100)
    #expect(MapRenderer.niceLength(500) == 500)
    #expect(MapRenderer.niceLength(9999) == 5000)
    #expect(MapRenderer.niceLength(0.7) == 0.5)
    #expect(MapRenderer.niceLength(0) == 1)
}

@Test func interiorPointOfAUShapeIsInside() {
    // A U opening upwards: its centroid lies in the notch.
    let u: [(Double, Double)] = [(0, 0), (30, 0), (30, 100), (70, 100), (70, 0), (100, 0), (100, 120), (0, 120)]
    // y grows downwards in pixels; flip so the notch is open at the top.
    let ring = u.map { Planar(x: $0.0, y: 120 - $0.1) }
    let p = MapRenderer.interiorPoint([ring])
    #expect(PlanarRing.contains(ring, Planar(x: p.0, y: p.1)))
}
