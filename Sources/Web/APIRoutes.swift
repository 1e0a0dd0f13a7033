import Crypto
import Foundation
import Geo
import Hummingbird
import HTTPTypes
import Logging
import NIOConcurrencyHelpers
import Server

/// The event streams open now, closed together at shutdown.
final class OpenStreams: Sendable {
    private let streams = NIOLockedValueBox<[ObjectIdentifier: EventStream]>([:])

    func add(_ s: EventStream) { streams.withLockedValue { $0[ObjectIdentifier(s)] = s } }
    func remove(_ s: EventStream) { _ = streams.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(s)) } }
    func closeAll() { for s in streams.withLockedValue({ Array($0.values) }) { s.close() } }
}

/// An event stream that closes when its response is done with it, or dropped unsent.
final class StreamOwner: Sendable {
    let stream: EventStream
    let streams: OpenStreams

    init(_ stream: EventStream, _ streams: OpenStreams) {
        self.stream = stream
        self.streams = streams
    }

    func close() {
        stream.close()
        streams.remove(stream)
    }

    deinit { close() }
}

/// How many photos may be on their way in at once: each is held whole in memory (up to
/// `max_photo_mib`) until it is written.
final class UploadSlots: Sendable {
    static let count = 2
    private let used = NIOLockedValueBox(0)

    func take() -> Bool { used.withLockedValue { n in n < Self.count ? { n += 1; return true }() : false } }
    func give() { used.withLockedValue { $0 -= 1 } }
}

/// `/api`: the socket's protocol over HTTP, and what only HTTP needs.
struct APIRoutes {
    let settings: WebSettings
    let delegate: any WebDelegate
    let hub: Hub
    let streams: OpenStreams
    let logger: Logger
    let uploads = UploadSlots()

    func add(to router: Router<BasicRequestContext>) {
        router.post("/api") { request, _ in try await command(request) }
        router.get("/api/events") { request, _ in await events(request) }
        router.get("/api/layout") { request, _ in await layout(request) }
        router.get("/api/regions.geojson") { _, _ in await geoJSON(.regions) }
        router.get("/api/trees.geojson") { _, _ in await geoJSON(.trees) }
        router.get("/api/track.geojson") { _, _ in await geoJSON(.track) }
        router.post("/api/captures") { request, _ in try await photoCapture(request) }
        router.get("/api/web.json") { _, _ in webSettings() }
    }

