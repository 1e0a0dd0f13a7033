import Engine
import Foundation
import Geo
import JSON
import Logging
import MQTT

/// Home Assistant's discovery and the crew: what the bridge publishes for the one and takes
/// from the broker for the other.
extension MQTTBridge {
    /// What the Home Assistant side last published.
    struct HomeAssistantSent {
        /// Config topic → config, as retained on the broker.
        var configs: [String: [UInt8]] = [:]
        var regionsVersion = -1
        /// Configs of this board's node seen retained on the broker (an earlier run's): cleared
        /// unless they are among `configs`.
        var seen: Set<String> = []
        /// Home Assistant said it (re)started: every config again.
        var republish = false
        var location: (time: UTCTime, inside: [String])?
        var sensors: (plantsDue: Int, captures: Int, fixAge: Int?)?
        var sensorsAt: UInt64 = 0
        var captures = (count: 0, at: UInt64(0), day: Int64(-1))
    }

    /// What the loop said once (or once a minute) in the log.
    struct Told {
        var entitiesCapped = false
        var unsafeIDs = false
        var crewRefused: UInt64 = 0
        var dropped: UInt64 = 0
        var droppedCount = 0
    }

    /// Entities for regions at most (inside sensors and Water buttons): a country's regions
    /// would be a country of entities.
    static let maxRegionEntities = 1_000

    /// The configs (when the regions changed, Home Assistant restarted or the connection is
    /// new), `<topic>/location` again on a new connection, and `<topic>/sensors` when they
    /// changed, the fix's age at most every 5 s; all retained. Once a second.
    func publishHomeAssistant(_ ha: HomeAssistantTarget, fresh: Bool) async {
        let now = monotonicNanos()
        var kinds = ha.inside
        if ha.buttons { kinds.insert("plant") }
        let all = fresh || haSent.republish
        let view = await engine.snapshot().homeAssistant(kinds: kinds, since: all ? -1 : haSent.regionsVersion, now: now)
        if let regions = view.regions {
            publishConfigs(ha, regions, force: all)
            haSent.regionsVersion = view.regionsVersion
            haSent.republish = false
        }
        clearSeen()
        // A new connection: the location again (`publishLocation`, next in the loop's turn).
        if fresh { haSent.location = nil }
        // The counts at once; the fix's age, which changes every second, at most every 5 s.
        let figures = (plantsDue: view.plantsDue, captures: capturesToday(view, now: now), fixAge: view.fixAge)
        let last = haSent.sensors
        let countsChanged = last.map { $0.plantsDue != figures.plantsDue || $0.captures != figures.captures } ?? true
        if fresh || countsChanged || (last?.fixAge != figures.fixAge && now - haSent.sensorsAt >= 5_000_000_000) {
            _ = client.publish(topic + "/sensors", HomeAssistant.sensors(plantsDue: figures.plantsDue, capturesToday: figures.captures, fixAge: figures.fixAge), retain: true)
            haSent.sensors = figures
            haSent.sensorsAt = now
        }
    }

    /// `<topic>/location` for a new fix: each fix a second or more of receiver time after the
    /// last published, and any whose regions inside changed. Looked at on every turn of the
    /// loop (a fix's time is one hop to the engine; the rest only when it is new).
    func publishLocation(_ ha: HomeAssistantTarget) async {
        guard let t = await engine.lastFixTime(), t != haSent.location?.time, let now = await engine.location() else { return }
        // Within the second: only a change of the regions inside goes now.
        if let last = haSent.location, now.position.time.seconds(since: last.time) < 1, now.inside == last.inside { return }
        _ = client.publish(topic + "/location", HomeAssistant.location(now.position, fix: now.fix, inside: now.inside), retain: true)
        haSent.location = (now.position.time, now.inside)
    }

