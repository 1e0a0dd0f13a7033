import Geo
import JSON

/// The crew: the other boards and OwnTracks phones whose last location a board saw on the
/// broker (`owntracks/<user>/<device>`), for its web map. Pure: the bridge hands each message
/// over with when it came; `reply` writes `CREW`.
///
/// Anything on the broker may publish there, so every message is checked: the topic is exactly
/// three levels, each 1 to 64 bytes of printable text; the payload at most `maxPayload` bytes
/// of JSON with `_type: location`, `lat` and `lon` in range and `tst` a plausible time, not older
/// than the member's kept one; `acc`, `vel`, `cog` and `tid` are kept only when sane. At most
/// `capacity` members, `perUser` devices of one user: a new one beyond that pushes out the one
/// heard from longest ago (of that user). An empty payload (a retained location cleared)
/// removes its member.
public struct CrewBook: Sendable {
    public struct Member: Sendable, Equatable {
        public var user: String
        public var device: String
        public var tid: String?
        public var coordinate: Coordinate
        /// Metres; km/h; degrees.
        public var accuracy: Int?
        public var velocity: Int?
        public var course: Int?
        /// The member's own time of the position, seconds since 1970.
        public var tst: Int64
        /// When it came (monotonic ns).
        public var received: UInt64
        /// How old it already was when it came, by the board's receiver time (0 when the board
        /// had no time of its own then, or the member's clock was ahead).
        public var lagOnArrival: Double

        /// What a map shows: the user, and the device when it is not a board's ("treeline").
        public var name: String { device == CrewBook.boardDevice ? user : "\(user) \(device)" }
    }

    /// What happened to a message.
    public enum Outcome: Equatable, Sendable {
        case updated
        case removed
        /// Not a location (another `_type`, the board's own): nothing to do.
        case ignored
        /// Refused, and why (for the log).
        case refused(String)
    }

    public static let capacity = 200
    public static let perUser = 8
    public static let maxPayload = 4096
    static let maxLevel = 64
    /// The device level a Treeline board publishes under by default.
    public static let boardDevice = "treeline"
    /// No position from before 2001 or more than a day after the board's time.
    static let earliest: Int64 = 978_307_200

    /// The board's own location topic, never shown as crew.
    public let own: String?
    public private(set) var members: [String: Member] = [:]

    public init(own: String?) { self.own = own }

    /// One message from `owntracks/+/+`; `boardSeconds` is the board's time when it came (nil
    /// when it has none: the age then counts from arrival).
    public mutating func take(topic: String, payload: [UInt8], received: UInt64, boardSeconds: Int64?) -> Outcome {
        guard topic != own else { return .ignored }
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count == 3, levels[0] == "owntracks" else { return .refused("not an OwnTracks location topic") }
        let user = String(levels[1]), device = String(levels[2])
        guard Self.plain(user), Self.plain(device) else { return .refused("user and device must be 1 to 64 bytes of printable text") }
        if payload.isEmpty { return members.removeValue(forKey: topic) == nil ? .ignored : .removed }
        guard payload.count <= Self.maxPayload else { return .refused("\(payload.count) bytes: a location is at most \(Self.maxPayload)") }
        guard let doc = try? JSONDocument.parse(payload), doc.root["_type"]?.string != nil else { return .refused("not a JSON object with _type") }
        guard doc.root["_type"]?.string == "location" else { return .ignored }
        guard let lat = doc.root["lat"]?.number, let lon = doc.root["lon"]?.number, (-90...90).contains(lat), (-180...180).contains(lon) else {
            return .refused("lat and lon must be numbers within ±90 and ±180")
        }
        let ceiling = (boardSeconds ?? Int64(4_102_444_800)) + 86_400
        guard let t = doc.root["tst"]?.number, t.rounded() == t, t >= Double(Self.earliest), t <= Double(ceiling) else {
            return .refused("tst must be whole seconds since 1970, from 2001 to a day after the board's time")
        }
        let tst = Int64(t)
        var m = Member(user: user, device: device, tid: nil, coordinate: Coordinate(latitude: lat, longitude: lon), accuracy: Self.whole(doc.root["acc"], 0...1_000_000),
                       velocity: Self.whole(doc.root["vel"], 0...2_000), course: Self.whole(doc.root["cog"], 0...360).map { $0 % 360 }, tst: tst, received: received,
                       lagOnArrival: boardSeconds.map { Double(max(0, $0 - tst)) } ?? 0)
        if let tid = doc.root["tid"]?.string, (1...4).contains(tid.count), Self.plain(tid) { m.tid = tid }
        // A late or replayed message never moves a member back.
        if let kept = members[topic], kept.tst > tst { return .ignored }
        if members[topic] == nil {
            // One user's devices are at most `perUser`: a board (which may publish only under its
            // own name) cannot push the rest of the crew out with made-up devices.
            let mine = members.filter { $0.value.user == user }
            if mine.count >= Self.perUser, let oldest = mine.min(by: { $0.value.received < $1.value.received })?.key {
                members.removeValue(forKey: oldest)
            } else if members.count >= Self.capacity, let oldest = members.min(by: { $0.value.received < $1.value.received })?.key {
                members.removeValue(forKey: oldest)
            }
        }
        members[topic] = m
        return .updated
    }

    /// `{"class":"CREW","members":[…]}`, by name, each with its age (`age_s`) at `now`
    /// (monotonic ns).
    public func reply(now: UInt64) -> [UInt8] {
        let list = members.values.sorted { ($0.name, $0.user, $0.device) < ($1.name, $1.user, $1.device) }
        return JSONWriter.object { o in
            o.member("class", "CREW")
            o.member("members") { w in
                w.array(list) { w, m in
                    w.object { o in
                        o.member("name", m.name)
                        o.member("user", m.user)
                        o.member("device", m.device)
                        o.member("tid", ifPresent: m.tid)
                        o.member("lat", m.coordinate.latitude, decimals: 7)
                        o.member("lon", m.coordinate.longitude, decimals: 7)
                        if let a = m.accuracy { o.member("acc", a) }
                        if let v = m.velocity { o.member("vel", v) }
                        if let c = m.course { o.member("cog", c) }
                        o.member("tst", m.tst)
                        let since = now >= m.received ? Double(now - m.received) / 1e9 : 0
                        o.member("age_s", Int((m.lagOnArrival + since).rounded(.down)))
                    }
                }
            }
        }
    }

    /// 1 to 64 bytes, no control characters.
    static func plain(_ s: String) -> Bool {
        (1...maxLevel).contains(s.utf8.count) && !s.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// A whole number within `range` (a fraction is rounded), else nil.
    static func whole(_ v: JSONValue?, _ range: ClosedRange<Int>) -> Int? {
        guard let x = v?.number, x.isFinite, x >= Double(range.lowerBound), x <= Double(range.upperBound) else { return nil }
        return Int(x.rounded())
    }
}
