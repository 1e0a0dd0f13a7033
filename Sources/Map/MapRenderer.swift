#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo
import Rules
import Regions

struct MapRenderer {
    let map: SVGMap
    private var out = ""
    /// Events at spots too crowded for a label: numbered on the map, listed below it.
    private var listed: [(number: Int, events: [RegionEvent])] = []
    private func n(_ v: Double, _ decimals: Int = 1) -> String { SVGText.num(v, decimals) }

    // Sizes in pixels.
    static let markerRadius = 6.0
    static let clusterRadius = 9.0
    static let labelFont = 11.0
    static let labelLine = 14.0
    static let fenceFont = 12.0
    static let maxLabelLines = 6
    static let arrowSpacing = 140.0

    init(map: SVGMap) { self.map = map }

    private mutating func emit(_ s: String) {
        out += s
        out += "\n"
    }

    // MARK: Projection and extent

    /// Chooses the frame's origin, projects everything and lays out the page.
    func makeFrame() -> (MapFrame, [ProjectedRegion]) {
        let trackAndEvents = map.segments.flatMap { $0 } + map.events.map(\.coordinate)
        let origin: Coordinate
        if !trackAndEvents.isEmpty {
            origin = MapFrame.centre(of: trackAndEvents)
        } else {
            var anchors: [Coordinate] = []
            for r in map.regions {
                switch r.shape {
                case .circle(let c, _): anchors.append(c)
                case .polygons(let ps): for p in ps { if let outer = p.first { anchors.append(contentsOf: outer) } }
                }
            }
            origin = MapFrame.centre(of: anchors.filter(\.isValid))
        }
        let frame = LocalFrame(origin: origin)
        let probe = MapFrame(frame: frame, extent: MetreBox(), width: map.width, top: 0)
        let projected = projectRegions(probe)

        var core = MetreBox()
        for c in trackAndEvents { core.add(frame.project(c)) }
        var extent = core
        if !core.isEmpty {
            let near = core.expanded(by: 500)
            for r in projected where r.box.intersects(near) { extent.add(r.box) }
            extent = extent.intersection(core.expanded(by: max(600, max(core.width, core.height))))
        } else {
            for r in projected { extent.add(r.box) }
        }
        let top = map.title == nil ? 0.0 : 34.0
        return (MapFrame(frame: frame, extent: extent, width: map.width, top: top), projected)
    }

    /// The regions near the origin, projected, in drawing order: larger areas first so small
    /// fences inside big ones stay on top; ties keep the regions' order.
    func projectRegions(_ f: MapFrame) -> [ProjectedRegion] {
        var out: [ProjectedRegion] = []
        for (i, r) in map.regions.enumerated() {
            switch r.shape {
            case .circle(let c, let radius):
                guard c.isValid, radius.isFinite, radius >= 0, f.isNear(c) else { continue }
                let p = f.metres(c)
                var box = MetreBox()
                box.add(p.x - radius, p.y - radius)
                box.add(p.x + radius, p.y + radius)
                out.append(ProjectedRegion(index: i, geometry: .circle(center: p, radius: radius), box: box, area: .pi * radius * radius))
            case .polygons(let polys):
                var projected: [[[Planar]]] = []
                var box = MetreBox()
                var area = 0.0
                var ok = true
                for poly in polys {
                    var rings: [[Planar]] = []
                    for (k, ring) in poly.enumerated() {
                        guard ring.allSatisfy({ $0.isValid && f.isNear($0) }) else { ok = false; break }
                        let pts = ring.map { f.metres($0) }
                        if k == 0 { for p in pts { box.add(p) } }
                        let a = abs(PlanarRing.signedArea(pts))
                        area += k == 0 ? a : -a
                        rings.append(pts)
                    }
                    if !ok { break }
                    if let outer = rings.first, outer.count >= 2 { projected.append(rings) }
                }
                guard ok, !projected.isEmpty else { continue }
                out.append(ProjectedRegion(index: i, geometry: .polygons(projected), box: box, area: area))
            }
        }
        // Stable: sort by area descending, then by index.
        return out.sorted { $0.area != $1.area ? $0.area > $1.area : $0.index < $1.index }
    }

    // MARK: Document

