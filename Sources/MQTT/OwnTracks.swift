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
        JSONWriter.object { o in
            o.member("_type", "location")
            o.member("tid", tid)
            o.member("tst", seconds(p.time))
            o.member("lat", p.coordinate.latitude, decimals: 7)
            o.member("lon", p.coordinate.longitude, decimals: 7)
            o.member("acc", accuracy(p.accuracy))
            if let a = p.altitude, a.isFinite { o.member("alt", Int(a.rounded())) }
            if let v = p.speed, v.isFinite, v >= 0 { o.member("vel", Int((v * 3.6).rounded())) }
            if let c = p.course, c.isFinite { o.member("cog", Int(c.rounded()) % 360) }
            o.member("t", trigger)
            o.member("inregions") { $0.array(inside) { $0.value($1.name) } }
            o.member("inrids") { $0.array(inside) { $0.value($1.id) } }
        }
    }

    /// `_type: transition`: `enter` or `leave` a region (`t: c`, a circular region's trigger).
    public static func transition(entering: Bool, region: (id: String, name: String), created: UTCTime, at p: Position, tid: String) -> [UInt8] {
        JSONWriter.object { o in
            o.member("_type", "transition")
            o.member("event", entering ? "enter" : "leave")
            o.member("desc", region.name)
            o.member("rid", region.id)
            o.member("tst", seconds(p.time))
            o.member("wtst", seconds(created))
            o.member("lat", p.coordinate.latitude, decimals: 7)
            o.member("lon", p.coordinate.longitude, decimals: 7)
            o.member("acc", accuracy(p.accuracy))
            o.member("t", "c")
            o.member("tid", tid)
        }
    }

    /// `_type: waypoints`: the circle regions, each a `_type: waypoint`.
    public static func waypoints(_ list: [Waypoint]) -> [UInt8] {
        JSONWriter.object { o in
            o.member("_type", "waypoints")
            o.member("waypoints") { w in
                w.array(list) { w, point in
                    w.object { o in
                        o.member("_type", "waypoint")
                        o.member("desc", point.name)
                        o.member("lat", point.center.latitude, decimals: 7)
                        o.member("lon", point.center.longitude, decimals: 7)
                        o.member("rad", max(1, Int(point.radius.rounded())))
                        o.member("tst", seconds(point.created))
                        o.member("rid", point.id)
                    }
                }
            }
        }
    }

    /// A tracker id for `user` (the board's name): its first and last letter or digit
    /// ("board-7" → "b7"), else its first character.
    public static func defaultTID(_ user: String) -> String {
        let alnum = user.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        guard let first = alnum.first else { return String(user.prefix(1)) }
        return alnum.count == 1 ? String(first) : String([first, alnum.last!])
    }

    /// Whole seconds since 1970, as OwnTracks' timestamps.
    static func seconds(_ t: UTCTime) -> Int64 { t.nanoseconds / UTCTime.nanosPerSecond }

    /// Metres, rounded up, at least 1.
    static func accuracy(_ metres: Double) -> Int { metres.isFinite ? max(1, Int(metres.rounded(.up))) : 1 }
}