    static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok, type: String = "application/json") -> Response {
        Response(status: status, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func error(_ e: RequestError, status: HTTPResponse.Status) -> Response {
        json(e.json, status: status)
    }

    /// `POST /api`: exactly the socket's answer. A request that does not parse is 400; one
    /// the daemon refuses (no such region, outside the album, …) is 422; both with the socket's message.
    func command(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: settings.maxBodyBytes)
        let (bad, result) = await Commands.answer(Array(buffer: body), delegate: delegate)
        switch result {
        case .success(let json): return Self.json(json)
        case .failure(let e): return Self.error(e, status: bad ? .badRequest : .unprocessableContent)
        }
    }

    /// `GET /api/events`: the subscription as Server-Sent Events. Each journal event carries
    /// its seq as `id:`, so a browser's EventSource resumes after the last one by itself
    /// (`Last-Event-ID`); positions are `event: position` without an id.
    func events(_ request: Request) async -> Response {
        let query = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
        let subscription: Subscribe
        switch Commands.subscription(query, lastEventID: request.headers[HTTPField.Name("Last-Event-ID")!]) {
        case .success(let s): subscription = s
        case .failure(let e): return Self.error(e, status: .badRequest)
        }
        return await serverSentEvents(subscription) { stream, writer in
            while let item = await stream.next() {
                try await writer.write(ServerSentEvents.frame(item))
            }
        }
    }

    /// A subscription as a Server-Sent Events response whose body `write` writes from it. The
    /// subscription is refused with 400 and the socket's message; it is closed when the body
    /// ends, or, if Hummingbird never runs the body (the client went away before the head was
    /// written), when its owner is released.
    func serverSentEvents(_ subscription: Subscribe,
                          _ write: @escaping @Sendable (EventStream, inout any ResponseBodyWriter) async throws -> Void) async -> Response {
        let stream: EventStream
        switch await EventStream.open(subscription, delegate: delegate, hub: hub, queueLimit: settings.queueLimit) {
        case .success(let s): stream = s
        case .failure(let e): return Self.error(e, status: .badRequest)
        }
        streams.add(stream)
        let owner = StreamOwner(stream, streams)
        return Response(status: .ok, headers: [.contentType: "text/event-stream", HTTPField.Name("X-Accel-Buffering")!: "no"],
                        body: ResponseBody { writer in
            defer { owner.close() }
            try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
            try await write(owner.stream, &writer)
            try await writer.finish(nil)
        })
    }

    /// `GET /api/layout`: the AR view's panorama, live (see `LayoutStream`).
    func layout(_ request: Request) async -> Response {
        let query = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
        let ask: Commands.LayoutAsk
        switch Commands.layoutAsk(query) {
        case .success(let a): ask = a
        case .failure(let e): return Self.error(e, status: .badRequest)
        }
        return await serverSentEvents(LayoutStream.subscription) { [delegate] stream, writer in
            var feed = LayoutStream(ask: ask, delegate: delegate)
            try await writer.write(await feed.opening())
            while let item = await stream.next() {
                if let frame = await feed.frame(after: item) { try await writer.write(frame) }
            }
        }
    }

    func geoJSON(_ layer: GeoJSONLayer) async -> Response {
        switch await delegate.geoJSON(layer) {
        case .success(let bytes?): return Self.json(bytes, type: "application/geo+json")
        case .success(nil): return Self.error(RequestError("no track is recorded yet: it grows as the board moves with a fix"), status: .notFound)
        case .failure(let e): return Self.error(e, status: .internalServerError)
        }
    }

    func webSettings() -> Response {
        var out: [UInt8] = Array(#"{"tiles":"#.utf8)
        if let t = settings.tiles { JSONBytes.appendString(t, to: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: #","attribution":"#.utf8)
        if let a = settings.tilesAttribution { JSONBytes.appendString(a, to: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: #","version":"#.utf8)
        JSONBytes.appendString(delegate.version, to: &out)
        out.append(UInt8(ascii: "}"))
        return Self.json(out)
    }

    /// `POST /api/captures?album=ID&note=TEXT` with a photo as the body: kept in the photos
    /// folder and recorded as the socket's `capture` with its file. Refused (outside the album,
    /// no fresh fix): the photo is not kept.
    func photoCapture(_ request: Request) async throws -> Response {
        guard let album = request.uri.queryParameters.get("album"), !album.isEmpty else {
            return Self.error(RequestError("missing album=: the album's id (POST /api/captures?album=ID&note=TEXT with the photo as the body)"), status: .badRequest)
        }
        let note = request.uri.queryParameters.get("note").flatMap { $0.isEmpty ? nil : $0 }
        guard uploads.take() else {
            var busy = Self.error(RequestError("\(UploadSlots.count) photos are being received already: send this one again in a moment"), status: .serviceUnavailable)
            busy.headers[.retryAfter] = "2"
            return busy
        }
        defer { uploads.give() }
        let body = Array(buffer: try await request.body.collect(upTo: settings.maxPhotoBytes))
        guard let ext = Photo.fileExtension(of: body) else {
            return Self.error(RequestError("the body is not a JPEG, PNG, WebP, HEIC or GIF picture (\(body.count) bytes)"), status: .unsupportedMediaType)
        }
        let name = Photo.name(of: body, ext: ext)
        let path = settings.photos + "/" + name
        do {
            try FileManager.default.createDirectory(atPath: settings.photos, withIntermediateDirectories: true)
            try Data(body).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            logger.error("cannot keep a photo in \(settings.photos): \(error)")
            return Self.error(RequestError("the photo could not be kept on the board (see treelined's log)"), status: .internalServerError)
        }
        switch await Commands.capture(album: album, note: note, file: path, delegate: delegate) {
        case .success(let json):
            // Outside the album the answer says so (`"recorded":false`, how far to walk): the
            // photo is not kept then either.
            if json.firstRange(of: Array(#""recorded":false"#.utf8)) != nil { try? FileManager.default.removeItem(atPath: path) }
            return Self.json(json)
        case .failure(let e):
            try? FileManager.default.removeItem(atPath: path)
            return Self.error(e, status: .unprocessableContent)
        }
    }
}

/// A photo's kind by its first bytes, and its file name: when and a hash of its bytes.
enum Photo {
    static func fileExtension(of b: [UInt8]) -> String? {
        if b.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpg" }
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "png" }
        if b.count > 12, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) { return "webp" }
        if b.starts(with: Array("GIF8".utf8)) { return "gif" }
        if b.count > 12, Array(b[4..<8]) == Array("ftyp".utf8) { return "heic" }
        return nil
    }

    static func name(of bytes: [UInt8], ext: String) -> String {
        let hash = SHA256.hash(data: bytes).prefix(8).map { String(format: "%02x", $0) }.joined()
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        // The time, the content's hash, and a random part: the same bytes sent twice are two files.
        return "\(f.string(from: Date()))-\(hash)-\(String(UInt32.random(in: 0...UInt32.max), radix: 16)).\(ext)"
    }
}

/// The event stream's items as Server-Sent Events (the lines are JSON: no newline inside).
enum ServerSentEvents {
    static func frame(_ item: EventStream.Item) -> ByteBuffer {
        var out = ByteBuffer()
        switch item {
        case .event(let seq, var line):
            out.writeString("id: \(seq)\ndata: ")
            out.writeBuffer(&line)
            out.writeString("\n\n")
        case .line(var line):
            out.writeString("data: ")
            out.writeBuffer(&line)
            out.writeString("\n\n")
        case .position(var line):
            out.writeString("event: position\ndata: ")
            out.writeBuffer(&line)
            out.writeString("\n\n")
        case .keepalive:
            out.writeString(": keepalive\n\n")
        }
        return out
    }
}
