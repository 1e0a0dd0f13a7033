import Geo
import JSON

extension LayoutItem {
    /// One JSON object (no newline): `id`, `distance` (m), `bearing` (°), `x` (null where a
    /// pinhole camera cannot see), `y`, `size` ([w, h], only when it is not `box`), `level`,
    /// `visible`, `near`, `hidden`.
    public func appendJSON(to out: inout [UInt8], box: BoxSize? = nil) {
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
        if let box, box != BoxSize(width: width, height: height) {
            out.append(contentsOf: ",\"size\":[".utf8)
            appendShortest(width, to: &out)
            out.append(UInt8(ascii: ","))
            appendShortest(height, to: &out)
            out.append(UInt8(ascii: "]"))
        }
        out.append(contentsOf: ",\"level\":".utf8)
        JSONBytes.appendInt(level, to: &out)
        out.append(contentsOf: visible ? ",\"visible\":true".utf8 : ",\"visible\":false".utf8)
        out.append(contentsOf: inNearView ? ",\"near\":true".utf8 : ",\"near\":false".utf8)
        out.append(contentsOf: hidden ? ",\"hidden\":true}".utf8 : ",\"hidden\":false}".utf8)
    }
}

extension Panorama {
    /// The panorama's members for a live view, in an object being written: `"screen"`, `"fov"`, `"box"`,
    /// `"projection"`, `"pixels_per_degree"`, `"pois"`, and `"items"`, each with `id`, `name`,
    /// `kind` (from `kind(poiIndex)`), `distance` (m), `bearing` (°), `y` (top edge after
    /// stacking, at pitch 0), `anchor_y` (before stacking), `size` ([w, h], only for a box of its
    /// own size), `level` and `hidden`. A view places
    /// an item at heading θ and pitch φ as `placed(heading:pitch:)` does.
    public func writeMembers(pois: [POI], kind: (Int) -> String, to o: inout JSONWriter) {
        func shortest(_ v: Double) -> (inout [UInt8]) -> Void { { appendShortest(v, to: &$0) } }
        func pair(_ key: String, _ a: Double, _ b: Double) {
            o.member(key) { $0.array { p in p.raw(shortest(a)); p.raw(shortest(b)) } }
        }
        o.member("projection", camera.projection.rawValue)
        pair("screen", camera.screenWidth, camera.screenHeight)
        pair("fov", camera.horizontalFOV, camera.verticalFOV)
        pair("box", options.boxWidth, options.boxHeight)
        o.member("pixels_per_degree", raw: shortest(pixelsPerDegree))
        o.member("pois", layout.poiCount)
        o.member("items") { w in
            w.array(layout.items) { w, item in
                w.object { i in
                    i.member("id", item.id)
                    i.member("name", pois[item.poi].name)
                    i.member("kind", kind(item.poi))
                    i.member("distance", item.distance, decimals: 2)
                    // Full precision: the view shifts these by the heading and must land where the
                    // projector would (the screen's layout prints 4 decimals, its x and y 2).
                    i.member("bearing", raw: shortest(item.bearing))
                    i.member("y", raw: shortest(item.y))
                    i.member("anchor_y", raw: shortest(item.anchorY))
                    if item.width != options.boxWidth || item.height != options.boxHeight {
                        i.member("size") { $0.array { p in p.raw(shortest(item.width)); p.raw(shortest(item.height)) } }
                    }
                    i.member("level", item.level)
                    i.member("hidden", item.hidden)
                }
            }
        }
    }
}

/// The shortest decimal that reads back as the same Double (Swift's own printing, never
/// locale-dependent); `null` when not finite.
func appendShortest(_ v: Double, to out: inout [UInt8]) {
    guard v.isFinite else { out.append(contentsOf: "null".utf8); return }
    out.append(contentsOf: v.description.utf8)
}
