import Config
import NIOCore
import Foundation
import Geo
import Logging
import MQTT
import Server
import ServiceLifecycle
import Store
import Synchronization

/// The journal to an MQTT broker, at least once and in order.
///
/// Every event goes, QoS 1, to `<topic>/events` as the socket sends it (with its `seq`). Events
/// are read from the journal after the last seq the broker acknowledged (kept in the database),
/// at most `window` unacknowledged at a time; a PUBACK moves the acknowledged seq on over every
/// event before it that is acknowledged too. After a reconnect or a restart (`kill -9` included)
/// publishing starts again after the acknowledged seq: nothing is lost, and a repeat carries the
/// same seq (consumers de-duplicate on it). The bridge only reads the journal: a broker that is
/// slow or gone never slows the monitor or the socket.
///
/// Also `<topic>/status`, retained: `online`, with `offline` as the last will (and on a clean
/// stop); `<topic>/state`, retained: the STATE object, when it changed, at most every 10 s.
final class MQTTBridge: Service, @unchecked Sendable {
    let client: MQTTClient
    let store: Store
    let engine: Engine
    let topic: String
    let logger: Logger
    /// Unacknowledged events at most in flight.
    static let window = 100

    /// What libmosquitto's thread tells the publishing loop.
    struct Inbox {
        var connected = false
        /// A new connection since the loop last looked: start again after the acknowledged seq.
        var fresh = false
        var acks: [Int32] = []
        var toldUnreachable = false
        /// Commands and the fleet's regions, as they came.
        var messages: [(topic: String, payload: [UInt8])] = []
    }
    final class Mailbox: Sendable {
        let inbox = Mutex(Inbox())
    }
    let mailbox = Mailbox()

    /// OwnTracks: where (`owntracks/<user>/<device>`), the tracker id, how often, which kinds.
    struct OwnTracksTarget: Sendable {
        var base: String
        var tid: String
        var interval: Double
        var distance: Double
        var kinds: Set<String>
    }
    let ownTracks: OwnTracksTarget?

    /// Whether commands and the fleet's regions are taken from the broker.
    let commands: Bool
    static let fleetCommands = "treeline/fleet/cmd"
    static let fleetRegions = "treeline/fleet/regions"

    init(settings: MQTTSettings, topic: String, ownTracks: OwnTracksTarget?, commands: Bool, store: Store, engine: Engine,
         logger: Logger) throws(MQTTError) {
        client = try MQTTClient(settings, will: (topic + "/status", "offline"))
        self.ownTracks = ownTracks
        self.commands = commands
        self.store = store
        self.engine = engine
        self.topic = topic
        self.logger = logger
        let mailbox = self.mailbox
        let client = self.client
        let where_ = "\(settings.host):\(settings.port)"
        client.onConnect = { result in
            switch result {
            case .success:
                mailbox.inbox.withLock { $0.connected = true; $0.fresh = true }
                // Commands at QoS 0: one sent while the board was away is not run days later.
                // Without `commands`, what an earlier run's session subscribed to is dropped.
                if commands {
                    client.subscribe(topic + "/cmd", qos: 0)
                    client.subscribe(Self.fleetCommands, qos: 0)
                    client.subscribe(Self.fleetRegions)
                } else {
                    for t in [topic + "/cmd", Self.fleetCommands, Self.fleetRegions] { client.unsubscribe(t) }
                }
                logger.notice("MQTT: connected to \(where_) as \(settings.clientID)")
            case .failure(let e):
                logger.error("MQTT: \(where_): \(e.description)")
            }
        }
        client.onDisconnect = { e in
            let was = mailbox.inbox.withLock { i in
                defer { i.connected = false }
                return i.connected
            }
            // Said when a connection is lost, and once when the broker cannot be reached at start.
            let first = mailbox.inbox.withLock { i in
                defer { i.toldUnreachable = true }
                return !i.toldUnreachable
            }
            if let e, was || first { logger.warning("MQTT: \(where_): \(e.description); events wait in the journal") }
        }
        client.onPublished = { mid in mailbox.inbox.withLock { $0.acks.append(mid) } }
        client.onMessage = { topic, payload in mailbox.inbox.withLock { $0.messages.append((topic, payload)) } }
        client.onLog = { logger.warning("MQTT: \($0)") }
    }

