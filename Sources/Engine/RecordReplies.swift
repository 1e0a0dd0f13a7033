import Geo
import JSON
import Rules
import Store

/// The replies about records beside the journal (captures, trees, the track), written from what
/// the store read. Pure, and run beside the engine's actor.
enum RecordReplies {
    /// `{"class":"CAPTURE",…}`: recorded (`capture`), or not, with the distance to walk.
    static func capture(album: String, distance: Double, recorded: Capture?, outsideReason: String?) -> [UInt8] {
        JSONWriter.object { o in
            o.member("class", "CAPTURE")
            o.member("album", album)
            o.member("distance_m", distance, decimals: 1)
            if let c = recorded {
                o.member("recorded", true)
                o.member("capture") { capture(c, &$0) }
            } else {
                o.member("recorded", false)
                o.member("walk_m", -distance, decimals: 1)
                o.member("reason", ifPresent: outsideReason)
            }
        }
    }

    static func captures(_ list: [Capture]) -> [UInt8] {
        JSONWriter.object { o in
            o.member("class", "CAPTURES")
            o.member("captures") { $0.array(list) { w, c in capture(c, &w) } }
        }
    }

    static func capture(_ c: Capture, _ w: inout JSONWriter) {
        w.object { o in
            o.member("id", c.id)
            o.member("album", c.album)
            o.member("time", c.time.iso8601)
            o.member("lat", c.coordinate.latitude, decimals: 7)
            o.member("lon", c.coordinate.longitude, decimals: 7)
            o.member("error_m", c.error, decimals: 1)
            o.member("file", ifPresent: c.file)
            o.member("note", ifPresent: c.note)
        }
    }

    static func trees(_ list: [PlantedTree]) -> [UInt8] {
        JSONWriter.object { o in
            o.member("class", "TREES")
            o.member("trees") { $0.array(list) { w, t in tree(t, &w) } }
        }
    }

    static func treeRemoved(_ t: PlantedTree) -> [UInt8] {
        JSONWriter.object { o in
            o.member("class", "TREE_REMOVED")
            o.member("tree") { tree(t, &$0) }
        }
    }

    static func tree(_ t: PlantedTree, _ w: inout JSONWriter) {
        w.object { o in
            t.writeMembers(to: &o)
            o.member("lat", t.coordinate.latitude, decimals: 7)
            o.member("lon", t.coordinate.longitude, decimals: 7)
        }
    }

    static func track(_ points: [TrackPoint]) -> [UInt8] {
        JSONWriter.object(reserving: points.count * 80) { o in
            o.member("class", "TRACK")
            o.member("points") { $0.array(points) { w, p in w.raw { p.appendJSON(to: &$0) } } }
        }
    }
}
