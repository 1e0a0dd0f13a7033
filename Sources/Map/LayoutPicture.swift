#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AR
import Geo

/// The AR screen of a layout as one SVG document, at the screen's own pixel size: a sky and the
/// horizon, a compass strip along the top, every visible box with its name and distance, a thin
/// line from a lifted box down to where it stood before stacking, arrows at the screen's edges for
/// POIs in the near view but off screen, and a caption with the camera and the counts. Pure: the
/// same input gives the same text.
public struct LayoutPicture: Sendable {
    public var camera: Camera
    public var options: LayoutOptions
    public var layout: Layout
    public var pois: [POI]
    public var title: String?

    public init(camera: Camera, options: LayoutOptions, layout: Layout, pois: [POI], title: String? = nil) {
        self.camera = camera
        self.options = options
        self.layout = layout
        self.pois = pois
        self.title = title
    }

    static let margin = 14.0
    static let nameSize = 12.0
    static let detailSize = 11.0

    /// "85 m", "412 m", "1 km" (from 999.5 m), "1.2 km", "23 km".
    public static func distanceLabel(_ metres: Double) -> String {
        if metres.rounded() < 1000 { return SVGText.num(metres.rounded(), 0) + " m" }
        if metres < 10_000 { return SVGText.num(metres / 1000, 1) + " km" }
        return SVGText.num((metres / 1000).rounded(), 0) + " km"
    }

    /// `s` cut with an ellipsis to fit `width` pixels at `size` (bold text runs about 10% wider).
    static func fit(_ s: String, width: Double, size: Double, bold: Bool = false) -> String {
        let scale = bold ? 1.1 : 1.0
        if SVGText.width(s, size: size) * scale <= width { return s }
        var chars = Array(s)
        while !chars.isEmpty, SVGText.width(String(chars) + "…", size: size) * scale > width { chars.removeLast() }
        return chars.isEmpty ? "…" : String(chars) + "…"
    }

    /// The screen x of a direction `delta` degrees right of the heading (the box's centre), nil
    /// where the projection has none.
    func screenX(_ delta: Double) -> Double? {
        camera.horizontalOffset(delta: delta).map { camera.screenWidth / 2 + $0 }
    }

    public func render() -> String {
        let n = SVGText.num
        let screenW = camera.screenWidth, screenH = camera.screenHeight
        let m = Self.margin
        let titleHeight = title == nil ? 0.0 : 24
        let captionLines = caption()
        let captionHeight = 10 + Double(captionLines.count) * 16
        let width = screenW + 2 * m, height = titleHeight + m + screenH + captionHeight + m
        let ox = m, oy = titleHeight + m  // the screen's top-left corner on the page

        var out = ""
        func emit(_ s: String) { Self.emit(s, &out) }
        emit("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width, 1))\" height=\"\(n(height, 1))\" viewBox=\"0 0 \(n(width, 1)) \(n(height, 1))\" font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\">")
        emit("<defs><linearGradient id=\"sky\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\"><stop offset=\"0\" stop-color=\"#9cc3e6\"/><stop offset=\"1\" stop-color=\"#e4eef6\"/></linearGradient>")
        emit("<clipPath id=\"screen\"><rect x=\"0\" y=\"0\" width=\"\(n(screenW, 1))\" height=\"\(n(screenH, 1))\"/></clipPath></defs>")
        emit("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>")
        if let title {
            emit("<text x=\"\(n(m, 1))\" y=\"\(n(m + 6, 1))\" font-size=\"14\" font-weight=\"bold\" fill=\"#222\">\(SVGText.escape(Self.fit(title, width: screenW, size: 14)))</text>")
        }
        emit("<g id=\"screen-area\" transform=\"translate(\(n(ox, 1)) \(n(oy, 1)))\">")
        emit("<g clip-path=\"url(#screen)\">")

        sky(&out)
        compass(&out)
        let slivers = boxes(&out)
        offscreen(slivers: slivers, &out)
        emit("</g>")
        emit("<rect x=\"0\" y=\"0\" width=\"\(n(screenW, 1))\" height=\"\(n(screenH, 1))\" fill=\"none\" stroke=\"#222\" stroke-width=\"2\" rx=\"4\"/>")
        emit("</g>")

        for (k, line) in captionLines.enumerated() {
            emit("<text x=\"\(n(m, 1))\" y=\"\(n(oy + screenH + 20 + Double(k) * 16, 1))\" font-size=\"11\" fill=\"#333\">\(SVGText.escape(line))</text>")
        }
        emit("</svg>")
        return out
    }