    /// Every entity's config that changed (all with `force`), and an empty retained payload for
    /// each that is gone (its region removed, or its kind no longer asked for).
    func publishConfigs(_ ha: HomeAssistantTarget, _ regions: [HomeAssistant.RegionRef], force: Bool) {
        var wanted = HomeAssistant.boardEntities(ha.board)
        var unsafe = 0, capped = 0
        let boardCount = wanted.count
        for r in regions {
            var list: [HomeAssistant.Entity?] = []
            if r.kind == "plant", ha.buttons { list.append(HomeAssistant.water(ha.board, r)) }
            if ha.inside.contains(r.kind) { list.append(HomeAssistant.inside(ha.board, r)) }
            for e in list {
                guard let e else { unsafe += 1; continue }
                if wanted.count - boardCount >= Self.maxRegionEntities { capped += 1; continue }
                wanted.append(e)
            }
        }
        if unsafe > 0, !told.unsafeIDs {
            told.unsafeIDs = true
            logger.warning("Home Assistant: \(unsafe) regions get no entity: their ids are not plain (1 to 64 letters, digits, spaces and - _ . :)")
        }
        if capped > 0, !told.entitiesCapped {
            told.entitiesCapped = true
            logger.warning("Home Assistant: \(capped) region entities left out: at most \(Self.maxRegionEntities) (inside sensors and Water buttons); ask for fewer kinds in mqtt.home_assistant.inside")
        }
        var next: [String: [UInt8]] = [:]
        for e in wanted where next[e.topic] == nil {
            next[e.topic] = e.config
            if force || haSent.configs[e.topic] != e.config { _ = client.publish(e.topic, e.config, retain: true) }
        }
        for t in haSent.configs.keys where next[t] == nil { _ = client.publish(t, [], retain: true) }
        haSent.configs = next
    }

    /// Clears the configs an earlier run left retained that are not wanted now.
    func clearSeen() {
        guard haSent.regionsVersion >= 0 else { return }
        for t in haSent.seen where haSent.configs[t] == nil { _ = client.publish(t, [], retain: true) }
        haSent.seen.removeAll()
    }

    /// Captures since the board's local midnight, read again every 10 s.
    /// The day is the board's receiver time (the last fix of this run carried on by its age),
    /// else the system clock: a fix restored from before a restart is not today.
    func capturesToday(_ view: Snapshot.HomeAssistantView, now: UInt64) -> Int {
        var seconds = Date().timeIntervalSince1970
        if let p = view.position, let age = view.fixAge { seconds = Double(p.time.nanoseconds) / 1e9 + Double(age) }
        let midnight = Calendar.current.startOfDay(for: Date(timeIntervalSince1970: seconds)).timeIntervalSince1970
        let day = Int64(midnight)
        guard day != haSent.captures.day || now - haSent.captures.at >= 10_000_000_000 else { return haSent.captures.count }
        do {
            haSent.captures = (try store.captureCount(since: UTCTime(nanoseconds: day * UTCTime.nanosPerSecond)), now, day)
        } catch {
            logger.error("Home Assistant: \(error)")
        }
        return haSent.captures.count
    }

    // MARK: the crew

    /// A location from `owntracks/+/+`: the crew's book, in the engine. A refusal is logged at
    /// most once a minute.
    func takeCrew(_ messageTopic: String, _ payload: [UInt8]) async {
        if case .refused(let why) = await engine.takeCrew(topic: messageTopic, payload: payload) {
            let now = monotonicNanos()
            if told.crewRefused == 0 || now - told.crewRefused >= 60_000_000_000 {
                told.crewRefused = now
                logger.notice("MQTT: a crew location on \(TextExcerpt.short(messageTopic)) refused: \(why) (said at most once a minute)")
            }
        }
    }

    /// Messages dropped for a flood, said at most once a minute with their count.
    func tellDropped(_ n: Int) {
        told.droppedCount += n
        let now = monotonicNanos()
        guard told.droppedCount > 0, told.dropped == 0 || now - told.dropped >= 60_000_000_000 else { return }
        logger.warning("MQTT: \(told.droppedCount) messages dropped: more were waiting than the bridge keeps (\(MQTTInbox.maxMessages) commands, \(MQTTInbox.maxCrewTopics) crew topics), or a crew location was over \(CrewBook.maxPayload) bytes (a flood on the broker?)")
        told.dropped = now
        told.droppedCount = 0
    }
}