    func run() async throws {
        var acked: Int64, transitions: Int64
        do {
            // The first run with MQTT on a board with a history publishes the journal (events),
            // but does not replay old enters and exits into OwnTracks as transitions.
            if let p = try store.mqttProgress() { (acked, transitions) = (p.acked, p.transitions) } else { (acked, transitions) = (0, try store.lastSeq()) }
        } catch { throw DaemonError(error.description) }
        await engine.setMQTTBridged()
        try client.start()
        var saved = (acked, transitions), published = acked
        // Published and not yet acknowledged, in seq order, with when (monotonic ns); and the
        // acknowledged ones among them.
        var pending = CircularBuffer<(seq: Int64, mid: Int32, at: UInt64)>()
        var early = Set<Int32>()
        var lastState: [UInt8] = []
        var stateAt: UInt64 = 0
        var ownTracksAt: UInt64 = 0
        let started = monotonicNanos()
        var everConnected = false, toldAbsent = false
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let (connected, fresh, acks, messages) = mailbox.inbox.withLock { i in
                defer { i.fresh = false; i.acks.removeAll(keepingCapacity: true); i.messages.removeAll() }
                return (i.connected, i.fresh, i.acks, i.messages)
            }
            for m in messages { await handle(m.topic, m.payload) }
            everConnected = everConnected || connected
            if !everConnected, !toldAbsent, monotonicNanos() - started > 3_000_000_000 {
                toldAbsent = true
                logger.warning("MQTT: cannot reach the broker at \(client.settings.host):\(client.settings.port) yet; retrying (1 s, doubling to 30 s), events wait in the journal")
            }
            // Acknowledgements first: every one is for a message published before this look.
            for mid in acks where pending.contains(where: { $0.mid == mid }) { early.insert(mid) }
            while let first = pending.first, early.remove(first.mid) != nil {
                acked = first.seq
                pending.removeFirst()
            }
            if fresh {
                // libmosquitto resends what it has in flight on the new connection: only the
                // status is new. The OwnTracks side starts afresh (waypoints again).
                _ = client.publish(topic + "/status", Array("online".utf8), retain: true)
                lastState = []
                if let ot = ownTracks { await publishOwnTracks(ot, fresh: true) }
            }
            let now = monotonicNanos()
            // A message the library lost (never acknowledged in a minute, connected): from the
            // acknowledged seq again. Repeats, never a gap or a stall.
            if connected, let oldest = pending.first, now - oldest.at > 60_000_000_000 {
                logger.warning("MQTT: seq \(oldest.seq) not acknowledged in 60 s; publishing again after seq \(acked)")
                pending.removeAll()
                early.removeAll()
                published = acked
            }
            var full = false
            if connected, pending.count < Self.window {
                do {
                    let events = try store.events(after: published, limit: Self.window - pending.count)
                    if let first = events.first, first.seq > published + 1, published > 0 || first.seq > 1 {
                        // Only retention can do this, and it keeps what was not acknowledged.
                        logger.warning("MQTT: seqs \(published + 1)–\(first.seq - 1) are no longer in the journal")
                    }
                    var line: [UInt8] = []
                    for e in events {
                        line.removeAll(keepingCapacity: true)
                        e.appendLine(to: &line)
                        line.removeLast()
                        guard let mid = client.publish(topic + "/events", line) else { break }
                        pending.append((e.seq, mid, now))
                        published = e.seq
                        if let ot = ownTracks, e.seq > transitions {
                            transition(e, ot)
                            transitions = e.seq
                        }
                    }
                    full = events.count == Self.window
                } catch {
                    logger.error("MQTT: \(error); tried again shortly")
                }
            }
            if (acked, transitions) != saved {
                do {
                    try store.setMQTTProgress(acked: acked, transitions: transitions)
                    saved = (acked, transitions)
                } catch {
                    logger.error("MQTT: \(error)")
                }
            }
            if connected, let ot = ownTracks, now - ownTracksAt >= 1_000_000_000 {
                ownTracksAt = now
                await publishOwnTracks(ot, fresh: false)
            }
            if connected, now - stateAt >= 10_000_000_000 || lastState.isEmpty {
                stateAt = now
                let state = await engine.state()
                if state != lastState {
                    _ = client.publish(topic + "/state", state, retain: true)
                    lastState = state
                }
            }
            // Quickly while there is a backlog; else a short nap (an event waits at most 20 ms).
            if !full { try? await Task.sleep(for: .milliseconds(20)) }
        }
        // `offline`, acknowledged within a second, then a goodbye; else the connection just
        // closes with the process and the broker publishes the will (`offline` too).
        var goodbye = false
        if let mid = client.publish(topic + "/status", Array("offline".utf8), retain: true) {
            for _ in 0..<50 {
                if mailbox.inbox.withLock({ $0.acks.contains(mid) }) { goodbye = true; break }
                usleep(20_000)
            }
        }
        client.stop(goodbye: goodbye)
    }

    // MARK: commands

    /// A command (`<topic>/cmd`, `treeline/fleet/cmd`): the socket's JSON with an `"id"`; its
    /// answer, with the id, goes to `<topic>/reply`. Or the fleet's regions.
    func handle(_ messageTopic: String, _ payload: [UInt8]) async {
        guard commands else { return }  // (a message of a session an earlier run subscribed)
        if messageTopic == Self.fleetRegions {
            let regions: [Region]
            if payload.isEmpty {
                regions = []  // the retained collection cleared: no fleet regions
            } else {
                do { regions = try RegionFile.parse(payload, file: Self.fleetRegions) } catch {
                    logger.error("fleet regions refused, those in force stay: \(error.description)")
                    return
                }
            }
            switch await engine.mergeFleet(regions) {
            case .success: break
            case .failure(let e): logger.error("fleet regions: \(e.message)")
            }
            return
        }
        var out: [UInt8] = Array(#"{"id":"#.utf8)
        let answer: Result<[UInt8], RequestError>
        let (parsed, id) = Request.parseWithID(payload)
        if let id { JSONBytes.appendString(id, to: &out) } else { out.append(contentsOf: "null".utf8) }
        switch parsed {
        case .success(.subscribe):
            answer = .failure(RequestError("subscribe is the socket's: over MQTT, subscribe to \(topic)/events"))
        case .success(let request):
            answer = await engine.answer(request)
        case .failure(let e):
            answer = .failure(e)
        }
        switch answer {
        case .success(let json):
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: json.dropFirst())
        case .failure(let e):
            out.append(contentsOf: #","class":"ERROR","message":"#.utf8)
            JSONBytes.appendString(e.message, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        _ = client.publish(topic + "/reply", out)
    }

    // MARK: OwnTracks

    /// What the OwnTracks side last published.
    struct OwnTracksSent {
        var location: (time: UTCTime, coordinate: Coordinate, inside: [String])?
        var regionsVersion = -1
        var created: [String: UTCTime] = [:]
    }
    /// Touched only by the publishing loop (`run`), like the loop's own state.
    var sent = OwnTracksSent()

    /// A location when `interval` passed (receiver time) or the board moved `distance` or its
    /// regions changed; the waypoints when the regions changed (both retained).
    func publishOwnTracks(_ ot: OwnTracksTarget, fresh: Bool) async {
        let view = await engine.ownTracks(kinds: ot.kinds)
        if fresh { sent.regionsVersion = -1 }
        sent.created = view.created
        let (previous, version) = (sent.location, sent.regionsVersion)
        if view.regionsVersion != version {
            _ = client.publish(ot.base + "/waypoints", OwnTracks.waypoints(view.waypoints), retain: true)
            sent.regionsVersion = view.regionsVersion
        }
        guard let p = view.position else { return }
        let ids = view.inside.map(\.id)
        if let last = previous, !fresh {
            guard p.time > last.time else { return }
            let elapsed = Double(p.time.nanoseconds - last.time.nanoseconds) / 1e9
            let moved = Geodesic.wgs84.distance(last.coordinate, p.coordinate)
            guard elapsed >= ot.interval || moved >= ot.distance || ids != last.inside else { return }
        }
        _ = client.publish(ot.base, OwnTracks.location(p, tid: ot.tid, inside: view.inside), retain: true)
        sent.location = (p.time, p.coordinate, ids)
    }

    /// An enter or exit of a region of the chosen kinds as an OwnTracks transition.
    func transition(_ e: JournalEvent, _ ot: OwnTracksTarget) {
        guard e.entry.type == "enter" || e.entry.type == "exit", ot.kinds.contains(e.entry.kind),
              let doc = try? JSONDocument.parse(e.entry.json), let lat = doc.root["lat"]?.number, let lon = doc.root["lon"]?.number else { return }
        let p = OwnTracks.Position(time: e.entry.time, coordinate: Coordinate(latitude: lat, longitude: lon), accuracy: doc.root["error_m"]?.number ?? 1)
        let created = sent.created[e.entry.region] ?? UTCTime(nanoseconds: 0)
        let payload = OwnTracks.transition(entering: e.entry.type == "enter", region: (e.entry.region, doc.root["name"]?.string ?? e.entry.region),
                                           created: created, at: p, tid: ot.tid)
        _ = client.publish(ot.base + "/event", payload)
    }
}