    mutating func render() -> String {
        let (f, regions) = makeFrame()
        let area = f.area
        let visible = regions.filter { $0.box.intersects(f.view) }
        let pixelTrack = trackPixels(f)
        let clusters = clusterEvents(f)

        emit("<defs><clipPath id=\"map-clip\"><rect x=\"\(n(area.x))\" y=\"\(n(area.y))\" width=\"\(n(area.w))\" height=\"\(n(area.h))\"/></clipPath></defs>")
        emit("<rect id=\"map-area\" x=\"\(n(area.x))\" y=\"\(n(area.y))\" width=\"\(n(area.w))\" height=\"\(n(area.h))\" fill=\"#f4f2ec\"/>")
        emit("<g clip-path=\"url(#map-clip)\">")

        drawFences(visible, f)
        drawTrack(pixelTrack)

        // Labels avoid what is placed before them: the scale bar, the north arrow and the event
        // markers, then the start/end badges, fence names (small fences first), event labels.
        var placer = LabelPlacer(bounds: Rect(x: area.x + 3, y: area.y + 3, w: area.w - 6, h: area.h - 6))
        let scaleBar = scaleBarGeometry(f)
        placer.add(scaleBar.box)
        let north = northArrowBox(f)
        placer.add(north)
        let r = Self.markerRadius
        for c in clusters { placer.add(Rect(x: c.x - r, y: c.y - r, w: 2 * r, h: 2 * r)) }
        drawTrackEnds(pixelTrack, &placer)
        drawFenceLabels(visible, f, &placer)
        drawEvents(clusters, &placer)
        emit("</g>")

        emit("<rect x=\"\(n(area.x))\" y=\"\(n(area.y))\" width=\"\(n(area.w))\" height=\"\(n(area.h))\" fill=\"none\" stroke=\"#999\" stroke-width=\"1\"/>")
        drawScaleBar(scaleBar)
        drawNorthArrow(north)
        if map.segments.isEmpty && map.events.isEmpty && visible.isEmpty {
            emit("<text x=\"\(n(area.x + area.w / 2))\" y=\"\(n(area.y + area.h / 2))\" text-anchor=\"middle\" font-size=\"14\" fill=\"#777\">No track, events or fences to show</text>")
        }
        // The page's height depends on the legend and the list of events that found no room
        // on the map, so the map is written first and the document's head put before it.
        let body = out
        out = ""
        let legend = legendItems(hasGap: pixelTrack.count > 1, hasTrack: !pixelTrack.isEmpty)
        let legendLayout = layoutLegend(legend, top: area.maxY + 10)
        let list = layoutEventList(listed, top: legendLayout.bottom + 4)
        let height = (list.bottom + 8).rounded(.up)
        let w = map.width

        emit("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        emit("<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"\(n(w, 1))\" height=\"\(n(height, 1))\" viewBox=\"0 0 \(n(w, 1)) \(n(height, 1))\" font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\">")
        if let t = map.title { emit("<title>\(SVGText.escape(t))</title>") }
        emit("<rect width=\"\(n(w, 1))\" height=\"\(n(height, 1))\" fill=\"#fff\"/>")
        if let t = map.title {
            emit("<text x=\"12\" y=\"23\" font-size=\"16\" font-weight=\"bold\" fill=\"#222\">\(SVGText.escape(t))</text>")
        }
        out += body
        drawLegend(legendLayout)
        drawEventList(list)
        emit("</svg>")
        return out
    }

    // MARK: Fences

    /// Drops points closer than `minStep` pixels to the last one kept (the last point is always
    /// kept); returns `pts` unchanged when fewer than `minCount` would remain.
    static func thin(_ pts: [(Double, Double)], minStep: Double, minCount: Int) -> [(Double, Double)] {
        guard pts.count > 2 else { return pts }
        var kept: [(Double, Double)] = [pts[0]]
        let m2 = minStep * minStep
        for i in 1..<pts.count {
            let p = pts[i], q = kept[kept.count - 1]
            let dx = p.0 - q.0, dy = p.1 - q.1
            if dx * dx + dy * dy >= m2 || i == pts.count - 1 { kept.append(p) }
        }
        return kept.count >= minCount ? kept : pts
    }

    func ringPixels(_ ring: [Planar], _ f: MapFrame) -> [(Double, Double)] {
        Self.thin(ring.map { let p = f.pixel($0); return (p.x, p.y) }, minStep: 0.5, minCount: 3)
    }

    func regionTitle(_ i: Int) -> String {
        let r = map.regions[i]
        return (r.name.isEmpty ? r.id : r.name)
    }

    mutating func drawFences(_ regions: [ProjectedRegion], _ f: MapFrame) {
        emit("<g id=\"fences\" fill-opacity=\"\(MapStyle.fillOpacity)\" stroke-width=\"1.5\" stroke-linejoin=\"round\">")
        for pr in regions {
            let region = map.regions[pr.index]
            let st = MapStyle.kind(region.kind)
            let attrs = "class=\"fence \(region.kind.rawValue)\" data-id=\"\(SVGText.escape(region.id))\" fill=\"\(st.fill)\" stroke=\"\(st.stroke)\""
            let tip = "<title>\(SVGText.escape(regionTitle(pr.index))) (\(region.kind.rawValue))</title>"
            switch pr.geometry {
            case .circle(let c, let radius):
                let p = f.pixel(c)
                emit("<circle \(attrs) cx=\"\(n(p.x))\" cy=\"\(n(p.y))\" r=\"\(n(radius * f.scale, 2))\">\(tip)</circle>")
            case .polygons(let polys):
                for poly in polys {
                    var d = ""
                    for ring in poly {
                        let pts = ringPixels(ring, f)
                        guard !pts.isEmpty else { continue }
                        for (k, p) in pts.enumerated() {
                            d += (k == 0 ? "M" : "L") + n(p.0) + " " + n(p.1)
                        }
                        d += "Z"
                    }
                    emit("<path \(attrs) fill-rule=\"evenodd\" d=\"\(d)\">\(tip)</path>")
                }
            }
        }
        emit("</g>")
    }

