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
    /// `answer`, under an idempotency key (`Store.idempotencyKey`): a change whose key was
    /// answered before is not run again; that answer is given again.
    func answer(_ request: Command, key: String, recorded: @escaping @Sendable ([UInt8]) -> [UInt8]) async -> Result<KeyedAnswer, CommandError>
}

/// What a command with an idempotency key came to.
public enum KeyedAnswer: Sendable {
    /// It ran now: its answer (a refusal is not recorded, so the same key may try again).
    case ran(Result<[UInt8], CommandError>)
    /// Its key was answered before: what was recorded then, and nothing ran.
    case repeated([UInt8])
}

enum Commands {
    /// A `POST /api` body: one of the socket's commands, parsed by the socket's parser.
    /// `subscribe` is `GET /api/events` here.
    /// With an `Idempotency-Key` (`key`, checked by `idempotencyKey(_:)`), a change runs at most
    /// once: a repeat gets the first answer again.
    static func answer(_ body: [UInt8], key: String? = nil, delegate: any WebDelegate) async -> (refusedAsBad: Bool, Result<[UInt8], CommandError>) {
        let request: Command
        do {
            request = try Command.parse(body)
        } catch {
            return (true, .failure(error))
        }
        if case .subscribe = request {
            return (true, .failure(CommandError("over HTTP a subscription is GET /api/events?since=N (Server-Sent Events), with kinds=, types=, regions= and positions=1 as query parameters")))
        }
        guard let key else { return (false, await delegate.answer(request)) }
        return (false, await keyed(request, key: key, delegate: delegate))
    }

    /// A command under its key: the first answer, now or again.
    static func keyed(_ request: Command, key: String, delegate: any WebDelegate) async -> Result<[UInt8], CommandError> {
        switch await delegate.answer(request, key: key, recorded: { $0 }) {
        case .success(.ran(let answer)): answer
        case .success(.repeated(let earlier)): .success(earlier)
        case .failure(let e): .failure(e)
        }
    }

    /// The scope of the web app's keys among idempotency keys (`web:<key>`).
    static let keySource = "web"

    /// An `Idempotency-Key` header as a store key: nil without one; a refusal for one that cannot
    /// be a key (1 to 128 bytes of printable ASCII: the page sends a UUID).
    static func idempotencyKey(_ header: String?) -> Result<String?, CommandError> {
        guard let header else { return .success(nil) }
        switch Store.idempotencyKey(source: keySource, id: header) {
        case .success(let key): return .success(key)
        case .failure(let e): return .failure(CommandError("Idempotency-Key: " + e.message.replacingOccurrences(of: "\"id\"", with: "the key")))
        }
    }

    /// A photo's capture: the socket's `capture` with the stored file. The album and the note come
    /// from the query, not through the parser: checked here as the parser checks them.
    static func capture(album: String, note: String?, file: String, ago: Double? = nil, key: String? = nil,
                        delegate: any WebDelegate) async -> Result<KeyedAnswer, CommandError> {
        if let problem = captureProblem(album: album, note: note) { return .failure(problem) }
        let request = Command.capture(album: album, file: file, note: note, ago: ago)
        guard let key else { return .success(.ran(await delegate.answer(request))) }
        return await delegate.answer(request, key: key, recorded: { $0 })
    }

    /// What is wrong with a capture's album or note, as the parser would say it.
    static func captureProblem(album: String, note: String?) -> CommandError? {
        if let problem = PlainText.problem(album, field: "album") ?? note.flatMap({ PlainText.problem($0, field: "note") }) {
            return CommandError(problem)
        }
        if let note, note.utf8.count > Region.maxTextBytes { return CommandError("\"note\" is over \(Region.maxTextBytes) bytes") }
        return nil
    }

    static let subscribeParameters = ["since", "kinds", "types", "regions", "positions", "timing", "journal"]

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
            case "journal":
                JSONBytes.appendString(value, to: &out)
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
