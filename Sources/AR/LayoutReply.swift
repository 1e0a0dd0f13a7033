import Geo
import JSON

/// The `layout` command's reply: the points laid out for a camera (`LAYOUT`), or the whole
/// circle stacked once for a view that turns (`PANORAMA`). Pure.
public enum LayoutReply {
    public static func json(observer c: Coordinate, camera: Camera, options: LayoutOptions, pois: [POI], kind: (Int) -> String,
                            panorama: Bool) -> [UInt8] {
        JSONWriter.object { o in
            o.member("class", panorama ? "PANORAMA" : "LAYOUT")
            o.member("lat", c.latitude, decimals: 7)
            o.member("lon", c.longitude, decimals: 7)
            if panorama {
                Panorama(camera: camera, options: options, observer: c, pois: pois).writeMembers(pois: pois, kind: kind, to: &o)
                return
            }
            let layout = StackingProjector(camera: camera, options: options).layout(observer: c, pois: pois)
            o.member("pois", layout.poiCount)
            o.member("visible", layout.visibleCount)
            o.member("hidden", layout.hiddenCount)
            o.member("items") { $0.array(layout.items) { w, item in w.raw { item.appendJSON(to: &$0, box: BoxSize(width: options.boxWidth, height: options.boxHeight)) } } }
        }
    }
}