    /// Where a fence's name goes: a circle's centre; for polygons, the area centroid of the
    /// largest outer ring, or, when that falls outside the polygon (a C shape, or in a hole),
    /// the middle of the widest inside stretch of the horizontal line through it.
    func labelAnchor(_ pr: ProjectedRegion, _ f: MapFrame) -> (Double, Double) {
        switch pr.geometry {
        case .circle(let c, _):
            let p = f.pixel(c)
            return (p.x, p.y)
        case .polygons(let polys):
            var best: [[Planar]] = []
            var bestArea = -1.0
            for poly in polys {
                let rings = poly.map { $0.map { p -> Planar in let q = f.pixel(p); return Planar(x: q.x, y: q.y) } }
                let a = abs(PlanarRing.signedArea(rings[0]))
                if a > bestArea { bestArea = a; best = rings }
            }
            return Self.interiorPoint(best)
        }
    }

    /// A point inside the polygon (outer ring + holes, even-odd), see `labelAnchor`.
    static func interiorPoint(_ rings: [[Planar]]) -> (Double, Double) {
        guard let outer = rings.first, !outer.isEmpty else { return (0, 0) }
        var cx = 0.0, cy = 0.0, a2 = 0.0
        for i in 0..<outer.count {
            let p = outer[i], q = outer[(i + 1) % outer.count]
            let c = p.x * q.y - q.x * p.y
            a2 += c
            cx += (p.x + q.x) * c
            cy += (p.y + q.y) * c
        }
        var candidate: (Double, Double)
        if abs(a2) > 1e-9 {
            candidate = (cx / (3 * a2), cy / (3 * a2))
        } else {
            let xs = outer.map(\.x), ys = outer.map(\.y)
            candidate = ((xs.min()! + xs.max()!) / 2, (ys.min()! + ys.max()!) / 2)
        }
        if contains(rings, Planar(x: candidate.0, y: candidate.1)) { return candidate }
        // Scan line through the candidate (nudged off vertices): widest inside stretch.
        let y = candidate.1 + 0.013
        var xs: [Double] = []
        for ring in rings {
            for i in 0..<ring.count {
                let p = ring[i], q = ring[(i + 1) % ring.count]
                if (p.y > y) != (q.y > y) { xs.append(p.x + (y - p.y) / (q.y - p.y) * (q.x - p.x)) }
            }
        }
        xs.sort()
        var bestW = -1.0
        var k = 0
        while k + 1 < xs.count {
            if xs[k + 1] - xs[k] > bestW { bestW = xs[k + 1] - xs[k]; candidate = ((xs[k] + xs[k + 1]) / 2, y) }
            k += 2
        }
        return candidate
    }

    /// Even-odd point-in-polygon over all rings: inside an odd number of them.
    static func contains(_ rings: [[Planar]], _ q: Planar) -> Bool {
        rings.reduce(false) { $0 != PlanarRing.contains($1, q) }
    }

    mutating func drawFenceLabels(_ regions: [ProjectedRegion], _ f: MapFrame, _ placer: inout LabelPlacer) {
        emit("<g id=\"fence-labels\" font-size=\"\(n(Self.fenceFont))\" font-weight=\"bold\" text-anchor=\"middle\" stroke=\"#fff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\">")
        // Small fences last in drawing order, but their names are placed first: a name must
        // sit on a small fence, while a big one has room elsewhere.
        for pr in regions.reversed() {
            let region = map.regions[pr.index]
            let name = regionTitle(pr.index)
            let (ax, ay) = labelAnchor(pr, f)
            let w = SVGText.width(name, size: Self.fenceFont) * 1.1 + 4, h = Self.fenceFont + 4
            // The fence's extent on the page, to tell whether the name fits inside it.
            let a = f.pixel(Planar(x: pr.box.minX, y: pr.box.maxY)), b = f.pixel(Planar(x: pr.box.maxX, y: pr.box.minY))
            let fence = Rect(x: a.x, y: a.y, w: b.x - a.x, h: b.y - a.y)
            var cands: [Rect] = []
            if w < fence.w * 0.85 && h < fence.h * 0.6 {
                for dy in [0.0, 16, -16, 32, -32] {
                    cands.append(Rect(x: ax - w / 2, y: ay - h / 2 + dy, w: w, h: h))
                }
            } else {
                // A small fence: the name goes beside it (below, above, right, left), so the
                // fence itself and the track through it stay visible.
                let cx = fence.x + fence.w / 2, cy = fence.y + fence.h / 2
                cands.append(Rect(x: cx - w / 2, y: fence.maxY + 1, w: w, h: h))
                cands.append(Rect(x: cx - w / 2, y: fence.y - 1 - h, w: w, h: h))
                cands.append(Rect(x: fence.maxX + 3, y: cy - h / 2, w: w, h: h))
                cands.append(Rect(x: fence.x - 3 - w, y: cy - h / 2, w: w, h: h))
                cands += LabelPlacer.candidates(ax: cx, ay: cy, w: w, h: h).filter { $0.overlap(fence) == 0 }
            }
            let inside = cands.map { placer.clamped($0) }
            let box = placer.place(inside)
            let st = MapStyle.kind(region.kind)
            emit("<text x=\"\(n(box.x + box.w / 2))\" y=\"\(n(box.y + h / 2 + Self.fenceFont * 0.36))\" fill=\"\(st.text)\">\(SVGText.escape(name))</text>")
        }
        emit("</g>")
    }

