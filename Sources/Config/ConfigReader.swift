import Geo
import Rules
import Yams
import JSON

/// Reads a composed YAML tree into a `TreelineConfig`, collecting every problem with its line,
/// column and key. Each key is named once, in the table of its section, with what it sets.
final class ConfigReader {
    typealias Keys = KeyValuePairs<String, (Node, String) -> Void>
    let file: String
    private(set) var config = TreelineConfig()
    private(set) var issues: [ConfigIssue] = []

    init(file: String) { self.file = file }

    func read(_ root: Node) {
        section(root, "", [
            "gpsd": { n, _ in
                self.section(n, "gpsd", [
                    "host": { n, key in if let s = self.string(n, key) { self.config.gpsdHost = s } },
                    "port": { n, key in
                        guard let p = self.number(n, key, min: 1) else { return }
                        if p == p.rounded(), p <= 65535 { self.config.gpsdPort = Int(p) } else { self.issue(n, key, "must be a port number from 1 to 65535") }
                    },
                ])
            },
            "regions": { n, key in
                if let seq = n.sequence {
                    let files = seq.compactMap { self.string($0, key) }
                    if files.isEmpty { self.issue(n, key, "must name at least one regions file") } else { self.config.regions = files }
                } else if let s = self.string(n, key) {
                    self.config.regions = [s]
                }
            },
            "socket": { n, key in if let s = self.string(n, key) { self.config.socket = s } },
            "database": { n, key in if let s = self.string(n, key) { self.config.database = s } },
            "species": { n, key in if let s = self.string(n, key) { self.config.species = s } },
            "journal": { n, _ in
                self.section(n, "journal", ["keep_days": { n, key in if let d = self.days(n, key) { self.config.journalKeepDays = d } }])
            },
            "track": { n, _ in
                self.section(n, "track", ["keep_days": { n, key in if let d = self.days(n, key) { self.config.trackKeepDays = d } }])
            },
            "mqtt": { n, _ in
                var m = MQTTConfig()
                self.section(n, "mqtt", [
                    "host": { n, key in if let s = self.string(n, key) { m.host = s } },
                    "port": { n, key in
                        guard let p = self.number(n, key, min: 1) else { return }
                        if p == p.rounded(), p <= 65535 { m.port = Int(p) } else { self.issue(n, key, "must be a port number from 1 to 65535") }
                    },
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
                    "keepalive_s": { n, key in
                        guard let k = self.number(n, key, min: 5) else { return }
                        if k == k.rounded(), k <= 65535 { m.keepalive = Int(k) } else { self.issue(n, key, "must be whole seconds from 5 to 65535") }
                    },
                    "commands": { n, key in if let c = self.mqttCommands(n, key) { m.commands = c } },
                    "fleet_regions": { n, key in if let b = self.flag(n, key) { m.fleetRegions = b } },
                    "owntracks": { n, _ in
                        var o = OwnTracksConfig()
                        func name(_ n: Node, _ key: String) -> String? {
                            guard let s = self.string(n, key) else { return nil }
                            if s.contains(where: { "#+/".contains($0) }) { self.issue(n, key, "must not contain '#', '+' or '/' (it is a topic level)"); return nil }
                            return s
                        }
                        self.section(n, "mqtt.owntracks", [
                            "user": { n, key in o.user = name(n, key) },
                            "device": { n, key in o.device = name(n, key) },
                            "tid": { n, key in
                                guard let s = self.string(n, key) else { return }
                                if (1...2).contains(s.count) { o.tid = s } else { self.issue(n, key, "must be 1 or 2 characters (the tracker id on OwnTracks' maps)") }
                            },
                            "interval_s": { n, key in if let x = self.number(n, key, min: 1) { o.intervalSeconds = x } },
                            "distance_m": { n, key in if let x = self.number(n, key, min: 0) { o.distance = x } },
                            "kinds": { n, key in
                                guard let seq = n.sequence else { self.issue(n, key, "must be a list of kinds (plant, album, reforestation)"); return }
                                let kinds = Set(seq.compactMap { self.string($0, key) })
                                if let bad = kinds.subtracting(["plant", "album", "reforestation"]).first {
                                    self.issue(n, key, "unknown kind '\(TextExcerpt.short(bad))': plant, album or reforestation")
                                } else {
                                    o.kinds = kinds
                                }
                            },
                        ])
                        m.ownTracks = o
                    },
                    "tls": { n, _ in
                        self.section(n, "mqtt.tls", [
                            "ca_file": { n, key in if let s = self.string(n, key) { m.caFile = s } },
                            "cert_file": { n, key in if let s = self.string(n, key) { m.certFile = s } },
                            "key_file": { n, key in if let s = self.string(n, key) { m.keyFile = s } },
                        ])
                    },
                ])
                if m.host.isEmpty { self.issue(n, "mqtt.host", "is required: the broker's host name or address") }
                if (m.certFile == nil) != (m.keyFile == nil) { self.issue(n, "mqtt.tls", "cert_file and key_file go together (a client certificate and its key)") }
                if m.certFile != nil && m.caFile == nil { self.issue(n, "mqtt.tls", "a client certificate needs ca_file (the CA of the broker's certificate)") }
                self.config.mqtt = m
            },
            "http": { n, _ in
                var h = HTTPConfig()
                self.section(n, "http", [
                    "listen": { n, key in
                        guard let s = self.string(n, key) else { return }
                        if let (host, port) = HTTPConfig.parseListen(s) { (h.host, h.port) = (host, port) } else {
                            self.issue(n, key, "must be an address and port, e.g. 127.0.0.1:8047, 0.0.0.0:8047 or [::]:8047")
                        }
                    },
                    "tls": { n, key in
                        if n.mapping != nil {
                            var cert: String?, keyFile: String?
                            self.section(n, key, [
                                "cert": { n, key in cert = self.string(n, key) },
                                "key": { n, key in keyFile = self.string(n, key) },
                            ])
                            if let cert, let keyFile { h.tls = .files(cert: cert, key: keyFile) } else { self.issue(n, key, "needs both cert: and key: (PEM files)") }
                        } else if let s = self.string(n, key) {
                            switch s {
                            case "auto": h.tls = .auto
                            case "off": h.tls = .off
                            default: self.issue(n, key, "must be auto, off, or {cert: FILE, key: FILE}")
                            }
                        }
                    },
                    "token_file": { n, key in if let s = self.string(n, key) { h.tokenFile = s } },
                    "tiles": { n, key in
                        guard let s = self.string(n, key) else { return }
                        if (s.hasPrefix("https://") || s.hasPrefix("http://")) && s.contains("{z}") && s.contains("{x}") && s.contains("{y}") { h.tiles = s } else {
                            self.issue(n, key, "must be a tile URL with {z}, {x} and {y}, e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png")
                        }
                    },
                    "tiles_attribution": { n, key in if let s = self.string(n, key) { h.tilesAttribution = s } },
                    "root": { n, key in if let s = self.string(n, key) { h.root = s } },
                    "max_connections": { n, key in
                        guard let x = self.number(n, key, min: 4) else { return }
                        if x == x.rounded(), x <= 4096 { h.maxConnections = Int(x) } else { self.issue(n, key, "must be a whole number from 4 to 4096") }
                    },
                    "max_body_kib": { n, key in
                        guard let x = self.number(n, key, min: 1) else { return }
                        if x == x.rounded(), x <= 65536 { h.maxBodyBytes = Int(x) * 1024 } else { self.issue(n, key, "must be whole KiB from 1 to 65536") }
                    },
                    "max_photo_mib": { n, key in
                        guard let x = self.number(n, key, min: 1) else { return }
                        if x == x.rounded(), x <= 1024 { h.maxPhotoBytes = Int(x) << 20 } else { self.issue(n, key, "must be whole MiB from 1 to 1024") }
                    },
                ])
                self.config.http = h
            },
            "monitor": { n, _ in
                self.section(n, "monitor", [
                    "hysteresis_m": { n, key in if let x = self.number(n, key) { self.config.monitor.hysteresisMetres = x } },
                    "accuracy_factor": { n, key in if let x = self.number(n, key) { self.config.monitor.accuracyFactor = x } },
                    "max_error_m": { n, key in if let x = self.number(n, key) { self.config.monitor.maxErrorMetres = x } },
                    "max_speed_mps": { n, key in if let x = self.number(n, key) { self.config.monitor.maxSpeed = x } },
                    "dwell_s": { n, key in if let x = self.number(n, key) { self.config.monitor.dwellSeconds = x } },
                    "transit": { n, key in if let b = self.flag(n, key) { self.config.monitor.transit = b } },
                    "initial_enter": { n, key in if let b = self.flag(n, key) { self.config.monitor.initialEnter = b } },
                ])
            },
        ])
    }

