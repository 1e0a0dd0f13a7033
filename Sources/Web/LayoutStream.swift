import Geo
import Hummingbird
import NIOCore
import Server
import Store
import JSON
import Protocol

/// `GET /api/layout?screen=W,H&fov=H,V&…`: the AR view's layout, live, as Server-Sent Events.
///
/// The page says once what it draws on (screen, field of view, box, the projector's options);
/// the board answers with the *panorama* (`event: layout`, `{"class":"PANORAMA",…}`, the whole
/// circle stacked once) and sends it again only when it is out of date, as HDAugmentedReality's
/// `userDistanceFilter` does:
/// - `connect`: at once, from the last fix (`event: waiting` with the reason when there is
///   none yet; `fix` follows with the first one);
/// - `moved`: the board has moved `user_distance_m` (default 15) from where the last one was
///   laid out, by gpsd's used fixes;
/// - `regions`: a region was added, changed or removed (the regions are the POIs).
/// A turn of the phone needs nothing from the board: the page shifts the panorama by the
/// heading and the pitch (`Panorama.placed`).
///
/// It reads the socket's subscription (`EventStream`) for the positions and the region events,
/// so it ends like one: on shutdown, or when the reader lags (the browser comes back and gets
/// a fresh `connect`).
struct LayoutStream {
    /// A change of the regions: one of the user layer, or the files' (`base_layer`, one record).
    static let regionEvents: Set<String> = ["region_added", "region_updated", "region_removed", "base_layer"]

    let ask: Commands.LayoutAsk
    let delegate: any WebDelegate

    enum Reason: String { case connect, fix, moved, regions }

    /// The subscription it follows: live region events and positions, nothing from the journal.
    static var subscription: Subscribe { Subscribe(filter: EventFilter(types: regionEvents), since: nil, positions: true) }

    /// Where the last panorama was laid out, and the regions' change count it saw; nil before
    /// the first.
    private var laidOutAt: Coordinate?
    private var laidOutRegions: Int?

    init(ask: Commands.LayoutAsk, delegate: any WebDelegate) {
        self.ask = ask
        self.delegate = delegate
    }

    /// What to send for an item of the subscription (nil: nothing).
    mutating func frame(after item: EventStream.Item) async -> ByteBuffer? {
        switch item {
        case .position(let line):
            guard let c = Self.coordinate(ofPosition: line) else { return nil }
            guard let last = laidOutAt else { return await layout(at: c, .fix) }
            guard Geodesic.wgs84.distance(last, c) >= ask.userDistance else { return nil }
            return await layout(at: c, .moved)
        case .event:
            // One change (a reload, add_regions) journals an event per region: one layout has
            // them all.
            guard await delegate.regionsChangeCount() != laidOutRegions else { return nil }
            return await layout(at: laidOutAt, .regions)
        case .keepalive:
            return ByteBuffer(string: ": keepalive\n\n")
        case .line:
            return nil  // SUBSCRIBED; a lagged stream ends after its line
        }
    }

    /// The first frame: the panorama from the last fix, or why there is none yet.
    mutating func opening() async -> ByteBuffer {
        await layout(at: nil, .connect) ?? ByteBuffer()
    }

    /// `event: layout` from `at` (nil: the last fix); `event: waiting` with the message when
    /// the daemon cannot lay out (no fix yet).
    private mutating func layout(at: Coordinate?, _ reason: Reason) async -> ByteBuffer? {
        let regions = await delegate.regionsChangeCount()
        switch await Commands.panorama(ask, at: at, delegate: delegate) {
        case .success(var json):
            guard let c = Self.coordinate(ofPanorama: json) else { return nil }
            laidOutAt = c
            laidOutRegions = regions
            // `"reason":"…"` before the closing brace.
            json.removeLast()
            json.append(contentsOf: #","reason":"\#(reason.rawValue)"}"#.utf8)
            var out = ByteBuffer(string: "event: layout\ndata: ")
            out.writeBytes(json)
            out.writeString("\n\n")
            return out
        case .failure(let e):
            var out = ByteBuffer(string: "event: waiting\ndata: ")
            out.writeBytes(e.json)
            out.writeString("\n\n")
            return out
        }
    }

    static func coordinate(ofPosition line: ByteBuffer) -> Coordinate? {
        coordinate(of: Array(buffer: line))
    }

    static func coordinate(ofPanorama json: [UInt8]) -> Coordinate? {
        coordinate(of: json)
    }

    /// `lat` and `lon` of a POSITION or PANORAMA object.
    private static func coordinate(of bytes: [UInt8]) -> Coordinate? {
        guard let doc = try? JSONDocument.parse(bytes), let lat = doc.root["lat"]?.number, let lon = doc.root["lon"]?.number else { return nil }
        return Coordinate(latitude: lat, longitude: lon)
    }
}
