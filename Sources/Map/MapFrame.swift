import Geo

/// The map's projection and page layout.
///
/// Positions go through `LocalFrame` (a plane tangent to WGS84 at `frame.origin`, east/north in
/// metres, scale exact at the origin and within 10⁻⁵ over 25 km), then a uniform scale to pixels
/// with y flipped. One metre is `scale` pixels everywhere on the map, so a circle fence of radius
/// r is an SVG circle of radius r·scale and the scale bar is exact. North is up (the frame's
/// north axis at the origin; the meridians' convergence across a few km is far below a pixel).
struct MapFrame: Sendable {
    let frame: LocalFrame
    /// The visible area in metres.
    let view: MetreBox
    /// Pixels per metre.
    let scale: Double
    /// The map area on the page, pixels.
    let area: Rect

    func metres(_ c: Coordinate) -> Planar { frame.project(c) }

    func pixel(_ p: Planar) -> (x: Double, y: Double) {
        (area.x + (p.x - view.minX) * scale, area.y + (view.maxY - p.y) * scale)
    }

    func pixel(_ c: Coordinate) -> (x: Double, y: Double) { pixel(frame.project(c)) }

    /// Positions farther than this from the origin are not drawn: the tangent plane folds over
    /// beyond a quarter of the globe, and a field map never spans this much.
    static let farLimit = 1_000_000.0

    func isNear(_ c: Coordinate) -> Bool { frame.chord(ECEF(c)) <= Self.farLimit }

    /// The centre of the latitude/longitude box of `cs` (longitudes taken relative to the first
    /// one, so a set across the antimeridian gets its true centre).
    static func centre(of cs: [Coordinate]) -> Coordinate {
        guard let first = cs.first else { return Coordinate(latitude: 0, longitude: 0) }
        func wrap(_ d: Double) -> Double {
            var r = (d + 180).truncatingRemainder(dividingBy: 360)
            if r < 0 { r += 360 }
            return r - 180
        }
        var minLat = first.latitude, maxLat = first.latitude, minD = 0.0, maxD = 0.0
        for c in cs {
            minLat = min(minLat, c.latitude); maxLat = max(maxLat, c.latitude)
            let d = wrap(c.longitude - first.longitude)
            minD = min(minD, d); maxD = max(maxD, d)
        }
        return Coordinate(latitude: (minLat + maxLat) / 2, longitude: wrap(first.longitude + (minD + maxD) / 2))
    }

    /// Lays out a map of `width` pixels showing `extent` (metres around `frame`'s origin),
    /// with `top` pixels reserved above it for a title.
    ///
    /// The extent is widened to at least 120 m each way, given a margin of 6 % of its larger
    /// side (at least 15 m), and its height:width ratio is kept within 0.5…1.25 by widening the
    /// narrow side, so a straight walk still gives a usable picture.
    init(frame: LocalFrame, extent: MetreBox, width: Double, top: Double) {
        self.frame = frame
        var e = extent
        if e.isEmpty { e = MetreBox(minX: 0, minY: 0, maxX: 0, maxY: 0) }
        let cx = (e.minX + e.maxX) / 2, cy = (e.minY + e.maxY) / 2
        var hw = max(e.width / 2, 60), hh = max(e.height / 2, 60)
        let margin = max(15, 0.06 * 2 * max(hw, hh))
        hw += margin
        hh += margin
        if hh < 0.5 * hw { hh = 0.5 * hw }
        if hh > 1.25 * hw { hw = hh / 1.25 }
        view = MetreBox(minX: cx - hw, minY: cy - hh, maxX: cx + hw, maxY: cy + hh)
        scale = width / (2 * hw)
        area = Rect(x: 0, y: top, w: width, h: (2 * hh * scale * 10).rounded() / 10)
    }
}