    /// Sky above the horizon, ground below it, the horizon dashed.
    func sky(_ out: inout String) {
        let n = SVGText.num
        let screenW = camera.screenWidth, screenH = camera.screenHeight
        let horizon = screenH / 2 + camera.pitchOffset
        Self.emit("<rect x=\"0\" y=\"0\" width=\"\(n(screenW, 1))\" height=\"\(n(screenH, 1))\" fill=\"url(#sky)\"/>", &out)
        if horizon < screenH {
            let top = max(0, horizon)
            Self.emit("<rect id=\"ground\" x=\"0\" y=\"\(n(top, 1))\" width=\"\(n(screenW, 1))\" height=\"\(n(screenH - top, 1))\" fill=\"#c9d6b4\"/>", &out)
        }
        if horizon >= 0 && horizon <= screenH {
            Self.emit("<line x1=\"0\" y1=\"\(n(horizon, 1))\" x2=\"\(n(screenW, 1))\" y2=\"\(n(horizon, 1))\" stroke=\"#6b7a5a\" stroke-width=\"1\" stroke-dasharray=\"6 4\"/>", &out)
        }
    }

    /// The compass strip: ticks every 5°, labels every 30° (N, E, S, screenW by name).
    func compass(_ out: inout String) {
        let n = SVGText.num
        let screenW = camera.screenWidth
        Self.emit("<rect x=\"0\" y=\"0\" width=\"\(n(screenW, 1))\" height=\"22\" fill=\"#1d2733\" fill-opacity=\"0.72\"/>", &out)
        for step in 0..<72 {
            let bearing = Double(step * 5)
            let delta = StackingProjector.delta(bearing: bearing, heading: camera.heading)
            guard let x = screenX(delta), x >= 0, x <= screenW else { continue }
            let major = step % 6 == 0
            Self.emit("<line x1=\"\(n(x, 1))\" y1=\"\(major ? 14 : 17)\" x2=\"\(n(x, 1))\" y2=\"22\" stroke=\"#ffffff\" stroke-width=\"1\"/>", &out)
            if major, x >= 8, x <= screenW - 8 {
                let label = ["N", "30", "60", "E", "120", "150", "S", "210", "240", "screenW", "300", "330"][step / 6]
                Self.emit("<text x=\"\(n(x, 1))\" y=\"11\" font-size=\"10\" fill=\"#ffffff\" text-anchor=\"middle\">\(label)</text>", &out)
            }
        }
    }

    /// The visible boxes (and the lines down from lifted ones); returns the boxes too thin at the
    /// screen's edge for any text, which get an edge arrow instead.
    func boxes(_ out: inout String) -> Set<Int> {
        let n = SVGText.num
        let screenW = camera.screenWidth
        // Lifted boxes: a line from the box down to where it started, and a dot there.
        let visible = layout.items.filter { $0.visible }
        for item in visible where item.level > 0 {
            let w = item.width, h = item.height
            let cx = item.x! + w / 2
            Self.emit("<line x1=\"\(n(cx, 1))\" y1=\"\(n(item.y + h, 1))\" x2=\"\(n(cx, 1))\" y2=\"\(n(item.anchorY + h / 2, 1))\" stroke=\"#2b3a4a\" stroke-width=\"1\" stroke-opacity=\"0.55\"/>", &out)
            Self.emit("<circle cx=\"\(n(cx, 1))\" cy=\"\(n(item.anchorY + h / 2, 1))\" r=\"2.5\" fill=\"#2b3a4a\" fill-opacity=\"0.7\"/>", &out)
        }
        // The boxes: name on the first line, distance and level on the second. A box cut by the
        // screen's edge keeps its place; its text goes in the part on the screen, and when that
        // part is too thin for any text the box gets an edge arrow instead.
        var slivers: Set<Int> = []
        for (k, item) in layout.items.enumerated() where item.visible {
            let x = item.x!, y = item.y, w = item.width, h = item.height
            let textLeft = max(x + 6, 4), textRight = min(x + w - 3, screenW - 3)
            let room = textRight - textLeft
            let name = pois[item.poi].name
            // The distance, then the lifts if they fit too (the line down shows them as well).
            let distance = Self.distanceLabel(item.distance)
            let withLevel = distance + "  ↑\(item.level)"
            let detail = item.level > 0 && SVGText.width(withLevel, size: Self.detailSize) <= room ? withLevel : distance
            Self.emit("<g class=\"poi\" id=\"poi-\(SVGText.escape(item.id))\">", &out)
            Self.emit("<rect x=\"\(n(x + 0.5, 1))\" y=\"\(n(y + 0.5, 1))\" width=\"\(n(w - 1, 1))\" height=\"\(n(h - 1, 1))\" rx=\"5\" fill=\"#ffffff\" fill-opacity=\"0.93\" stroke=\"#1f4f99\" stroke-width=\"1.2\"/>", &out)
            if room < 24 {
                slivers.insert(k)
            } else if h >= 2 * Self.nameSize + 6 {
                let text = Self.fit(name, width: room, size: Self.nameSize, bold: true)
                Self.emit("<text x=\"\(n(textLeft, 1))\" y=\"\(n(y + h / 2 - 3, 1))\" font-size=\"\(n(Self.nameSize, 1))\" font-weight=\"bold\" fill=\"#14243a\">\(SVGText.escape(text))</text>", &out)
                Self.emit("<text x=\"\(n(textLeft, 1))\" y=\"\(n(y + h / 2 + Self.detailSize, 1))\" font-size=\"\(n(Self.detailSize, 1))\" fill=\"#3a4a5c\">\(SVGText.escape(Self.fit(detail, width: room, size: Self.detailSize)))</text>", &out)
            } else {
                let size = min(Self.nameSize, h - 4)
                let one = Self.fit(name + " " + Self.distanceLabel(item.distance), width: room, size: size)
                Self.emit("<text x=\"\(n(textLeft, 1))\" y=\"\(n(y + h / 2 + size / 3, 1))\" font-size=\"\(n(size, 1))\" fill=\"#14243a\">\(SVGText.escape(one))</text>", &out)
            }
            Self.emit("</g>", &out)
        }
        return slivers
    }

