import Geo
import JSON

extension LayoutItem {
    /// One JSON object (no newline): `id`, `distance` (m), `bearing` (°), `x` (null where a
    /// pinhole camera cannot see), `y`, `level`, `visible`, `near`, `hidden`.
    public func appendJSON(to out: inout [UInt8]) {
        out.append(contentsOf: "{\"id\":".utf8)
        JSONBytes.appendString(id, to: &out)
        out.append(contentsOf: ",\"distance\":".utf8)
        JSONBytes.appendFixed(distance, decimals: 2, to: &out)
        out.append(contentsOf: ",\"bearing\":".utf8)
        JSONBytes.appendFixed(bearing, decimals: 4, to: &out)
        out.append(contentsOf: ",\"x\":".utf8)
        if let x { JSONBytes.appendFixed(x, decimals: 2, to: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: ",\"y\":".utf8)
        JSONBytes.appendFixed(y, decimals: 2, to: &out)
        out.append(contentsOf: ",\"level\":".utf8)
        JSONBytes.appendInt(level, to: &out)
        out.append(contentsOf: visible ? ",\"visible\":true".utf8 : ",\"visible\":false".utf8)
        out.append(contentsOf: inNearView ? ",\"near\":true".utf8 : ",\"near\":false".utf8)
        out.append(contentsOf: hidden ? ",\"hidden\":true}".utf8 : ",\"hidden\":false}".utf8)
    }
}

extension Panorama {
    /// The panorama's members for a live view (no braces): `"screen"`, `"fov"`, `"box"`,
    /// `"projection"`, `"pixels_per_degree"`, `"pois"`, and `"items"`, each with `id`, `name`,
    /// `kind` (from `kind(poiIndex)`), `distance` (m), `bearing` (°), `y` (top edge after
    /// stacking, at pitch 0), `anchor_y` (before stacking), `level` and `hidden`. A view places
    /// an item at heading θ and pitch φ as `placed(heading:pitch:)` does.
    public func appendMembers(pois: [POI], kind: (Int) -> String, to out: inout [UInt8]) {
        func pair(_ key: String, _ a: Double, _ b: Double) {
            out.append(contentsOf: ",\"\(key)\":[".utf8)
            appendShortest(a, to: &out)
            out.append(UInt8(ascii: ","))
            appendShortest(b, to: &out)
            out.append(UInt8(ascii: "]"))
        }
        out.append(contentsOf: "\"projection\":\"\(camera.projection.rawValue)\"".utf8)
        pair("screen", camera.screenWidth, camera.screenHeight)
        pair("fov", camera.horizontalFOV, camera.verticalFOV)
        pair("box", options.boxWidth, options.boxHeight)
        out.append(contentsOf: ",\"pixels_per_degree\":".utf8)
        appendShortest(pixelsPerDegree, to: &out)
        out.append(contentsOf: ",\"pois\":\(layout.poiCount),\"items\":[".utf8)
        for (k, item) in layout.items.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "{\"id\":".utf8)
            JSONBytes.appendString(item.id, to: &out)
            out.append(contentsOf: ",\"name\":".utf8)
            JSONBytes.appendString(pois[item.poi].name, to: &out)
            out.append(contentsOf: ",\"kind\":".utf8)
            JSONBytes.appendString(kind(item.poi), to: &out)
            out.append(contentsOf: ",\"distance\":".utf8)
            JSONBytes.appendFixed(item.distance, decimals: 2, to: &out)
            // Full precision: the view shifts these by the heading and must land where the
            // projector would (the screen's layout prints 4 decimals, its x and y 2).
            out.append(contentsOf: ",\"bearing\":".utf8)
            appendShortest(item.bearing, to: &out)
            out.append(contentsOf: ",\"y\":".utf8)
            appendShortest(item.y, to: &out)
            out.append(contentsOf: ",\"anchor_y\":".utf8)
            appendShortest(item.anchorY, to: &out)
            out.append(contentsOf: ",\"level\":".utf8)
            JSONBytes.appendInt(item.level, to: &out)
            out.append(contentsOf: item.hidden ? ",\"hidden\":true}".utf8 : ",\"hidden\":false}".utf8)
        }
        out.append(UInt8(ascii: "]"))
    }
}

/// The shortest decimal that reads back as the same Double (Swift's own printing, never
/// locale-dependent); `null` when not finite.
func appendShortest(_ v: Double, to out: inout [UInt8]) {
    guard v.isFinite else { out.append(contentsOf: "null".utf8); return }
    out.append(contentsOf: v.description.utf8)
}