    // MARK: Track

    /// The track in pixels, one array per polyline, thinned to steps of at least 0.75 px.
    func trackPixels(_ f: MapFrame) -> [[(Double, Double)]] {
        map.segments.map { seg in
            Self.thin(seg.map { let p = f.pixel($0); return (p.x, p.y) }, minStep: 0.75, minCount: 1)
        }
    }

    mutating func drawTrack(_ segs: [[(Double, Double)]]) {
        guard !segs.isEmpty else { return }
        var d = ""
        var dots: [(Double, Double)] = []
        for seg in segs {
            if seg.count == 1 { dots.append(seg[0]); continue }
            for (k, p) in seg.enumerated() { d += (k == 0 ? "M" : "L") + n(p.0) + " " + n(p.1) }
        }
        emit("<g id=\"track\" fill=\"none\" stroke-linecap=\"round\" stroke-linejoin=\"round\">")
        if !d.isEmpty {
            emit("<defs><path id=\"track-line\" d=\"\(d)\"/></defs>")
            emit("<use xlink:href=\"#track-line\" stroke=\"\(MapStyle.trackCasing)\" stroke-width=\"5\" stroke-opacity=\"0.85\"/>")
            emit("<use xlink:href=\"#track-line\" stroke=\"\(MapStyle.track)\" stroke-width=\"2.5\"/>")
        }
        // Gaps: a thin dashed line from where the fixes stopped to where they resumed.
        var gaps = ""
        for i in 1..<segs.count {
            if let a = segs[i - 1].last, let b = segs[i].first {
                gaps += "M" + n(a.0) + " " + n(a.1) + "L" + n(b.0) + " " + n(b.1)
            }
        }
        if !gaps.isEmpty {
            emit("<path id=\"track-gaps\" d=\"\(gaps)\" stroke=\"\(MapStyle.track)\" stroke-width=\"1.5\" stroke-dasharray=\"5 4\" stroke-opacity=\"0.8\"/>")
        }
        for p in dots {
            emit("<circle cx=\"\(n(p.0))\" cy=\"\(n(p.1))\" r=\"2.5\" fill=\"\(MapStyle.track)\" stroke=\"none\"/>")
        }
        // Direction: a chevron every `arrowSpacing` pixels along the drawn lines.
        var arrows = ""
        var run = Self.arrowSpacing / 2
        for seg in segs where seg.count > 1 {
            for k in 1..<seg.count {
                let a = seg[k - 1], b = seg[k]
                let dx = b.0 - a.0, dy = b.1 - a.1
                let len = (dx * dx + dy * dy).squareRoot()
                var t = Self.arrowSpacing - run
                while t <= len {
                    let x = a.0 + dx * t / len, y = a.1 + dy * t / len
                    let deg = Self.degrees(dy, dx)
                    arrows += "<path d=\"M-4 -3.5L1.5 0L-4 3.5\" transform=\"translate(\(n(x)) \(n(y))) rotate(\(n(deg, 0)))\"/>"
                    t += Self.arrowSpacing
                }
                run = len - (t - Self.arrowSpacing)
            }
        }
        if !arrows.isEmpty {
            emit("<g id=\"track-arrows\" stroke=\"\(MapStyle.track)\" stroke-width=\"1.6\">\(arrows)</g>")
        }
        emit("</g>")
    }