    /// Arrows for what is in the near view but off the screen's side (or a sliver).
    func offscreen(slivers: Set<Int>, _ out: inout String) {
        let n = SVGText.num
        let screenW = camera.screenWidth, screenH = camera.screenHeight
        // In the near view but off the screen's side: arrows stacked under the compass strip at
        // that edge, nearest the heading first, on a white label so that boxes do not hide them.
        for right in [false, true] {
            let side = layout.items.enumerated().filter { k, item in
                guard item.inNearView || slivers.contains(k), !item.hidden, let x = item.x else { return false }
                let w = item.width
                if item.visible && !slivers.contains(k) { return false }
                return right ? x + w / 2 >= screenW / 2 && (x >= screenW || slivers.contains(k)) : x + w / 2 < screenW / 2 && (x + w <= 0 || slivers.contains(k))
            }.map(\.element).sorted { abs($0.delta) < abs($1.delta) }
            let room = max(1, Int((screenH - 40) / 18))
            for (k, item) in side.prefix(room).enumerated() {
                let y = 36 + Double(k) * 18
                var label = Self.fit(pois[item.poi].name, width: screenW / 2 - 60, size: 10) + " " + Self.distanceLabel(item.distance)
                if k == room - 1 && side.count > room { label = "+\(side.count - room + 1) more" }
                let tw = SVGText.width(label, size: 10) + 8
                let ex = right ? screenW - 3 : 3.0
                let dir = right ? -1.0 : 1.0
                let bx = right ? ex - 12 - tw : ex + 12
                Self.emit("<g class=\"offscreen\">", &out)
                Self.emit("<rect x=\"\(n(bx, 1))\" y=\"\(n(y - 7.5, 1))\" width=\"\(n(tw, 1))\" height=\"15\" rx=\"3\" fill=\"#ffffff\" fill-opacity=\"0.9\"/>", &out)
                Self.emit("<path d=\"M\(n(ex, 1)) \(n(y, 1)) L\(n(ex + 10 * dir, 1)) \(n(y - 6, 1)) L\(n(ex + 10 * dir, 1)) \(n(y + 6, 1)) Z\" fill=\"#1f4f99\"/>", &out)
                Self.emit("<text x=\"\(n(bx + 4, 1))\" y=\"\(n(y + 3.5, 1))\" font-size=\"10\" fill=\"#14243a\">\(SVGText.escape(label))</text>", &out)
                Self.emit("</g>", &out)
            }
        }
    }

    static func emit(_ s: String, _ out: inout String) {
        out += s
        out += "\n"
    }

    /// What the picture does not show by itself: the camera and the counts.
    func caption() -> [String] {
        let n = SVGText.num
        let items = layout.items
        let onScreen = items.filter(\.visible).count
        let hidden = items.filter(\.hidden).count
        let near = items.filter { $0.inNearView && !$0.visible && !$0.hidden }.count
        let behind = items.filter { !$0.inNearView && !$0.hidden }.count
        let heading = (camera.heading.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360)
        var lines = ["heading \(n(heading, 1))°, pitch \(n(camera.pitch, 1))°, fov \(n(camera.horizontalFOV, 1))×\(n(camera.verticalFOV, 1))°, \(camera.projection.rawValue)"]
        lines.append("\(items.count) active of \(layout.poiCount) POIs: \(onScreen) on screen")
        var rest: [String] = []
        if near > 0 { rest.append("\(near) in the near view off screen (arrows)") }
        if behind > 0 { rest.append("\(behind) outside the near view") }
        if hidden > 0 { rest.append("\(hidden) hidden by the caps") }
        if !rest.isEmpty { lines.append(rest.joined(separator: ", ")) }
        lines.append("dashed: the horizon; ↑n: lifted n times, a line to where it stood")
        return lines
    }
}
