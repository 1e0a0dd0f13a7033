import AR
import Geo
import Server
import Store
import JSON
import Regions
import Protocol

/// What HTTP asks of the daemon beyond the socket's commands.
public enum GeoJSONLayer: Sendable {
    case regions, trees, track
}

public protocol WebDelegate: ServerDelegate {
    /// A layer as a GeoJSON FeatureCollection (the track: a Feature); nil when there is none
    /// (no track recorded yet).
    func geoJSON(_ layer: GeoJSONLayer) async -> Result<[UInt8]?, CommandError>
    /// A number that changes whenever the regions in force change (one change may journal many
    /// region events, e.g. `add_regions`).
    func regionsChangeCount() async -> Int
}

enum Commands {
    /// A `POST /api` body: one of the socket's commands, parsed by the socket's parser.
    /// `subscribe` is `GET /api/events` here.
    static func answer(_ body: [UInt8], delegate: any WebDelegate) async -> (refusedAsBad: Bool, Result<[UInt8], CommandError>) {
        let request: Command
        do {
            request = try Command.parse(body)
        } catch {
            return (true, .failure(error))
        }
        if case .subscribe = request {
            return (true, .failure(CommandError("over HTTP a subscription is GET /api/events?since=N (Server-Sent Events), with kinds=, types=, regions= and positions=1 as query parameters")))
        }
        return (false, await delegate.answer(request))
    }

    /// A photo's capture: the socket's `capture` with the stored file. The album and the note come
    /// from the query, not through the parser: checked here as the parser checks them.
    static func capture(album: String, note: String?, file: String, delegate: any WebDelegate) async -> Result<[UInt8], CommandError> {
        if let problem = PlainText.problem(album, field: "album") ?? note.flatMap({ PlainText.problem($0, field: "note") }) {
            return .failure(CommandError(problem))
        }
        if let note, note.utf8.count > Region.maxTextBytes { return .failure(CommandError("\"note\" is over \(Region.maxTextBytes) bytes")) }
        return await delegate.answer(.capture(album: album, file: file, note: note))
    }

    static let subscribeParameters = ["since", "kinds", "types", "regions", "positions", "timing"]