    /// A mapping whose keys must be among `keys`; each value goes to its key's reader with the
    /// key's full name ("monitor.dwell_s"). An unknown key is reported with the nearest known one.
    func section(_ node: Node, _ name: String, _ keys: Keys) {
        let known = keys.map(\.key)
        guard let m = node.mapping else { issue(node, name, "must be a mapping of keys (\(known.joined(separator: ", ")))"); return }
        for (k, v) in m {
            guard let key = k.scalar?.string else { issue(k, name, "keys must be names"); continue }
            guard let read = keys.first(where: { $0.key == key })?.value else {
                let shown = TextExcerpt.short(key)
                let hint = Wording.nearest(key, in: known).map { "; did you mean \($0)?" } ?? ""
                issue(k, name.isEmpty ? shown : "\(name).\(shown)", "unknown key (known: \(known.joined(separator: ", ")))\(hint)")
                continue
            }
            read(v, name.isEmpty ? key : "\(name).\(key)")
        }
    }

    func issue(_ node: Node?, _ key: String?, _ message: String) {
        issues.append(ConfigIssue(file: file, line: node?.mark?.line, column: node?.mark?.column, key: key, message: message))
    }

    func number(_ node: Node, _ key: String, min: Double = 0) -> Double? {
        // Over-long text is no number: refused without converting it.
        guard let s = node.scalar, s.string.utf8.count <= 64, let v = Double(s.string), v.isFinite else {
            issue(node, key, "must be a number, not \"\(TextExcerpt.short(node.scalar?.string ?? "a \(node.kind)"))\"")
            return nil
        }
        guard v >= min else { issue(node, key, "must be at least \(Wording.number(min)), not \(TextExcerpt.short(s.string))"); return nil }
        return v
    }

