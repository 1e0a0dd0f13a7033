import Geo
import JSON

/// OwnTracks' JSON payloads (owntracks.org/booklet/tech/json), so that OwnTracks Recorder and
/// Home Assistant's OwnTracks integration take a board as a device with its zones. Pure: each
/// function writes one payload; the bridge decides when.
///
/// Types as the documentation gives them: `tst`, `wtst`, `acc`, `alt`, `vel` (km/h), `cog`, `rad`
/// integers; `lat`, `lon` numbers; `tid` a string of one or two characters. `acc` is always
/// there and at least 1 (Home Assistant drops a location without an accuracy above 0).
public enum OwnTracks {
    /// A position as OwnTracks wants it.
    public struct Position: Sendable {
        public var time: UTCTime
        public var coordinate: Coordinate
        /// Horizontal error, metres.
        public var accuracy: Double
        public var altitude: Double?
        /// Metres per second.
        public var speed: Double?
        /// Degrees from true north.
        public var course: Double?

        public init(time: UTCTime, coordinate: Coordinate, accuracy: Double, altitude: Double? = nil, speed: Double? = nil, course: Double? = nil) {
            self.time = time
            self.coordinate = coordinate
            self.accuracy = accuracy
            self.altitude = altitude
            self.speed = speed
            self.course = course
        }
    }

    /// A region as a waypoint: a circle with its centre, radius, name and id.
    public struct Waypoint: Sendable {
        public var id: String
        public var name: String
        public var center: Coordinate
        public var radius: Double
        /// When it was made (OwnTracks identifies a waypoint by it).
        public var created: UTCTime

        public init(id: String, name: String, center: Coordinate, radius: Double, created: UTCTime) {
            self.id = id
            self.name = name
            self.center = center
            self.radius = radius
            self.created = created
        }
    }

    /// `_type: location`, with the regions the board is in (`inregions` names, `inrids` ids).
    public static func location(_ p: Position, tid: String, inside: [(id: String, name: String)], trigger: String = "t") -> [UInt8] {
        var out: [UInt8] = Array(#"{"_type":"location","tid":"#.utf8)
        JSONBytes.appendString(tid, to: &out)
        out.append(contentsOf: #","tst":\#(seconds(p.time)),"lat":"#.utf8)
        JSONBytes.appendFixed(p.coordinate.latitude, decimals: 7, to: &out)
        out.append(contentsOf: #","lon":"#.utf8)
        JSONBytes.appendFixed(p.coordinate.longitude, decimals: 7, to: &out)
        out.append(contentsOf: #","acc":\#(accuracy(p.accuracy))"#.utf8)
        if let a = p.altitude, a.isFinite { out.append(contentsOf: #","alt":\#(Int(a.rounded()))"#.utf8) }
        if let v = p.speed, v.isFinite, v >= 0 { out.append(contentsOf: #","vel":\#(Int((v * 3.6).rounded()))"#.utf8) }
        if let c = p.course, c.isFinite { out.append(contentsOf: #","cog":\#(Int(c.rounded()) % 360)"#.utf8) }
        out.append(contentsOf: #","t":"#.utf8)
        JSONBytes.appendString(trigger, to: &out)
        out.append(contentsOf: #","inregions":["#.utf8)
        for (k, r) in inside.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            JSONBytes.appendString(r.name, to: &out)
        }
        out.append(contentsOf: #"],"inrids":["#.utf8)
        for (k, r) in inside.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            JSONBytes.appendString(r.id, to: &out)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }

    /// `_type: transition`: `enter` or `leave` a region (`t: c`, a circular region's trigger).
    public static func transition(entering: Bool, region: (id: String, name: String), created: UTCTime, at p: Position, tid: String) -> [UInt8] {
        var out: [UInt8] = Array(#"{"_type":"transition","event":"\#(entering ? "enter" : "leave")","desc":"#.utf8)
        JSONBytes.appendString(region.name, to: &out)
        out.append(contentsOf: #","rid":"#.utf8)
        JSONBytes.appendString(region.id, to: &out)
        out.append(contentsOf: #","tst":\#(seconds(p.time)),"wtst":\#(seconds(created)),"lat":"#.utf8)
        JSONBytes.appendFixed(p.coordinate.latitude, decimals: 7, to: &out)
        out.append(contentsOf: #","lon":"#.utf8)
        JSONBytes.appendFixed(p.coordinate.longitude, decimals: 7, to: &out)
        out.append(contentsOf: #","acc":\#(accuracy(p.accuracy)),"t":"c","tid":"#.utf8)
        JSONBytes.appendString(tid, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `_type: waypoints`: the circle regions, each a `_type: waypoint`.
    public static func waypoints(_ list: [Waypoint]) -> [UInt8] {
        var out: [UInt8] = Array(#"{"_type":"waypoints","waypoints":["#.utf8)
        for (k, w) in list.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"_type":"waypoint","desc":"#.utf8)
            JSONBytes.appendString(w.name, to: &out)
            out.append(contentsOf: #","lat":"#.utf8)
            JSONBytes.appendFixed(w.center.latitude, decimals: 7, to: &out)
            out.append(contentsOf: #","lon":"#.utf8)
            JSONBytes.appendFixed(w.center.longitude, decimals: 7, to: &out)
            out.append(contentsOf: #","rad":\#(max(1, Int(w.radius.rounded()))),"tst":\#(seconds(w.created)),"rid":"#.utf8)
            JSONBytes.appendString(w.id, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }

    /// Whole seconds since 1970, as OwnTracks' timestamps.
    static func seconds(_ t: UTCTime) -> Int64 { t.nanoseconds / UTCTime.nanosPerSecond }

    /// Metres, rounded up, at least 1.
    static func accuracy(_ metres: Double) -> Int { metres.isFinite ? max(1, Int(metres.rounded(.up))) : 1 }
}
