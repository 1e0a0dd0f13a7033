import JSON
import Yams

/// The config's `mqtt:` section: the broker, the board's topics, the commands it takes, and
/// OwnTracks.
extension ConfigReader {
    /// `mqtt:`, checked as a whole once its keys are read: a broker is required, and the TLS
    /// files must make sense together.
    func mqtt(_ node: Node) -> MQTTConfig {
        var m = MQTTConfig()
        section(node, "mqtt", [
            "host": { n, key in if let s = self.string(n, key) { m.host = s } },
            "port": { n, key in if let p = self.port(n, key) { m.port = p } },
            "client_id": { n, key in
                guard let s = self.string(n, key) else { return }
                // The broker's limit for MQTT 3.1.1 ids is 65535 bytes; topics carry it, so no wildcards.
                if s.contains(where: { "#+/".contains($0) }) { self.issue(n, key, "must not contain '#', '+' or '/' (it names the board in topics)") } else { m.clientID = s }
            },
            "username": { n, key in if let s = self.string(n, key) { m.username = s } },
            "password_file": { n, key in if let s = self.string(n, key) { m.passwordFile = s } },
            "topic": { n, key in
                guard let s = self.string(n, key) else { return }
                if s.contains(where: { "#+".contains($0) }) || s.hasSuffix("/") { self.issue(n, key, "must be a topic without '#', '+' or a trailing '/'") } else { m.topic = s }
            },
            "keepalive_s": { n, key in if let k = self.whole(n, key, min: 5, max: 65535, "must be whole seconds from 5 to 65535") { m.keepalive = k } },
            "commands": { n, key in if let c = self.mqttCommands(n, key) { m.commands = c } },
            "fleet_regions": { n, key in if let b = self.flag(n, key) { m.fleetRegions = b } },
            "owntracks": { n, _ in m.ownTracks = self.ownTracks(n) },
            "home_assistant": { n, key in m.homeAssistant = self.homeAssistant(n, key) },
            "tls": { n, _ in
                self.section(n, "mqtt.tls", [
                    "ca_file": { n, key in if let s = self.string(n, key) { m.caFile = s } },
                    "cert_file": { n, key in if let s = self.string(n, key) { m.certFile = s } },
                    "key_file": { n, key in if let s = self.string(n, key) { m.keyFile = s } },
                ])
            },
        ])
        if m.host.isEmpty { issue(node, "mqtt.host", "is required: the broker's host name or address") }
        if (m.certFile == nil) != (m.keyFile == nil) { issue(node, "mqtt.tls", "cert_file and key_file go together (a client certificate and its key)") }
        if m.certFile != nil && m.caFile == nil { issue(node, "mqtt.tls", "a client certificate needs ca_file (the CA of the broker's certificate)") }
        return m
    }

    /// `mqtt.owntracks`: who the board is on OwnTracks' maps, how often it reports, and for
    /// which kinds of region.
    func ownTracks(_ node: Node) -> OwnTracksConfig {
        var o = OwnTracksConfig()
        section(node, "mqtt.owntracks", [
            "user": { n, key in o.user = self.topicLevel(n, key) },
            "device": { n, key in o.device = self.topicLevel(n, key) },
            "tid": { n, key in
                guard let s = self.string(n, key) else { return }
                if (1...2).contains(s.count) { o.tid = s } else { self.issue(n, key, "must be 1 or 2 characters (the tracker id on OwnTracks' maps)") }
            },
            "interval_s": { n, key in if let x = self.number(n, key, min: 1) { o.intervalSeconds = x } },
            "distance_m": { n, key in if let x = self.number(n, key, min: 0) { o.distance = x } },
            "kinds": { n, key in if let k = self.ownTracksKinds(n, key) { o.kinds = k } },
            "transitions": { n, key in if let b = self.flag(n, key) { o.transitions = b } },
            "crew": { n, key in if let b = self.flag(n, key) { o.crew = b } },
        ])
        return o
    }

    /// `mqtt.home_assistant`: `true` (discovery with the defaults), `false`, or the prefix, the
    /// kinds with an inside sensor each, and whether plants get a Water button.
    func homeAssistant(_ node: Node, _ key: String) -> HomeAssistantConfig? {
        if node.mapping == nil {
            guard let on = flag(node, key) else { return nil }
            return on ? HomeAssistantConfig() : nil
        }
        var h = HomeAssistantConfig()
        section(node, "mqtt.home_assistant", [
            "prefix": { n, key in
                guard let s = self.string(n, key) else { return }
                if s.isEmpty || s.utf8.count > 64 || s.contains(where: { "#+".contains($0) }) || s.hasPrefix("/") || s.hasSuffix("/") {
                    self.issue(n, key, "must be a topic of 1 to 64 bytes without '#', '+' or a leading or trailing '/' (Home Assistant's default: homeassistant)")
                } else { h.prefix = s }
            },
            "inside": { n, key in if let k = self.ownTracksKinds(n, key) { h.inside = k } },
            "buttons": { n, key in if let b = self.flag(n, key) { h.buttons = b } },
        ])
        return h
    }

    /// A string that is one level of a topic (OwnTracks' user and device): no wildcard, no '/'.
    func topicLevel(_ node: Node, _ key: String) -> String? {
        guard let s = string(node, key) else { return nil }
        if s.contains(where: { "#+/".contains($0) }) { issue(node, key, "must not contain '#', '+' or '/' (it is a topic level)"); return nil }
        return s
    }

    /// `mqtt.owntracks.kinds`: a list of plant, album and reforestation.
    func ownTracksKinds(_ node: Node, _ key: String) -> Set<String>? {
        guard let seq = node.sequence else { issue(node, key, "must be a list of kinds (plant, album, reforestation)"); return nil }
        let kinds = Set(seq.compactMap { self.string($0, key) })
        if let bad = kinds.subtracting(["plant", "album", "reforestation"]).first {
            issue(node, key, "unknown kind '\(TextExcerpt.short(bad))': plant, album or reforestation")
            return nil
        }
        return kinds
    }

    /// `mqtt.commands`: a list of `MQTTConfig.commandNames` (in order, once each), or `false`
    /// for none. `true`, the old form that took every command, is refused: the list is the point.
    func mqttCommands(_ node: Node, _ key: String) -> [String]? {
        let allowed = MQTTConfig.commandNames
        guard let seq = node.sequence else {
            if let s = node.scalar?.string, s.utf8.count <= 8, ["true", "yes", "on"].contains(s.lowercased()) {
                issue(node, key, "true would take every command from any client of the broker: list the ones to take, e.g. [water, add_region] (allowed: \(allowed.joined(separator: ", ")))")
                return nil
            }
            if let s = node.scalar?.string, s.utf8.count <= 8, ["false", "no", "off"].contains(s.lowercased()) { return [] }
            issue(node, key, "must be a list of commands, e.g. [water, add_region] (allowed: \(allowed.joined(separator: ", "))), or false")
            return nil
        }
        var names: [String] = []
        var good = true
        for item in seq {
            guard let name = string(item, key) else { good = false; continue }
            if name == "subscribe" {
                issue(item, key, "subscribe is never taken over MQTT: subscribe to <topic>/events on the broker")
                good = false
            } else if !allowed.contains(name) {
                issue(item, key, "unknown command '\(TextExcerpt.short(name))': allowed are \(allowed.joined(separator: ", "))")
                good = false
            } else if !names.contains(name) {
                names.append(name)
            }
        }
        return good ? names : nil
    }
}