    /// Start and end: a small dot exactly at the first and last fix, and a badge ("S" hollow,
    /// "E" filled) on it, or moved beside it with a leader when it would hide an event marker
    /// or the other end (a round walk ends where it started).
    mutating func drawTrackEnds(_ segs: [[(Double, Double)]], _ placer: inout LabelPlacer) {
        guard let s = segs.first?.first, let e = segs.last?.last else { return }
        let total = segs.reduce(0) { $0 + $1.count }
        var ends: [(name: String, p: (Double, Double), filled: Bool)] = [("start", s, false)]
        if total > 1 { ends.append(("end", e, true)) }
        var dots = "", badges = ""
        for (k, end) in ends.enumerated() {
            let p = end.p
            var cands = [Rect(x: p.0 - 8, y: p.1 - 8, w: 16, h: 16)] + LabelPlacer.candidates(ax: p.0, ay: p.1, w: 16, h: 16)
            if k == 0 && ends.count > 1 {
                // The start badge must not hide the end.
                let other = Rect(x: e.0 - 3, y: e.1 - 3, w: 6, h: 6)
                cands = cands.filter { $0.overlap(other) == 0 }
            }
            let box = placer.place(cands)
            let bx = box.x + 8, by = box.y + 8
            dots += "<circle id=\"track-\(end.name)\" cx=\"\(n(p.0))\" cy=\"\(n(p.1))\" r=\"3\"/>"
            let dx = bx - p.0, dy = by - p.1, dist = (dx * dx + dy * dy).squareRoot()
            if dist > 8 {
                dots += "<path d=\"M\(n(p.0)) \(n(p.1))L\(n(bx - dx / dist * 7)) \(n(by - dy / dist * 7))\" stroke=\"\(MapStyle.track)\" stroke-width=\"1.2\"/>"
            }
            badges += end.filled
                ? "<circle cx=\"\(n(bx))\" cy=\"\(n(by))\" r=\"7\" fill=\"\(MapStyle.track)\" stroke=\"#fff\" stroke-width=\"1.5\"/>"
                : "<circle cx=\"\(n(bx))\" cy=\"\(n(by))\" r=\"7\" fill=\"#fff\" stroke=\"\(MapStyle.track)\" stroke-width=\"2\"/>"
            badges += "<text x=\"\(n(bx))\" y=\"\(n(by + 3.5))\" fill=\"\(end.filled ? "#fff" : MapStyle.track)\">\(end.filled ? "E" : "S")</text>"
        }
        emit("<g id=\"track-ends\" fill=\"\(MapStyle.track)\">\(dots)</g>")
        emit("<g id=\"track-badges\" font-size=\"10\" font-weight=\"bold\" text-anchor=\"middle\">\(badges)</g>")
    }

    /// The direction of (x, y) in degrees, clockwise from the x axis in SVG's y-down pixels.
    static func degrees(_ y: Double, _ x: Double) -> Double {
        x == 0 && y == 0 ? 0 : atan2(y, x) * 180 / .pi
    }

    // MARK: Events

    /// Groups events whose markers would touch: each event joins the earliest cluster whose
    /// first event is within `clusterRadius` pixels, else starts a new one.
    func clusterEvents(_ f: MapFrame) -> [EventCluster] {
        var clusters: [EventCluster] = []
        var grid: [Int64: [Int]] = [:]
        let cell = Self.clusterRadius
        func key(_ cx: Int64, _ cy: Int64) -> Int64 { cx &* 1_000_003 &+ cy }
        for (i, e) in map.events.enumerated() {
            let p = f.pixel(e.coordinate)
            guard p.x.isFinite, p.y.isFinite else { continue }
            let cx = Int64((p.x / cell).rounded(.down)), cy = Int64((p.y / cell).rounded(.down))
            var found: Int?
            for gx in (cx - 1)...(cx + 1) {
                for gy in (cy - 1)...(cy + 1) {
                    for ci in grid[key(gx, gy)] ?? [] {
                        let c = clusters[ci]
                        let dx = c.x - p.x, dy = c.y - p.y
                        if dx * dx + dy * dy <= cell * cell, ci < (found ?? Int.max) { found = ci }
                    }
                }
            }
            if let ci = found {
                clusters[ci].events.append(i)
            } else {
                grid[key(cx, cy), default: []].append(clusters.count)
                clusters.append(EventCluster(x: p.x, y: p.y, events: [i]))
            }
        }
        return clusters
    }

    func eventLine(_ e: RegionEvent) -> String {
        let name = e.region >= 0 && e.region < map.regions.count ? regionTitle(e.region) : "#\(e.region)"
        var s = SVGText.clock(e.time) + " " + e.type.rawValue + " " + name
        if e.transit { s += " (transit)" } else if e.initial { s += " (initial)" }
        return s
    }

