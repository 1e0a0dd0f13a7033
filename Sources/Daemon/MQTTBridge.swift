import Config
import Engine
import Foundation
import Geo
import Logging
import MQTT
import NIOCore
import Server
import ServiceLifecycle
import Store
import Synchronization
import JSON
import Regions
import Protocol

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
        /// Commands, the fleet's regions, the crew's locations, HA's configs: bounded.
        var received = MQTTInbox()
    }
    final class Mailbox: Sendable {
        let inbox = Mutex(Inbox())
    }
    let mailbox = Mailbox()

    /// OwnTracks: who (`owntracks/<user>/<device>`), the tracker id, how often, which kinds,
    /// whether transitions go, whether the crew is read.
    struct OwnTracksTarget: Sendable {
        var user: String
        var device: String
        var tid: String
        var interval: Double
        var distance: Double
        var kinds: Set<String>
        var transitions = false
        var crew = true
        /// Where this board published under the earlier defaults (`owntracks/treeline/<client
        /// id>`), when it takes the defaults: a retained location found there (the crew's
        /// subscription brings it) is cleared with the waypoints, so no ghost of the board stays
        /// in Home Assistant, Recorder or the crew.
        var formerBase: String?

        var base: String { "owntracks/\(user)/\(device)" }
        /// The name Home Assistant gives a zone it makes of this board's waypoint (OwnTracks'
        /// integration: "<user> <device> - <desc>"); a transition's `desc`, so that it matches.
        func zoneName(_ name: String) -> String { "\(user) \(device) - \(name)" }
        static let crewTopic = "owntracks/+/+"
    }
    let ownTracks: OwnTracksTarget?

    /// Home Assistant's discovery: the board, and the kinds of region with an inside sensor or
    /// (plants) a Water button.
    struct HomeAssistantTarget: Sendable {
        var board: HomeAssistant.Board
        var inside: Set<String>
        var buttons: Bool

        var statusTopic: String { board.prefix + "/status" }
        var configFilter: String { "\(board.prefix)/+/\(board.node)/+/config" }
        /// Whether `topic` is one of this board's config topics.
        func isConfig(_ topic: String) -> Bool {
            let p = topic.split(separator: "/", omittingEmptySubsequences: false)
            let prefix = board.prefix.split(separator: "/", omittingEmptySubsequences: false).count
            return p.count == prefix + 4 && topic.hasPrefix(board.prefix + "/") && p[prefix + 1] == board.node[...] && p[prefix + 3] == "config"
        }
    }
    let homeAssistant: HomeAssistantTarget?

    /// The commands taken from the broker (`mqtt.commands`; none: no command topic is
    /// subscribed). Touched only by the publishing loop.
    var commands: MQTTCommands
    /// What Home Assistant's Water buttons send on `<topic>/ha`: `water` only.
    var buttonCommands: MQTTCommands
    /// Whether the fleet's regions are taken (`mqtt.fleet_regions`), within `fleetLimits`.
    let takesFleetRegions: Bool
    let fleetLimits: FleetRegionLimits
    static let fleetCommands = "treeline/fleet/cmd"
    static let fleetRegions = "treeline/fleet/regions"

    init(settings: MQTTSettings, topic: String, ownTracks: OwnTracksTarget?, homeAssistant: HomeAssistantTarget?, commands allowed: [String],
         fleetRegions: Bool, fleetLimits: FleetRegionLimits = .standard, store: Store, engine: Engine, logger: Logger) throws(MQTTError) {
        client = try MQTTClient(settings, will: (topic + "/status", "offline"))
        self.ownTracks = ownTracks
        self.homeAssistant = homeAssistant
        commands = MQTTCommands(allowed: allowed, topic: topic)
        buttonCommands = MQTTCommands(allowed: ["water"], topic: topic)
        buttonCommands.rule = "\(topic)/ha takes water only (Home Assistant's buttons)"
        takesFleetRegions = fleetRegions
        self.fleetLimits = fleetLimits
        self.store = store
        self.engine = engine
        self.topic = topic
        self.logger = logger
        let mailbox = self.mailbox
        let client = self.client
        let brokerAddress = "\(settings.host):\(settings.port)"
        client.onConnect = { result in
            switch result {
            case .success:
                mailbox.inbox.withLock { $0.connected = true; $0.fresh = true }
                // Commands at QoS 0: one sent while the board was away is not run days later.
                // What is not taken is unsubscribed: an earlier run's session may hold it.
                var topics = [(topic + "/cmd", 0, !allowed.isEmpty), (Self.fleetCommands, 0, !allowed.isEmpty), (Self.fleetRegions, 1, fleetRegions),
                              (OwnTracksTarget.crewTopic, 0, ownTracks?.crew == true), (topic + "/ha", 0, homeAssistant?.buttons == true)]
                if let ha = homeAssistant { topics += [(ha.statusTopic, 0, true), (ha.configFilter, 0, true)] }
                for (t, qos, take) in topics {
                    if take { client.subscribe(t, qos: Int32(qos)) } else { client.unsubscribe(t) }
                }
                logger.notice("MQTT: connected to \(brokerAddress) as \(settings.clientID)")
            case .failure(let e):
                logger.error("MQTT: \(brokerAddress): \(e.description)")
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
            if let e, was || first { logger.warning("MQTT: \(brokerAddress): \(e.description); events wait in the journal") }
        }
        client.onPublished = { mid in mailbox.inbox.withLock { $0.acks.append(mid) } }
        client.onMessage = { messageTopic, payload, retained in
            let kind: MQTTInbox.Kind
            if messageTopic.hasPrefix("owntracks/") {
                kind = .crew
            } else if let ha = homeAssistant, ha.isConfig(messageTopic) {
                kind = .config
            } else if messageTopic == Self.fleetRegions {
                kind = .latest(limit: fleetLimits.bytes)
            } else {
                kind = .other
            }
            mailbox.inbox.withLock { $0.received.take(messageTopic, payload, retained: retained, kind: kind) }
        }
        client.onLog = { logger.warning("MQTT: \($0)") }
    }

    /// The journal's events in flight to the broker: the last acknowledged seq (every one up to
    /// it is with the broker), the last published, and those published and not yet acknowledged,
    /// in seq order, with when (monotonic ns).
    struct Window {
        var acked: Int64
        /// The last seq whose enter or exit went to OwnTracks as a transition.
        var transitions: Int64
        var published: Int64
        var pending = CircularBuffer<(seq: Int64, mid: Int32, at: UInt64)>()
        /// Acknowledged before the ones published earlier were.
        var early = Set<Int32>()
        /// What the store last saved.
        var saved: (acked: Int64, transitions: Int64)

        init(acked: Int64, transitions: Int64) {
            self.acked = acked
            self.transitions = transitions
            published = acked
            saved = (acked, transitions)
        }

        /// Acknowledgements, each for a message published before this look: the acknowledged seq
        /// moves up to the first still waiting.
        mutating func acknowledge(_ acks: [Int32]) {
            for mid in acks where pending.contains(where: { $0.mid == mid }) { early.insert(mid) }
            while let first = pending.first, early.remove(first.mid) != nil {
                acked = first.seq
                pending.removeFirst()
            }
        }

        /// From the acknowledged seq again: repeats, never a gap or a stall.
        mutating func rewind() {
            pending.removeAll()
            early.removeAll()
            published = acked
        }
    }

    func run() async throws {
        var window: Window
        do {
            // The first run with MQTT on a board with a history publishes the journal (events),
            // but does not replay old enters and exits into OwnTracks as transitions.
            if let p = try store.mqttProgress() { window = Window(acked: p.acked, transitions: p.transitions) } else {
                window = Window(acked: 0, transitions: try store.lastSeq())
            }
        } catch { throw DaemonError(error.description) }
        await engine.setMQTTBridged()
        if let ot = ownTracks, ot.crew { await engine.startCrew(own: ot.base) }
        try client.start()
        var lastState: [UInt8] = []
        var stateAt: UInt64 = 0
        var ownTracksAt: UInt64 = 0
        let started = monotonicNanos()
        var everConnected = false, toldAbsent = false
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let (connected, fresh, acks, received) = mailbox.inbox.withLock { i in
                defer { i.fresh = false; i.acks.removeAll(keepingCapacity: true) }
                return (i.connected, i.fresh, i.acks, i.received.drain())
            }
            for m in received.messages { await handle(m) }
            for (t, payload) in received.crew {
                if let ot = ownTracks, let former = ot.formerBase, t == former, former != ot.base {
                    // This board's location under the earlier default topic: cleared (with its
                    // waypoints), only when there is one, as an empty message makes HA log an error.
                    if !payload.isEmpty { for cleared in [former, former + "/waypoints"] { _ = client.publish(cleared, [], retain: true) } }
                } else if ownTracks?.crew == true {
                    await takeCrew(t, payload)
                }
            }
            if haSent.seen.count + received.configs.count <= MQTTInbox.maxConfigTopics { haSent.seen.formUnion(received.configs) }
            tellDropped(received.dropped)
            everConnected = everConnected || connected
            if !everConnected, !toldAbsent, monotonicNanos() - started > 3_000_000_000 {
                toldAbsent = true
                logger.warning("MQTT: cannot reach the broker at \(client.settings.host):\(client.settings.port) yet; retrying (1 s, doubling to 30 s), events wait in the journal")
            }
            window.acknowledge(acks)
            if fresh {
                // libmosquitto resends what it has in flight on the new connection: only the
                // status is new. The OwnTracks side starts afresh (waypoints again).
                _ = client.publish(topic + "/status", Array("online".utf8), retain: true)
                lastState = []
                if let ot = ownTracks { await publishOwnTracks(ot, fresh: true) }
                if let ha = homeAssistant { await publishHomeAssistant(ha, fresh: true) }
            }
            let now = monotonicNanos()
            // A message the library lost (never acknowledged in a minute, connected): from the
            // acknowledged seq again.
            if connected, let oldest = window.pending.first, now - oldest.at > 60_000_000_000 {
                logger.warning("MQTT: seq \(oldest.seq) not acknowledged in 60 s; publishing again after seq \(window.acked)")
                window.rewind()
            }
            let full = connected && publishBacklog(&window, now: now)
            saveProgress(&window)
            if connected, let ha = homeAssistant { await publishLocation(ha) }
            if connected, ownTracks != nil || homeAssistant != nil, now - ownTracksAt >= 1_000_000_000 {
                ownTracksAt = now
                if let ot = ownTracks { await publishOwnTracks(ot, fresh: false) }
                if let ha = homeAssistant { await publishHomeAssistant(ha, fresh: false) }
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
        sayGoodbye()
    }

    /// Publishes the journal's next events, as many as the window has room for (each with its
    /// OwnTracks transition when due); true when the window filled (more wait).
    func publishBacklog(_ window: inout Window, now: UInt64) -> Bool {
        guard window.pending.count < Self.window else { return false }
        do {
            let events = try store.events(after: window.published, limit: Self.window - window.pending.count)
            if let first = events.first, first.seq > window.published + 1, window.published > 0 || first.seq > 1 {
                // Only retention can do this, and it keeps what was not acknowledged.
                logger.warning("MQTT: seqs \(window.published + 1)–\(first.seq - 1) are no longer in the journal")
            }
            var line: [UInt8] = []
            for e in events {
                line.removeAll(keepingCapacity: true)
                e.appendLine(to: &line)
                line.removeLast()
                guard let mid = client.publish(topic + "/events", line) else { break }
                window.pending.append((e.seq, mid, now))
                window.published = e.seq
                if let ot = ownTracks, e.seq > window.transitions {
                    transition(e, ot)
                    window.transitions = e.seq
                }
            }
            return events.count == Self.window
        } catch {
            logger.error("MQTT: \(error); tried again shortly")
            return false
        }
    }

    /// The acknowledged seq and the last transition, saved when they moved.
    func saveProgress(_ window: inout Window) {
        guard (window.acked, window.transitions) != window.saved else { return }
        do {
            try store.setMQTTProgress(acked: window.acked, transitions: window.transitions)
            window.saved = (window.acked, window.transitions)
        } catch {
            logger.error("MQTT: \(error)")
        }
    }

    /// `offline`, acknowledged within a second, then a goodbye; else the connection just
    /// closes with the process and the broker publishes the will (`offline` too).
    func sayGoodbye() {
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

    /// A command (`<topic>/cmd`, `treeline/fleet/cmd`): the socket's JSON with an `"id"`, let
    /// through by `MQTTCommands`; its answer, with the id, goes to `<topic>/reply`. Or the
    /// fleet's regions.
    func handle(_ m: MQTTInbox.Message) async {
        let (messageTopic, payload, retained) = (m.topic, m.payload, m.retained)
        if messageTopic == Self.fleetRegions {
            if takesFleetRegions {
                if let size = m.oversized {
                    logger.error("fleet regions refused, those in force stay: \(fleetLimits.problem(bytes: size) ?? "\(size) bytes")")
                } else {
                    await takeFleetRegions(payload)
                }
            }
            return
        }
        if let ha = homeAssistant, messageTopic == ha.statusTopic {
            if payload == Array("online".utf8) { haSent.republish = true }
            return
        }
        // (a message of a session an earlier run subscribed)
        // Home Assistant's buttons: water only, whatever `commands` lists.
        let fromButtons = homeAssistant?.buttons == true && messageTopic == topic + "/ha"
        guard fromButtons || (!commands.allowed.isEmpty && (messageTopic == topic + "/cmd" || messageTopic == Self.fleetCommands)) else { return }
        if retained {
            let words = fromButtons ? buttonCommands.retained(on: messageTopic) : commands.retained(on: messageTopic)
            if let words { logger.notice("\(words)") }
            return
        }
        let reply: [UInt8]
        if let size = m.oversized {
            reply = MQTTCommands.Refusal(id: nil, message: "a command is at most \(MQTTInbox.maxCommandBytes) bytes over MQTT; this one is \(size)").reply
        } else {
            switch (fromButtons ? buttonCommands : commands).check(payload) {
            case .failure(let refusal): reply = refusal.reply
            case .success(let command): reply = await execute(command)
            }
        }
        _ = client.publish(topic + "/reply", reply)
    }

    /// Runs a command let through, unless it changes something and its key was answered before
    /// (then that answer again): the engine checks, runs and records in one turn, so a repeat
    /// racing its original still runs once. The reply with its id is what is recorded.
    func execute(_ command: MQTTCommands.Accepted) async -> [UInt8] {
        let id = command.id
        switch await engine.answer(command.request, key: command.key, recorded: { MQTTCommands.reply(id: id, .success($0)) }) {
        case .success(.repeated(let earlier)): return earlier
        case .success(.ran(let answer)): return MQTTCommands.reply(id: id, answer)
        case .failure(let e): return MQTTCommands.reply(id: id, .failure(e))
        }
    }

    /// The fleet's regions (retained on `treeline/fleet/regions`): merged, if within the limits.
    func takeFleetRegions(_ payload: [UInt8]) async {
        let regions: [Region]
        if let problem = fleetLimits.problem(bytes: payload.count) ?? fleetLimits.problem(document: payload) {
            logger.error("fleet regions refused, those in force stay: \(problem)")
            return
        }
        if payload.isEmpty {
            regions = []  // the retained collection cleared: no fleet regions
        } else {
            do { regions = try RegionFile.parse(payload, file: Self.fleetRegions) } catch {
                logger.error("fleet regions refused, those in force stay: \(error.description)")
                return
            }
        }
        if let problem = fleetLimits.problem(regions) {
            logger.error("fleet regions refused, those in force stay: \(problem)")
            return
        }
        switch await engine.mergeFleet(regions) {
        case .success: break
        case .failure(let e): logger.error("fleet regions: \(e.message)")
        }
    }

    // MARK: OwnTracks

    /// What the OwnTracks side last published.
    struct OwnTracksSent {
        var location: (time: UTCTime, coordinate: Coordinate, inside: [String])?
        var regionsVersion = -1
        var created: [String: UTCTime] = [:]
        /// The regions sent as waypoints, by id, with their names.
        var waypoints: [String: String] = [:]
    }
    /// Touched only by the publishing loop (`run`), like the loop's own state.
    var sent = OwnTracksSent()
    /// What the Home Assistant side last published, and the crew's and the floods' log lines;
    /// touched only by the loop.
    var haSent = HomeAssistantSent()
    var told = Told()

    /// A location when `interval` passed (receiver time) or the board moved `distance` or its
    /// regions changed; the waypoints when the regions changed (both retained).
    func publishOwnTracks(_ ot: OwnTracksTarget, fresh: Bool) async {
        let view = await engine.snapshot(added: true).ownTracks(kinds: ot.kinds)
        if fresh { sent.regionsVersion = -1 }
        sent.created = view.created
        let (previous, version) = (sent.location, sent.regionsVersion)
        if view.regionsVersion != version {
            sent.waypoints = Dictionary(view.waypoints.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
            _ = client.publish(ot.base + "/waypoints", OwnTracks.waypoints(view.waypoints), retain: true)
            sent.regionsVersion = view.regionsVersion
        }
        guard let p = view.position else { return }
        let ids = view.inside.map(\.id)
        if let last = previous, !fresh {
            guard p.time > last.time else { return }
            let elapsed = p.time.seconds(since: last.time)
            let moved = Geodesic.wgs84.distance(last.coordinate, p.coordinate)
            guard elapsed >= ot.interval || moved >= ot.distance || ids != last.inside else { return }
        }
        _ = client.publish(ot.base, OwnTracks.location(p, tid: ot.tid, inside: view.inside), retain: true)
        sent.location = (p.time, p.coordinate, ids)
    }

    /// An enter or exit of a region sent as a waypoint, as an OwnTracks transition named as
    /// Home Assistant names the zone it made of that waypoint (only with `transitions: true`).
    func transition(_ e: JournalEvent, _ ot: OwnTracksTarget) {
        guard ot.transitions, e.entry.type == "enter" || e.entry.type == "exit", sent.waypoints[e.entry.region] != nil,
              let doc = try? JSONDocument.parse(e.entry.json), let lat = doc.root["lat"]?.number, let lon = doc.root["lon"]?.number else { return }
        let p = OwnTracks.Position(time: e.entry.time, coordinate: Coordinate(latitude: lat, longitude: lon), accuracy: doc.root["error_m"]?.number ?? 1)
        let created = sent.created[e.entry.region] ?? UTCTime(nanoseconds: 0)
        let payload = OwnTracks.transition(entering: e.entry.type == "enter", region: (e.entry.region, ot.zoneName(sent.waypoints[e.entry.region] ?? e.entry.region)),
                                           created: created, at: p, tid: ot.tid)
        _ = client.publish(ot.base + "/event", payload)
    }
}