    /// A retention: whole days, at least one.
    func days(_ node: Node, _ key: String) -> Int? {
        guard let d = number(node, key, min: 1) else { return nil }
        guard d == d.rounded(), d <= 36_500 else { issue(node, key, "must be a whole number of days from 1 to 36500"); return nil }
        return Int(d)
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

    func flag(_ node: Node, _ key: String) -> Bool? {
        guard let s = node.scalar, s.string.utf8.count <= 8, let b = Bool(s.string.lowercased()) ?? (s.string == "yes" ? true : s.string == "no" ? false : nil) else {
            issue(node, key, "must be true or false")
            return nil
        }
        return b
    }

    func string(_ node: Node, _ key: String) -> String? {
        guard let s = node.scalar?.string, !s.isEmpty else { issue(node, key, "must be a non-empty string"); return nil }
        guard s.utf8.count <= TreelineConfig.maxPathBytes else {
            issue(node, key, "is \(s.utf8.count) bytes long (\"\(TextExcerpt.short(s))\"); a path has at most \(TreelineConfig.maxPathBytes)")
            return nil
        }
        return s
    }
}

extension Node {
    var kind: String {
        switch self {
        case .scalar: return "scalar"
        case .mapping: return "mapping"
        case .sequence: return "list"
        case .alias: return "alias"
        }
    }
}
