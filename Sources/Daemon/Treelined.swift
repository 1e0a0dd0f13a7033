import ArgumentParser
import Config
import Engine
import Foundation
import Geo
import GPSD
import Loading
import Logging
import MQTT
import NIOPosix
import Rules
import Server
import ServiceLifecycle
import Store
import TreelineVersion
import Web
import Regions

/// The daemon's command. Not an executable of its own: the `treeline` executable runs it when it is
/// started as `treelined` (a link to it), so both commands share one copy of the Swift runtime,
/// Foundation and ICU.
public struct Treelined: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "treelined",
        abstract: "Treeline's service: gpsd's fixes → region monitor → event journal → subscribers on a Unix socket.",
        discussion: """
        Reads the config file (YAML: gpsd:, regions:, socket:, database:,
        species:, monitor:; see Data/treeline.yaml), the regions files it
        names, and the SQLite database. Every event is committed there,
        numbered (seq), before anyone is sent it, together with the monitor's
        state: after a stop or a crash it goes on where it was (no enter for a
        fence it was inside, no seq given twice, plants' watering kept).

        Clients connect to the socket (mode 0660, group treeline) and send
        JSON lines, e.g.
          {"cmd":"subscribe","kinds":["plant"],"since":1000}
          {"cmd":"water","plant":"plant-7"}    {"cmd":"state"}
          {"cmd":"regions"}    {"cmd":"can_plant","species":"Quercus robur"}
          {"cmd":"plant",…}    {"cmd":"plan",…}    {"cmd":"layout",…}
        (docs/protocol.md lists them all). `treeline subscribe`, `water` and `state`
        do the first ones from a shell.

        Signals: SIGTERM or SIGINT stop it (within 2 s, exit 0); SIGHUP
        reloads the config's monitor: and species: and the regions (a broken
        file is logged with every reason and the old one stays in force).
        Under systemd (Type=notify) it reports READY=1, RELOADING=1,
        STOPPING=1 and STATUS=, pings the watchdog when WatchdogSec= is set,
        and takes its socket from treelined.socket when started by it.
        """,
        version: treelineVersion
    )

    @Option(help: "The config file.")
    var config = "/etc/treeline/treeline.yaml"

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    @Option(help: "Live events a subscriber may have waiting before it is dropped as lagging.")
    var queueLimit = 1024

    public init() {}

    public func validate() throws {
        if queueLimit < 1 { throw ValidationError("--queue-limit must be at least 1") }
    }

    public func run() async throws {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = level
            return h
        }
        let logger = Logger(label: "treelined")
        do {
            try await serve(logger: logger)
        } catch let e as DaemonError {
            logger.critical("\(e.description)")
            throw ExitCode(1)
        }
    }

    func serve(logger: Logger) async throws {
        let settings = try Self.loadConfig(config)
        let notifier = SystemdNotifier()
        let hub = Hub()
        let (engine, store, fileRegions) = try await Self.openEngine(settings, hub: hub, notifier: notifier, logger: logger)
        let runtimeRegions = await engine.user.count

        await engine.setCatalog(Self.loadCatalog(settings.species, logger: logger))

        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let listener: SocketServer.Listener = SocketActivation.listener().map { .descriptor($0, path: settings.socket) } ?? .path(settings.socket)
        let server: SocketServer
        do {
            server = try await SocketServer.start(listener, group: loops, delegate: engine, hub: hub, queueLimit: queueLimit, logger: logger)
        } catch { throw DaemonError("\(error)") }

        let configPath = config
        // READY=1 once the web app's port is bound too (when there is one), so that a client
        // connecting as soon as the service is ready is not refused; but at most 3 s after the
        // rest is up: a port another program holds is retried every 5 s meanwhile, and must not
        // hold up the start (systemd would kill a service that never says READY).
        let (webBound, bound) = AsyncStream<Void>.makeStream()
        let waitsForWeb = settings.http != nil
        let reload = ReloadService(
            ready: {
                if waitsForWeb {
                    // Cancelled at once by a SIGTERM meanwhile.
                    try? await cancelWhenGracefulShutdown {
                        await withTaskGroup(of: Void.self) { group in
                            group.addTask { for await _ in webBound { break } }
                            group.addTask { try? await Task.sleep(for: .seconds(3)) }
                            await group.next()
                            group.cancelAll()
                        }
                    }
                    if Task.isCancelled || Task.isShuttingDownGracefully { return }
                }
                // Only now: a SIGHUP before its trap is in place would end the process.
                notifier.notify("READY=1\n" + SystemdNotifier.status(await engine.heartbeat()))
            },
            reload: {
                await Self.reload(configPath, over: settings, engine: engine, store: store, notifier: notifier, logger: logger)
            })

        let client = GPSDClient(host: settings.gpsdHost, port: settings.gpsdPort, silence: 10)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: FixService(client: client, engine: engine)),
            .init(service: SocketService(server: server)),
            .init(service: SystemdService(notifier: notifier, engine: engine)),
            .init(service: reload),
        ]
        if let mqtt = settings.mqtt {
            services.append(.init(service: try Self.mqttBridge(mqtt, configPath: config, store: store, engine: engine, logger: logger)))
        }
        if let http = settings.http {
            services.append(.init(service: try Self.webService(http, settings: settings, queueLimit: queueLimit, configPath: config,
                                                               engine: engine, hub: hub, logger: logger, onListening: { bound.yield() })))
        }
        var groupConfig = ServiceGroupConfiguration(
            services: services,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        groupConfig.maximumGracefulShutdownDuration = .milliseconds(1500)
        let group = ServiceGroup(configuration: groupConfig)
        logger.notice("treelined \(treelineVersion): \(fileRegions) regions from files and \(runtimeRegions) added at runtime, database \(settings.database) (last seq \(engine.lastSeq())), socket \(settings.socket), gpsd \(settings.gpsdHost):\(settings.gpsdPort)")
        do {
            try await group.run()
        } catch {
            logger.error("\(error)")
        }
        try? await loops.shutdownGracefully()
        logger.notice("stopped; last seq \(engine.lastSeq())")
    }

    /// The engine over the regions files and the database, started: the files' key taken from
    /// the bytes parsed (`BaseLayerKey`), their changes journaled. The fences' rasters, a quarter of
    /// their build, are marked after, on a thread of their own, and handed to the engine. Returns
    /// how many regions the files hold (the files' list itself is let go: the engine has them).
    static func openEngine(_ settings: TreelineConfig, hub: Hub, notifier: SystemdNotifier,
                           logger: Logger) async throws(DaemonError) -> (Engine, Store, regions: Int) {
        let (regions, key) = try Self.loadRegions(settings.regions, copyIn: Self.stateFolder(of: settings.database))
        let store: Store
        do { store = try Store(path: settings.database) } catch { throw DaemonError(error.description) }
        let count = regions.count
        // Consumed: the list is let go once the engine has taken its regions (17 MB for 100,000).
        let engine = try Engine(store: store, base: consume regions, baseKey: key, config: settings.monitor, retention: Self.retention(settings), hub: hub,
                                version: treelineVersion, logger: logger,
                                onStatus: { notifier.notify(SystemdNotifier.status($0)) })
        try await engine.start()
        releaseFreeMemory()  // the parse's and the announcement's blocks
        if let (set, version) = await engine.unrasteredSet() {
            Task {
                guard let marked = try? await Self.onItsOwnThread({ () throws(DaemonError) in set.withRasters(parallel: true) }) else { return }
                await engine.takeRasters(marked, builtAt: version)
                releaseFreeMemory()
            }
        }
        return (engine, store, count)
    }

    /// SIGHUP: the config and the regions read again, the base layer swapped in; on any error the
    /// ones in force stay, and the log says why.
    static func reload(_ configPath: String, over settings: TreelineConfig, engine: Engine, store: Store,
                       notifier: SystemdNotifier, logger: Logger) async {
        notifier.notify("RELOADING=1\nMONOTONIC_USEC=\(monotonicNanos() / 1000)")
        do {
            let next = try Self.loadConfig(configPath)
            // Reading, checking and indexing the regions takes seconds for a country's worth:
            // on a thread of its own, not the few the engine's actor and the services share.
            let (user, version) = await engine.userLayerInForce()
            let plan = try await Self.onItsOwnThread { () throws(DaemonError) in
                let (regions, key) = try Self.loadRegions(next.regions, parallel: false, copyIn: Self.stateFolder(of: settings.database))
                return try Engine.prepare(base: regions, key: key, user: user, regionsVersion: version, config: next.monitor, store: store)
            }
            let count = plan.base.count
            if next.gpsdHost != settings.gpsdHost || next.gpsdPort != settings.gpsdPort || next.socket != settings.socket || next.database != settings.database
                || next.mqtt != settings.mqtt || next.http != settings.http {
                logger.warning("\(configPath): changes to gpsd:, socket:, database:, mqtt: or http: take effect at the next start (systemctl restart treelined)")
            }
            // What the reload replaced comes back to be freed off the actor, and off the few
            // threads the actor and the services share: a country's fences take tens of
            // milliseconds to free, which there would hold up the fixes.
            let retired = Handover(try await engine.reload(consume plan, config: next.monitor, retention: Self.retention(next)).get())
            _ = try? await Self.onItsOwnThread { () throws(DaemonError) in
                retired.value = nil
                releaseFreeMemory()
            }
            await engine.setCatalog(Self.loadCatalog(next.species, logger: logger))
            logger.notice("reloaded \(configPath): \(count) regions in the base layer from \(next.regions.joined(separator: ", "))")
            notifier.notify("READY=1\n" + SystemdNotifier.status(await engine.heartbeat()))
        } catch {
            logger.error("reload refused, the regions and settings in force stay: \(error)")
            notifier.notify("READY=1\n" + SystemdNotifier.status("reload refused (see the log); " + (await engine.heartbeat())))
        }
    }

    /// The config's `mqtt:` as the bridge that publishes the journal (and OwnTracks, commands,
    /// the fleet's regions, as set).
    static func mqttBridge(_ mqtt: MQTTConfig, configPath: String, store: Store, engine: Engine, logger: Logger) throws -> MQTTBridge {
        let (bridgeSettings, topic) = try Self.mqttSettings(mqtt, configPath: configPath)
        let ownTracks = mqtt.ownTracks.map { o in
            let user = o.user ?? bridgeSettings.clientID
            return MQTTBridge.OwnTracksTarget(user: user, device: o.device ?? CrewBook.boardDevice, tid: o.tid ?? OwnTracks.defaultTID(user),
                                              interval: o.intervalSeconds, distance: o.distance, kinds: o.kinds, transitions: o.transitions, crew: o.crew,
                                              formerBase: o.user == nil && o.device == nil ? "owntracks/treeline/\(bridgeSettings.clientID)" : nil)
        }
        let homeAssistant = mqtt.homeAssistant.map { h in
            MQTTBridge.HomeAssistantTarget(board: HomeAssistant.Board(clientID: bridgeSettings.clientID, topic: topic, prefix: h.prefix, version: treelineVersion),
                                           inside: h.inside, buttons: h.buttons)
        }
        let bridge: MQTTBridge
        do {
            bridge = try MQTTBridge(settings: bridgeSettings, topic: topic, ownTracks: ownTracks, homeAssistant: homeAssistant, commands: mqtt.commands,
                                    fleetRegions: mqtt.fleetRegions, store: store, engine: engine, logger: logger)
        } catch { throw DaemonError("\(configPath): \(error.description)") }
        logger.notice("MQTT: events to \(topic)/events on \(mqtt.host):\(mqtt.port), at least once (after seq \((try? store.mqttProgress())??.acked ?? 0))")
        return bridge
    }

    /// The config's `http:` as the web app's server.
    static func webService(_ http: HTTPConfig, settings: TreelineConfig, queueLimit: Int, configPath: String, engine: Engine, hub: Hub,
                           logger: Logger, onListening: @escaping @Sendable () -> Void) throws -> WebService {
        let web = try Self.webSettings(http, database: settings.database, queueLimit: queueLimit, configPath: configPath, logger: logger)
        let scheme = web.tls == nil ? "http" : "https"
        return WebService(settings: web, delegate: engine, hub: hub, logger: logger) { port in
            logger.notice("web app on \(scheme)://\(web.host.contains(":") ? "[\(web.host)]" : web.host):\(port)/ (`treeline web` prints the address with its token)")
            onListening()
        }
    }

    // Files come through Loading's `Loader`, whose errors name the file and what to do; here
    // they become the daemon's one error type.

    static func loadConfig(_ path: String) throws(DaemonError) -> TreelineConfig {
        do { return try Loader.config(path) } catch { throw DaemonError(error.description) }
    }

    /// `$PREFIX/share/treeline/<name>` for the prefix this executable is installed in.
    static func installed(_ name: String) -> String {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return exe.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("share/treeline/" + name).path
    }

    /// The species catalog at `path`; when that file is missing, the one installed beside this
    /// executable ($PREFIX/share/treeline/species.json) if there is one.
    static func loadCatalog(_ path: String, logger: Logger) -> Result<SpeciesCatalog, DaemonError> {
        let installed = installed("species.json")
        if !FileManager.default.fileExists(atPath: path), FileManager.default.fileExists(atPath: installed) {
            logger.notice("species catalog: \(path) is missing, using \(installed)")
        }
        do { return .success(try Loader.catalog([path, installed])) } catch { return .failure(DaemonError(error.description)) }
    }

    /// Runs `work` on a new thread and waits for it without holding a thread of the concurrency
    /// pool. The thread is niced (19, Linux's lowest share): on a board's few cores a reload
    /// takes the time fixes leave, not the time they need.
    static func onItsOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws(DaemonError) -> T) async throws(DaemonError) -> T {
        let result: Result<T, DaemonError> = await withCheckedContinuation { done in
            Thread {
                // Linux keeps the nice value per thread: 0 is this thread alone.
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
                done.resume(returning: Result { () throws(DaemonError) in try work() })
            }.start()
        }
        return try result.get()
    }

    /// A value handed to another thread to be let go there: the only reference to it.
    final class Handover<T>: @unchecked Sendable {
        var value: T?
        init(_ value: consuming T) { self.value = value }
    }

    /// The regions files' regions, and their key (`BaseLayerKey`) from the bytes parsed.
    /// `parallel`: false for a reload, which leaves the other cores to the fixes. The files
    /// themselves are not mapped: a file rewritten in place while it is read must give an error,
    /// not end the daemon. Each is read from a private copy in `copyIn` (the database's folder,
    /// on the disk: `LogFile.withPrivateCopy`), or into memory when there is none.
    static func loadRegions(_ paths: [String], parallel: Bool = true, copyIn: String? = nil) throws(DaemonError) -> (regions: [(region: Region, file: String)], key: String) {
        var key = BaseLayerKey(version: treelineVersion)
        do {
            let regions = try Loader.regionList(paths, parallel: parallel, mapped: false, copyIn: copyIn) { key.add($0, $1) }
            return (regions, key.text)
        } catch { throw DaemonError(error.description) }
    }

    /// The bridge's settings: the client id defaults to the host name, the password is read
    /// from its file (kept out of the config), the topic defaults to `treeline/<client id>`.
    static func mqttSettings(_ m: MQTTConfig, configPath: String) throws(DaemonError) -> (MQTTSettings, String) {
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, name.count - 1)
        let clientID = m.clientID ?? String(cString: name)
        var password: String?
        if let file = m.passwordFile {
            guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
                throw DaemonError("\(configPath): mqtt.password_file \(file) cannot be read: check that it exists and that the treeline user may read it")
            }
            password = text.trimmingCharacters(in: .newlines)
        }
        let settings = MQTTSettings(host: m.host, port: m.port, clientID: clientID, username: m.username, password: password,
                                    keepalive: m.keepalive, caFile: m.caFile, certFile: m.certFile, keyFile: m.keyFile)
        return (settings, m.topic ?? "treeline/\(clientID)")
    }

    /// The web server's settings: the token and the certificate made or read now (beside the
    /// database unless the config says where), the page's files installed beside this
    /// executable unless `http.root` names them.
    static func webSettings(_ h: HTTPConfig, database: String, queueLimit: Int, configPath: String, logger: Logger) throws(DaemonError) -> WebSettings {
        let state = stateFolder(of: database)
        let root = h.root ?? installed("web")
        guard FileManager.default.fileExists(atPath: root + "/index.html") else {
            throw DaemonError("\(configPath): http: the web app's files are not in \(root) (no index.html): set http.root to the folder (web/ in Treeline's source), or reinstall")
        }
        do {
            let token = try WebToken.loadOrCreate(h.tokenFile ?? state + "/web-token")
            var tls: (certificate: String, key: String)?
            switch h.tls {
            case .off:
                tls = nil
            case let .files(cert, key):
                guard let c = FileManager.default.contents(atPath: cert), let k = FileManager.default.contents(atPath: key) else {
                    throw DaemonError("\(configPath): http.tls: cannot read \(cert) or \(key): check that both exist and the treeline user may read them")
                }
                tls = (String(decoding: c, as: UTF8.self), String(decoding: k, as: UTF8.self))
            case .auto:
                var board = BoardAddresses.current()
                if h.host != "0.0.0.0", h.host != "::", !board.addresses.contains(h.host), !board.names.contains(h.host) {
                    if BoardAddresses.bytes(ofAddress: h.host) != nil { board.addresses.append(h.host) } else { board.names.append(h.host) }
                }
                let (cert, made) = try BoardCertificate.loadOrMake(folder: state, for: board)
                if made { logger.notice("web app: made a self-signed certificate for \((cert.names + cert.addresses).joined(separator: ", ")) in \(state)/web-cert.pem") }
                tls = (cert.certificatePEM, cert.keyPEM)
            }
            var web = WebSettings(host: h.host, port: h.port, tls: tls, token: token, root: root, photos: state + "/photos")
            web.tiles = h.tiles
            web.tileFiles = h.tileFiles
            web.tilesAttribution = h.tilesAttribution
            web.maxConnections = h.maxConnections
            web.maxBodyBytes = h.maxBodyBytes
            web.maxPhotoBytes = h.maxPhotoBytes
            web.queueLimit = queueLimit
            return web
        } catch let e as WebError {
            throw DaemonError("\(configPath): http: \(e.description)")
        } catch let e as DaemonError {
            throw e
        } catch {
            throw DaemonError("\(configPath): http: \(error)")
        }
    }

    static func retention(_ c: TreelineConfig) -> Retention {
        Retention(journalDays: c.journalKeepDays, trackDays: c.trackKeepDays)
    }
}

// swift-format-ignore: AvoidRetroactiveConformances
// The log level as a command-line option: swift-log's type, swift-argument-parser's protocol.
extension Logger.Level: @retroactive ExpressibleByArgument {}

extension Treelined {
    /// The folder of the database at `path`, where the daemon keeps what it writes besides
    /// (the web's token and certificate, the regions files' private copies).
    static func stateFolder(of database: String) -> String { URL(fileURLWithPath: database).deletingLastPathComponent().path }
}
