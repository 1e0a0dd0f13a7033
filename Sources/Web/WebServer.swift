import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import Server
import ServiceLifecycle

/// What the web server is given: where it listens, with what certificate, what it serves.
public struct WebSettings: Sendable {
    public var host: String
    public var port: Int
    /// PEM certificate chain and key; nil: plain HTTP.
    public var tls: (certificate: String, key: String)?
    public var token: WebToken
    /// The page's files (index.html, app.js, …).
    public var root: String
    /// Debian's libjs-leaflet files, served at /leaflet/.
    public var leaflet = "/usr/share/javascript/leaflet"
    /// Where photos taken with a capture are kept.
    public var photos: String
    public var tiles: String?
    /// MBTiles files served at /tiles/, as layers.
    public var tileFiles: [String] = []
    public var tilesAttribution: String?
    public var maxConnections = 64
    public var maxBodyBytes = 1 << 20
    public var maxPhotoBytes = 16 << 20
    /// Live events an event stream may have waiting (the socket's `--queue-limit`).
    public var queueLimit = 1024
    /// How long a client may take to send a request's head, and its body.
    public var headDeadline: TimeAmount = .seconds(10)
    public var bodyDeadline: TimeAmount = .seconds(120)

    public init(host: String, port: Int, tls: (certificate: String, key: String)?, token: WebToken, root: String, photos: String) {
        self.host = host
        self.port = port
        self.tls = tls
        self.token = token
        self.root = root
        self.photos = photos
    }
}

/// HTTPS for the phone, beside the socket: `POST /api` (the socket's commands), `GET
/// /api/events` (its subscription, as Server-Sent Events), GeoJSON layers, photo captures and
/// the page's files. Every request needs the token.
public struct WebService: Service {
    let settings: WebSettings
    let delegate: any WebDelegate
    let hub: Hub
    let logger: Logger
    let onListening: @Sendable (Int) -> Void

    public init(settings: WebSettings, delegate: any WebDelegate, hub: Hub, logger: Logger, onListening: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.settings = settings
        self.delegate = delegate
        self.hub = hub
        self.logger = logger
        self.onListening = onListening
    }

    static let tlsShutdownTimeout: TimeAmount = .milliseconds(300)

    /// The page's files and Leaflet's, read and compressed once. A directory that cannot be read
    /// is logged (the API and the streams still work) with what to do.
    static func loadFiles(_ settings: WebSettings, logger: Logger) -> StaticFiles {
        var files = StaticFiles()
        let started = ContinuousClock.now
        for (directory, base, compress, remedy) in [(settings.root, "", true, "the web app's page is missing: reinstall treeline, or check http.root"),
                                                    (settings.leaflet, "/leaflet", false, "the map needs Debian's Leaflet: apt-get install libjs-leaflet")] {
            do {
                try files.load(directory: directory, urlBase: base, compress: compress)
            } catch {
                logger.error("web app: \(error): \(remedy)")
            }
        }
        files.addShellList()
        let took = ContinuousClock.now - started
        logger.info("web app: \(files.assets.count) files, \(files.bytesRead / 1024) KB, \(files.compressedHere) gzipped at start in \(took)")
        return files
    }

    public func run() async throws {
        let streams = OpenStreams()
        let router = Router(context: BasicRequestContext.self)
        let headers = SecurityHeaderSet(tiles: settings.tiles)
        router.add(middleware: SecurityHeaders(set: headers))
        // Before anything looks a file up: a path with a NUL, a control character, a backslash
        // or an encoded slash is 400 (the file middleware decodes the path, and a NUL cuts the
        // name it opens short of the extension that types the answer).
        router.add(middleware: PathGuard())
        router.add(middleware: ErrorsAsJSON())
        router.add(middleware: TokenGate(token: settings.token, secureCookie: settings.tls != nil))
        router.add(middleware: StaticFilesMiddleware(files: Self.loadFiles(settings, logger: logger)))
        // Photos are a route of their own (`APIRoutes.photo`), not files served by extension.
        let tiles = TileRoutes(layers: TileRoutes.open(settings.tileFiles, logger: logger))
        tiles.add(to: router)
        APIRoutes(settings: settings, delegate: delegate, hub: hub, streams: streams, logger: logger, tiles: tiles).add(to: router)
        // The AR view is the folder ar/. The router takes "/ar/" for "/ar" too, and the files
        // are served only when it finds nothing: so only the bare path is redirected.
        router.get("/ar") { request, _ in
            guard request.uri.path == "/ar" else { throw HTTPError(.notFound) }
            return Response(status: .movedPermanently, headers: [.location: "/ar/"])
        }

        let http1 = HTTP1Channel.Configuration(additionalChannelHandlers: [RequestLimits(head: settings.headDeadline, body: settings.bodyDeadline, bodyBytes: settings.maxBodyBytes, photoBytes: settings.maxPhotoBytes, headers: headers)],
                                               idleTimeout: .seconds(120))
        let server: HTTPServerBuilder
        if let tls = settings.tls {
            do {
                let chain = try NIOSSLCertificate.fromPEMBytes(Array(tls.certificate.utf8)).map { NIOSSLCertificateSource.certificate($0) }
                let key = try NIOSSLPrivateKey(bytes: Array(tls.key.utf8), format: .pem)
                var tlsConfiguration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
                // A connection closing (every open one at shutdown) waits this long for the
                // client's close_notify, which a browser or a script may never send: NIO's
                // default of 5 s held SIGTERM that long with a page open (docs/deploy.md's promise
                // is 2 s). Every answer is delimited by its length or chunks, so nothing needs it.
                tlsConfiguration.shutdownTimeout = Self.tlsShutdownTimeout
                server = try .tls(.http1(configuration: http1), tlsConfiguration: tlsConfiguration)
            } catch {
                throw WebError("the web app's certificate or key cannot be used: \(error)")
            }
        } else {
            server = .http1(configuration: http1)
        }
        let onListening = self.onListening
        let app = Application(
            router: router,
            server: server,
            configuration: ApplicationConfiguration(address: .hostname(settings.host, port: settings.port), serverName: nil, backlog: 64,
                                                    availableConnectionsDelegate: MaximumAvailableConnections(settings.maxConnections)),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        // Open event streams never end by themselves: at shutdown they are closed, so the
        // server's own graceful stop finds every response done. A server that cannot start
        // (the port taken, a hotspot address not up yet at boot) is logged and tried again
        // every 5 s: the monitor and the socket go on meanwhile.
        let stopping = NIOLockedValueBox(false)
        try await withGracefulShutdownHandler {
            while !stopping.withLockedValue({ $0 }) {
                do {
                    try await app.runService()
                    return
                } catch {
                    if stopping.withLockedValue({ $0 }) || Task.isCancelled { return }
                    logger.error("web app: cannot serve on \(settings.host):\(settings.port): \(error); trying again in 5 s")
                    try? await Task.sleep(for: .seconds(5))
                }
            }
        } onGracefulShutdown: {
            stopping.withLockedValue { $0 = true }
            streams.closeAll()
        }
    }
}