    mutating func drawEvents(_ clusters: [EventCluster], _ placer: inout LabelPlacer) {
        guard !clusters.isEmpty else { return }
        let r = Self.markerRadius
        emit("<g id=\"events\">")
        for c in clusters {
            let e = map.events[c.events[0]]
            emit(MapStyle.marker(e.type, x: c.x, y: c.y, r: r, hollow: e.transit))
        }
        emit("</g>")

        // Label boxes: one line per event, at most `maxLabelLines`.
        struct Label { var box: Rect; var lines: [(RegionEvent?, String)]; var cluster: EventCluster }
        var labels: [Label] = []
        var crowded: [EventCluster] = []
        let font = Self.labelFont, lineH = Self.labelLine
        for c in clusters {
            var lines: [(RegionEvent?, String)] = []
            let evs = c.events.map { map.events[$0] }
            let shown = evs.count > Self.maxLabelLines ? Self.maxLabelLines - 1 : evs.count
            for e in evs.prefix(shown) { lines.append((e, eventLine(e))) }
            if shown < evs.count { lines.append((nil, "+ \(evs.count - shown) more")) }
            let textW = lines.map { SVGText.width($0.1, size: font) }.max() ?? 0
            let w = 20 + textW + 6, h = Double(lines.count) * lineH + 6
            if let box = placer.placeIfFree(LabelPlacer.candidates(ax: c.x, ay: c.y, w: w, h: h)) {
                labels.append(Label(box: box, lines: lines, cluster: c))
            } else {
                crowded.append(c)
            }
        }
        // No free room within reach: a number tag on the map, the text in the list below.
        var tags: [(Rect, Int, EventCluster)] = []
        for c in crowded {
            let number = listed.count + 1
            listed.append((number, c.events.map { map.events[$0] }))
            let text = String(number)
            let w = SVGText.width(text, size: 10) + 7, h = 13.0
            tags.append((placer.place(LabelPlacer.candidates(ax: c.x, ay: c.y, w: w, h: h)), number, c))
        }
        var leaders = ""
        let anchored = labels.map { ($0.box, $0.cluster) } + tags.map { ($0.0, $0.2) }
        for (box, c) in anchored {
            let p = box.nearest(c.x, c.y)
            let dx = p.x - c.x, dy = p.y - c.y
            if dx * dx + dy * dy > 100 {
                leaders += "M" + n(c.x) + " " + n(c.y) + "L" + n(p.x) + " " + n(p.y)
            }
        }
        if !leaders.isEmpty { emit("<path id=\"event-leaders\" d=\"\(leaders)\" fill=\"none\" stroke=\"#555\" stroke-width=\"0.8\"/>") }
        emit("<g id=\"event-labels\" font-size=\"\(n(font))\" fill=\"#222\">")
        for l in labels {
            let b = l.box
            emit("<g class=\"event-label\"><rect x=\"\(n(b.x))\" y=\"\(n(b.y))\" width=\"\(n(b.w))\" height=\"\(n(b.h))\" rx=\"3\" fill=\"#fff\" fill-opacity=\"0.92\" stroke=\"#888\" stroke-width=\"0.6\"/>")
            for (k, line) in l.lines.enumerated() {
                let top = b.y + 3 + Double(k) * lineH
                if let e = line.0 { emit(MapStyle.marker(e.type, x: b.x + 9, y: top + lineH / 2, r: 4.5, hollow: e.transit)) }
                emit("<text x=\"\(n(b.x + 18))\" y=\"\(n(top + 11))\">\(SVGText.escape(line.1))</text>")
            }
            emit("</g>")
        }
        emit("</g>")
        if !tags.isEmpty {
            emit("<g id=\"event-tags\" font-size=\"10\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#222\">")
            for (b, number, _) in tags {
                emit("<g class=\"event-tag\"><rect x=\"\(n(b.x))\" y=\"\(n(b.y))\" width=\"\(n(b.w))\" height=\"\(n(b.h))\" rx=\"6\" fill=\"#fff\" stroke=\"#555\" stroke-width=\"0.8\"/><text x=\"\(n(b.x + b.w / 2))\" y=\"\(n(b.y + 10))\">\(number)</text></g>")
            }
            emit("</g>")
        }
    }

    // MARK: Crowded events list

    static let maxListLines = 300

    struct EventListLayout {
        /// Number (on an entry's first line only), event (nil for a closing "more" line), text, position.
        var lines: [(number: Int?, event: RegionEvent?, text: String, x: Double, y: Double)]
        var heading: (x: Double, y: Double)?
        var bottom: Double
    }

