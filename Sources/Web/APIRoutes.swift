import Crypto
import Foundation
import Geo
import Hummingbird
import HTTPTypes
import Logging
import NIOConcurrencyHelpers
import Server
import JSON
import Protocol

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
    let tiles: TileRoutes
    let uploads = UploadSlots()

    func add(to router: Router<BasicRequestContext>) {
        router.post("/api") { request, _ in try await command(request) }
        router.get("/api/events") { request, _ in await events(request) }
        router.get("/api/layout") { request, _ in await layout(request) }
        router.get("/api/regions.geojson") { request, _ in await geoJSON(.regions, request) }
        router.get("/api/trees.geojson") { request, _ in await geoJSON(.trees, request) }
        router.get("/api/track.geojson") { request, _ in await geoJSON(.track, request) }
        router.post("/api/captures") { request, _ in try await photoCapture(request) }
        router.get("/api/photos/:name") { request, _ in photo(request) }
        router.get("/api/web.json") { _, _ in webSettings() }
    }

    /// A JSON answer; gzipped when it is `StaticFiles.gzipFrom` to `gzipUpTo` bytes and the client
    /// takes gzip (a track or the regions with their geometry shrink four to ten times).
    static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok, type: String = "application/json", for request: Request? = nil) -> Response {
        var headers: HTTPFields = [.contentType: type]
        guard let request, (StaticFiles.gzipFrom...StaticFiles.gzipUpTo).contains(bytes.count) else {
            return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        headers[.vary] = "Accept-Encoding"
        if StaticFiles.takesGzip(request.headers[.acceptEncoding]), let gz = StaticFiles.gzip(bytes, level: .compressionLevel6) {
            headers[.contentEncoding] = "gzip"
            return Response(status: status, headers: headers, body: .init(byteBuffer: gz))
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func error(_ e: CommandError, status: HTTPResponse.Status) -> Response {
        json(e.json, status: status)
    }

    /// The daemon's refusal of a request that parsed: 422, or 503 with `Retry-After` when it is
    /// a refusal of the moment (`retryLater`: the database failed, no fix yet since a restart),
    /// which a client's queue sends again.
    static func refusal(_ e: CommandError) -> Response {
        guard e.retryLater else { return error(e, status: .unprocessableContent) }
        var response = error(e, status: .serviceUnavailable)
        response.headers[.retryAfter] = "5"
        return response
    }

    /// The header of a request that must run at most once (the page's queued actions): a change
    /// sent again with the same key is answered with its first answer and not run again.
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!

    /// `POST /api`: exactly the socket's answer. A request that does not parse is 400; one
    /// the daemon refuses (no such region, outside the album, …) is 422; both with the socket's message.
    func command(_ request: Request) async throws -> Response {
        // A page elsewhere may POST text/plain or a form without asking the browser first;
        // only a script of this page's origin can send JSON.
        guard Self.isJSON(request.headers[.contentType]) else {
            let sent = request.headers[.contentType].map { "Content-Type \(TextExcerpt.short($0))" } ?? "no Content-Type"
            return Self.error(CommandError("POST /api takes one command as JSON with Content-Type: application/json (\(sent) was sent)"), status: .unsupportedMediaType)
        }
        let key: String?
        switch Commands.idempotencyKey(request.headers[Self.idempotencyKey]) {
        case .success(let k): key = k
        case .failure(let e): return Self.error(e, status: .badRequest)
        }
        let body = try await request.body.collect(upTo: settings.maxBodyBytes)
        let (bad, result) = await Commands.answer(Array(buffer: body), key: key, delegate: delegate)
        switch result {
        case .success(let json): return Self.json(json, for: request)
        case .failure(let e): return bad ? Self.error(e, status: .badRequest) : Self.refusal(e)
        }
    }

    /// `application/json`, with parameters (`; charset=utf-8`) or none.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";", maxSplits: 1).first else { return false }
        return type.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
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

    func geoJSON(_ layer: GeoJSONLayer, _ request: Request) async -> Response {
        switch await delegate.geoJSON(layer) {
        case .success(let bytes?): return Self.json(bytes, type: "application/geo+json", for: request)
        case .success(nil): return Self.error(CommandError("no track is recorded yet: it grows as the board moves with a fix"), status: .notFound)
        case .failure(let e): return Self.error(e, status: .internalServerError)
        }
    }

    func webSettings() -> Response {
        var out: [UInt8] = Array(#"{"tiles":"#.utf8)
        if let t = settings.tiles { JSONBytes.appendString(t, to: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: #","attribution":"#.utf8)
        if let a = settings.tilesAttribution { JSONBytes.appendString(a, to: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: #","layers":"#.utf8)
        tiles.appendLayers(to: &out)
        out.append(contentsOf: #","version":"#.utf8)
        JSONBytes.appendString(delegate.version, to: &out)
        out.append(UInt8(ascii: "}"))
        return Self.json(out)
    }

    /// `GET /api/photos/NAME`: a kept photo, by exactly the name the server wrote, with the
    /// Content-Type of the format it was checked to be at upload and is checked to be again
    /// now; in a sandbox and as a download's name, so that it is never a page of this origin.
    func photo(_ request: Request) -> Response {
        let prefix = "/api/photos/"
        let name = request.uri.path.hasPrefix(prefix) ? String(request.uri.path.dropFirst(prefix.count)) : ""
        guard let format = Photo.format(ofName: name), let bytes = Photo.load(folder: settings.photos, name: name, format: format) else {
            return Self.error(CommandError("no photo \(TextExcerpt.short(name)) on this board: a capture's photo is at /api/photos/ and the file name the capture lists"), status: .notFound)
        }
        return Response(status: .ok, headers: [.contentType: format.contentType,
                                               HTTPField.Name("Content-Disposition")!: #"inline; filename="\#(name)""#,
                                               .contentSecurityPolicy: "sandbox"],
                        body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `POST /api/captures?album=ID&note=TEXT` with a photo as the body: kept in the photos
    /// folder and recorded as the socket's `capture` with its file. `ago_s=S` (a photo queued
    /// while the board was out of reach): taken S seconds ago, recorded where the board was then;
    /// an `Idempotency-Key` makes a photo sent again recorded once. Refused (outside the album,
    /// no fresh fix): the photo is not kept.
    func photoCapture(_ request: Request) async throws -> Response {
        guard let album = request.uri.queryParameters.get("album"), !album.isEmpty else {
            return Self.error(CommandError("missing album=: the album's id (POST /api/captures?album=ID&note=TEXT with the photo as the body)"), status: .badRequest)
        }
        let note = request.uri.queryParameters.get("note").flatMap { $0.isEmpty ? nil : $0 }
        var ago: Double?
        if let text = request.uri.queryParameters.get("ago_s") {
            guard let n = Double(text), n.isFinite, (0...Command.maxAgo).contains(n) else {
                return Self.error(CommandError("ago_s= must be a number of seconds from 0 to \(Int(Command.maxAgo)) (a week): how long ago the photo was taken"), status: .badRequest)
            }
            ago = n
        }
        let key: String?
        switch Commands.idempotencyKey(request.headers[Self.idempotencyKey]) {
        case .success(let k): key = k
        case .failure(let e): return Self.error(e, status: .badRequest)
        }
        // A photo sent again (its answer was lost on the way): the first answer, and no second copy.
        if let key, let earlier = try? delegate.store.idempotentAnswer(for: Command.capture(album: album, file: nil, note: note).keyed(key)) {
            return Self.json(earlier)
        }
        guard uploads.take() else {
            var busy = Self.error(CommandError("\(UploadSlots.count) photos are being received already: send this one again in a moment"), status: .serviceUnavailable)
            busy.headers[.retryAfter] = "2"
            return busy
        }
        defer { uploads.give() }
        let body = Array(buffer: try await request.body.collect(upTo: settings.maxPhotoBytes))
        guard let format = PhotoFormat.of(body) else {
            return Self.error(CommandError("the body is not a whole \(PhotoFormat.accepted) picture (\(body.count) bytes): send the photo file itself as the body"), status: .unsupportedMediaType)
        }
        let name = Photo.name(of: body, format: format)
        let path = settings.photos + "/" + name
        do {
            try Photo.keep(body, folder: settings.photos, name: name)
        } catch {
            logger.error("cannot keep a photo in \(settings.photos): \(error)")
            return Self.error(CommandError("the photo could not be kept on the board (see treelined's log)"), status: .internalServerError)
        }
        switch await Commands.capture(album: album, note: note, file: path, ago: ago, key: key, delegate: delegate) {
        case .success(.repeated(let earlier)):
            // Its twin arrived at the same moment and was recorded: this copy is not kept.
            try? FileManager.default.removeItem(atPath: path)
            return Self.json(earlier)
        case .success(.ran(.failure(let e))):
            try? FileManager.default.removeItem(atPath: path)
            return Self.refusal(e)
        case .success(.ran(.success(let json))):
            // Outside the album the answer says so (`"recorded":false`, how far to walk): the
            // photo is not kept then either.
            if json.firstRange(of: Array(#""recorded":false"#.utf8)) != nil { try? FileManager.default.removeItem(atPath: path) }
            return Self.json(json)
        case .failure(let e):
            try? FileManager.default.removeItem(atPath: path)
            return Self.refusal(e)
        }
    }
}

/// A kept photo: its file name (when, a hash of its bytes, a random part, the extension of the
/// format its bytes were checked to be), the file written 0600 in a folder 0700, and served back
/// only by that name with that format's Content-Type.
enum Photo {
    static func name(of bytes: [UInt8], format: PhotoFormat) -> String {
        let hash = SHA256.hash(data: bytes).prefix(8).map { String(format: "%02x", $0) }.joined()
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        // The time, the content's hash, and a random part: the same bytes sent twice are two files.
        return "\(f.string(from: Date()))-\(hash)-\(String(format: "%08x", UInt32.random(in: 0...UInt32.max))).\(format.fileExtension)"
    }

    /// The format a name written by `name(of:format:)` says, when `name` is exactly such a name:
    /// `yyyyMMddTHHmmssZ-` 16 hex digits `-` 1 to 8 hex digits (older names have fewer) `.ext`.
    static func format(ofName name: some StringProtocol) -> PhotoFormat? {
        let b = Array(name.utf8)
        func digits(_ r: Range<Int>) -> Bool { r.upperBound <= b.count && b[r].allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
        func hex(_ c: UInt8) -> Bool { (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) }
        guard b.count > 34, digits(0..<8), b[8] == UInt8(ascii: "T"), digits(9..<15), b[15] == UInt8(ascii: "Z"), b[16] == UInt8(ascii: "-"),
              b[17..<33].allSatisfy(hex), b[33] == UInt8(ascii: "-") else { return nil }
        let rest = b[34...]
        guard let dot = rest.firstIndex(of: UInt8(ascii: ".")), (1...8).contains(dot - 34), b[34..<dot].allSatisfy(hex) else { return nil }
        return PhotoFormat(fileExtension: String(decoding: b[(dot + 1)...], as: UTF8.self))
    }

    /// Writes `bytes` as `folder/name`, mode 0600 in a folder of mode 0700 whatever the umask:
    /// through a temporary file renamed into place, so a reader never sees half a photo.
    static func keep(_ bytes: [UInt8], folder: String, name: String) throws(WebError) {
        if mkdir(folder, 0o700) != 0 && errno != EEXIST { throw WebError("cannot create \(folder): \(String(cString: strerror(errno)))") }
        var st = stat()
        guard lstat(folder, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { throw WebError("\(folder) is not a folder") }
        if st.st_mode & 0o7777 != 0o700, chmod(folder, 0o700) != 0 { throw WebError("cannot make \(folder) 0700: \(String(cString: strerror(errno)))") }
        let temporary = folder + "/." + name + ".part"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw WebError("cannot create \(temporary): \(String(cString: strerror(errno)))") }
        var ok = fchmod(fd, 0o600) == 0
        var written = 0
        while ok && written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { ok = false } else { written += n }
        }
        ok = ok && fsync(fd) == 0
        let reason = String(cString: strerror(errno))
        close(fd)
        guard ok, rename(temporary, folder + "/" + name) == 0 else {
            unlink(temporary)
            throw WebError("cannot write \(folder)/\(name): \(reason)")
        }
    }

    /// The bytes of the kept photo `name` when they are still the format its name says; nil
    /// when there is no such regular file or they are not.
    static func load(folder: String, name: String, format: PhotoFormat) -> [UInt8]? {
        let fd = open(folder + "/" + name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var got = 0
        while got < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, $0.count - got) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            got += n
        }
        return PhotoFormat.check(bytes, are: format) ? bytes : nil
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