    /// `GET /api/events?…`'s query as the socket's `subscribe` object, checked by the same
    /// parser (so the same messages). `Last-Event-ID` (an EventSource resuming) wins over `since`.
    static func subscription(_ query: [(String, String)], lastEventID: String?) -> Result<Subscribe, CommandError> {
        var out: [UInt8] = Array(#"{"cmd":"subscribe""#.utf8)
        var seen: Set<String> = []
        var since = query.last(where: { $0.0 == "since" })?.1
        if let id = lastEventID, !id.isEmpty { since = id }
        for (key, value) in query {
            guard subscribeParameters.contains(key) else {
                return .failure(CommandError("unknown query parameter '\(TextExcerpt.short(key))': \(subscribeParameters.joined(separator: ", "))"))
            }
            guard seen.insert(key).inserted else { return .failure(CommandError("query parameter '\(key)' is given twice")) }
            out.append(UInt8(ascii: ","))
            JSONBytes.appendString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            switch key {
            case "since":
                literal(since ?? value, to: &out)
            case "positions", "timing":
                let v = value.lowercased()
                if ["1", "true", "yes", ""].contains(v) { out.append(contentsOf: "true".utf8) } else if ["0", "false", "no"].contains(v) {
                    out.append(contentsOf: "false".utf8)
                } else {
                    JSONBytes.appendString(value, to: &out)  // the parser says what is wrong
                }
            default:
                out.append(UInt8(ascii: "["))
                for (k, part) in value.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
                    if k > 0 { out.append(UInt8(ascii: ",")) }
                    JSONBytes.appendString(String(part), to: &out)
                }
                out.append(UInt8(ascii: "]"))
            }
        }
        if !seen.contains("since"), let since {
            out.append(contentsOf: #","since":"#.utf8)
            literal(since, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        do {
            guard case .subscribe(let s) = try Command.parse(out) else { return .failure(CommandError("not a subscription")) }
            return .success(s)
        } catch {
            return .failure(error)
        }
    }

    /// What `GET /api/layout` asks for: the screen, the camera and the projector's options,
    /// and how far the board moves before the panorama is laid out again.
    struct LayoutAsk: Sendable {
        var camera: Camera
        var options: LayoutOptions
        var userDistance: Double
    }

    /// The farthest the board may move before the AR view's panorama is laid out again, metres.
    static let maxUserDistance = 10_000.0

    static let layoutParameters = ["screen", "fov", "box", "sizes", "projection", "offset", "max_distance", "max_visible", "max_levels",
                                   "clamp", "user_distance_m"]

    /// `GET /api/layout?…`'s query as the socket's `layout` object with `"panorama":true`,
    /// checked by the same parser (so the same messages); pairs are written `360,740`, and
    /// `sizes` is the socket's JSON object (`{"id":[w,h],…}`, percent-encoded).
    static func layoutAsk(_ query: [(String, String)]) -> Result<LayoutAsk, CommandError> {
        var out: [UInt8] = Array(#"{"cmd":"layout","panorama":true"#.utf8)
        var seen: Set<String> = []
        var userDistance = 15.0
        for (key, value) in query {
            guard layoutParameters.contains(key) else {
                return .failure(CommandError("unknown query parameter '\(TextExcerpt.short(key))': \(layoutParameters.joined(separator: ", "))"))
            }
            guard seen.insert(key).inserted else { return .failure(CommandError("query parameter '\(key)' is given twice")) }
            if key == "user_distance_m" {
                guard let d = Double(value), (0...Self.maxUserDistance).contains(d) else {
                    return .failure(CommandError("\"user_distance_m\" must be 0 to \(Int(Self.maxUserDistance)) metres (how far the board moves before the layout is made again)"))
                }
                userDistance = d
                continue
            }
            out.append(UInt8(ascii: ","))
            JSONBytes.appendString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            switch key {
            case "screen", "fov", "box":
                out.append(UInt8(ascii: "["))
                for (k, part) in value.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
                    if k > 0 { out.append(UInt8(ascii: ",")) }
                    number(String(part), to: &out)
                }
                out.append(UInt8(ascii: "]"))
            case "max_distance", "max_visible", "max_levels":
                number(value, to: &out)
            case "sizes":
                // One JSON object, whole: a value that is not JSON is refused with the reader's
                // words; JSON that is not an object goes as a string, which the parser refuses
                // with what it must be.
                let bytes = Array(value.utf8)
                do {
                    if case .object = try JSONDocument.parse(bytes).root { out.append(contentsOf: bytes) } else {
                        JSONBytes.appendString(value, to: &out)
                    }
                } catch {
                    return .failure(CommandError("\"sizes\" is not JSON: \(error) (an object of box sizes by id, {\"id\":[width, height], …}, percent-encoded)"))
                }
            case "clamp":
                let v = value.lowercased()
                if ["1", "true", "yes", ""].contains(v) { out.append(contentsOf: "true".utf8) } else if ["0", "false", "no"].contains(v) {
                    out.append(contentsOf: "false".utf8)
                } else {
                    JSONBytes.appendString(value, to: &out)
                }
            default:
                JSONBytes.appendString(value, to: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
        do {
            guard case let .layout(camera, options, _, _) = try Command.parse(out) else { return .failure(CommandError("not a layout")) }
            return .success(LayoutAsk(camera: camera, options: options, userDistance: userDistance))
        } catch {
            return .failure(error)
        }
    }

    /// The panorama from `at` (nil: the last fix): `{"class":"PANORAMA",…}`.
    static func panorama(_ ask: LayoutAsk, at: Coordinate?, delegate: any WebDelegate) async -> Result<[UInt8], CommandError> {
        await delegate.answer(.layout(camera: ask.camera, options: ask.options, at: at, panorama: true))
    }

    /// A finite number as JSON, anything else as a string (the parser then names the problem).
    private static func number(_ text: String, to out: inout [UInt8]) {
        if let d = Double(text), d.isFinite { out.append(contentsOf: d.description.utf8) } else { JSONBytes.appendString(text, to: &out) }
    }

    /// Digits as a JSON number, anything else as a string (the parser then names the problem).
    private static func literal(_ text: String, to out: inout [UInt8]) {
        if !text.isEmpty, text.utf8.count <= 30, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            out.append(contentsOf: text.utf8)
        } else {
            JSONBytes.appendString(text, to: &out)
        }
    }
}