    /// Lays the crowded events out in as many columns as fit the page width, filled top to
    /// bottom; at most `maxListLines` lines.
    func layoutEventList(_ entries: [(number: Int, events: [RegionEvent])], top: Double) -> EventListLayout {
        guard !entries.isEmpty else { return EventListLayout(lines: [], heading: nil, bottom: top) }
        var flat: [(Int?, RegionEvent?, String)] = []
        let total = entries.reduce(0) { $0 + $1.events.count }
        for entry in entries {
            for (k, e) in entry.events.enumerated() {
                if flat.count == Self.maxListLines - 1 && flat.count + 1 < total { break }
                flat.append((k == 0 ? entry.number : nil, e, eventLine(e)))
            }
        }
        if flat.count < total { flat.append((nil, nil, "… and \(total - flat.count) more events (see the event log)")) }
        let lineH = 15.0
        let textW = flat.map { SVGText.width($0.2, size: Self.labelFont) }.max() ?? 0
        let colW = min(map.width - 24, 44 + textW + 18)
        let cols = max(1, Int((map.width - 24) / colW))
        let rows = (flat.count + cols - 1) / cols
        var lines: [(number: Int?, event: RegionEvent?, text: String, x: Double, y: Double)] = []
        let y0 = top + 24
        for (i, l) in flat.enumerated() {
            let col = i / rows, row = i % rows
            lines.append((l.0, l.1, l.2, 12 + Double(col) * colW, y0 + Double(row) * lineH))
        }
        return EventListLayout(lines: lines, heading: (12, top + 14), bottom: y0 + Double(rows) * lineH)
    }

    mutating func drawEventList(_ l: EventListLayout) {
        guard let h = l.heading else { return }
        emit("<g id=\"event-list\" font-size=\"\(n(Self.labelFont))\" fill=\"#222\">")
        emit("<text x=\"\(n(h.x))\" y=\"\(n(h.y))\" font-size=\"12\" font-weight=\"bold\">Events at crowded spots (numbered on the map)</text>")
        for line in l.lines {
            if let number = line.number {
                emit("<text x=\"\(n(line.x + 20))\" y=\"\(n(line.y))\" font-weight=\"bold\" text-anchor=\"end\">\(number)</text>")
            }
            if let e = line.event { emit(MapStyle.marker(e.type, x: line.x + 31, y: line.y - 4, r: 4.5, hollow: e.transit)) }
            emit("<text x=\"\(n(line.x + 42))\" y=\"\(n(line.y))\">\(SVGText.escape(line.text))</text>")
        }
        emit("</g>")
    }

    // MARK: Scale bar and north arrow

    /// The largest 1, 2 or 5 × 10ⁿ metres not above `target`.
    static func niceLength(_ target: Double) -> Double {
        guard target.isFinite, target > 0 else { return 1 }
        var p = 1.0
        while p * 10 <= target { p *= 10 }
        while p > target { p /= 10 }
        for m in [5.0, 2, 1] where m * p <= target { return m * p }
        return p
    }

    struct ScaleBar {
        var metres: Double
        var pixels: Double
        var x: Double
        var y: Double
        var box: Rect
    }

    func scaleBarGeometry(_ f: MapFrame) -> ScaleBar {
        let metres = Self.niceLength(f.area.w / f.scale / 5)
        let px = metres * f.scale
        let x = f.area.x + 18, y = f.area.maxY - 16
        let labelW = SVGText.width(SVGText.distanceLabel(metres), size: 12)
        let box = Rect(x: x - 10, y: y - 22, w: max(px, labelW) + 20, h: 32)
        return ScaleBar(metres: metres, pixels: px, x: x, y: y, box: box)
    }

    mutating func drawScaleBar(_ s: ScaleBar) {
        let b = s.box
        emit("<g id=\"scale\">")
        emit("<rect x=\"\(n(b.x))\" y=\"\(n(b.y))\" width=\"\(n(b.w))\" height=\"\(n(b.h))\" rx=\"3\" fill=\"#fff\" fill-opacity=\"0.85\"/>")
        emit("<rect id=\"scale-bar\" x=\"\(n(s.x))\" y=\"\(n(s.y))\" width=\"\(n(s.pixels, 2))\" height=\"6\" fill=\"#fff\" stroke=\"#222\" stroke-width=\"1\"/>")
        emit("<rect x=\"\(n(s.x))\" y=\"\(n(s.y))\" width=\"\(n(s.pixels / 2, 2))\" height=\"6\" fill=\"#222\"/>")
        emit("<text id=\"scale-label\" x=\"\(n(s.x + s.pixels / 2))\" y=\"\(n(s.y - 5))\" font-size=\"12\" text-anchor=\"middle\" fill=\"#222\">\(SVGText.distanceLabel(s.metres))</text>")
        emit("</g>")
    }

    func northArrowBox(_ f: MapFrame) -> Rect {
        Rect(x: f.area.maxX - 54, y: f.area.y + 6, w: 48, h: 48)
    }

    mutating func drawNorthArrow(_ b: Rect) {
        let cx = b.x + b.w / 2, cy = b.y + b.h / 2
        emit("<g id=\"north-arrow\">")
        emit("<circle cx=\"\(n(cx))\" cy=\"\(n(cy))\" r=\"23\" fill=\"#fff\" fill-opacity=\"0.85\" stroke=\"#999\" stroke-width=\"0.8\"/>")
        emit("<path d=\"M\(n(cx)) \(n(cy - 4))L\(n(cx + 7)) \(n(cy + 17))L\(n(cx)) \(n(cy + 12))L\(n(cx - 7)) \(n(cy + 17))Z\" fill=\"#222\"/>")
        emit("<text x=\"\(n(cx))\" y=\"\(n(cy - 7))\" font-size=\"13\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#222\">N</text>")
        emit("</g>")
    }

    // MARK: Legend

    enum LegendSymbol {
        case kind(RegionKind)
        case track, gap, start, end
        case event(RegionEvent.EventType)
        case transit
    }

    struct LegendItem {
        var symbol: LegendSymbol
        var text: String
    }

    func legendItems(hasGap: Bool, hasTrack: Bool) -> [LegendItem] {
        var items: [LegendItem] = RegionKind.allCases.map { LegendItem(symbol: .kind($0), text: MapStyle.kind($0).title) }
        items.append(LegendItem(symbol: .track, text: "Track (arrows: direction)"))
        if hasGap { items.append(LegendItem(symbol: .gap, text: "GPS gap")) }
        if hasTrack {
            items.append(LegendItem(symbol: .start, text: "Start"))
            items.append(LegendItem(symbol: .end, text: "End"))
        }
        for t in MapStyle.eventOrder where map.events.contains(where: { $0.type == t }) {
            items.append(LegendItem(symbol: .event(t), text: t.rawValue))
        }
        if map.events.contains(where: \.transit) { items.append(LegendItem(symbol: .transit, text: "hollow: transit (between fixes)")) }
        return items
    }

    struct LegendLayout {
        var placed: [(LegendItem, Double, Double)]
        var top: Double
        var bottom: Double
    }

    func layoutLegend(_ items: [LegendItem], top: Double) -> LegendLayout {
        let rowH = 22.0
        var x = 12.0, y = top
        var placed: [(LegendItem, Double, Double)] = []
        for item in items {
            let w = 30 + SVGText.width(item.text, size: 12) + 18
            if x + w > map.width - 12, x > 12 { x = 12; y += rowH }
            placed.append((item, x, y))
            x += w
        }
        return LegendLayout(placed: placed, top: top, bottom: y + rowH)
    }

    mutating func drawLegend(_ l: LegendLayout) {
        emit("<g id=\"legend\" font-size=\"12\" fill=\"#222\">")
        for (item, x, y) in l.placed {
            let cy = y + 11
            switch item.symbol {
            case .kind(let k):
                let st = MapStyle.kind(k)
                emit("<rect x=\"\(n(x))\" y=\"\(n(cy - 7))\" width=\"24\" height=\"14\" fill=\"\(st.fill)\" fill-opacity=\"\(MapStyle.fillOpacity)\" stroke=\"\(st.stroke)\" stroke-width=\"1.5\"/>")
            case .track:
                emit("<path d=\"M\(n(x)) \(n(cy))H\(n(x + 24))\" stroke=\"\(MapStyle.track)\" stroke-width=\"2.5\"/>")
                emit("<path d=\"M\(n(x + 8)) \(n(cy - 3.5))L\(n(x + 13.5)) \(n(cy))L\(n(x + 8)) \(n(cy + 3.5))\" fill=\"none\" stroke=\"\(MapStyle.track)\" stroke-width=\"1.6\"/>")
            case .gap:
                emit("<path d=\"M\(n(x)) \(n(cy))H\(n(x + 24))\" stroke=\"\(MapStyle.track)\" stroke-width=\"1.5\" stroke-dasharray=\"5 4\"/>")
            case .start:
                emit("<circle cx=\"\(n(x + 12))\" cy=\"\(n(cy))\" r=\"7\" fill=\"#fff\" stroke=\"\(MapStyle.track)\" stroke-width=\"2\"/><text x=\"\(n(x + 12))\" y=\"\(n(cy + 3.5))\" font-size=\"10\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"\(MapStyle.track)\">S</text>")
            case .end:
                emit("<circle cx=\"\(n(x + 12))\" cy=\"\(n(cy))\" r=\"7\" fill=\"\(MapStyle.track)\"/><text x=\"\(n(x + 12))\" y=\"\(n(cy + 3.5))\" font-size=\"10\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#fff\">E</text>")
            case .event(let t):
                emit(MapStyle.marker(t, x: x + 12, y: cy, r: 6, hollow: false))
            case .transit:
                emit("<circle cx=\"\(n(x + 12))\" cy=\"\(n(cy))\" r=\"5\" fill=\"#fff\" stroke=\"#555\" stroke-width=\"1.8\"/>")
            }
            emit("<text x=\"\(n(x + 30))\" y=\"\(n(cy + 4))\">\(SVGText.escape(item.text))</text>")
        }
        emit("</g>")
    }
}
