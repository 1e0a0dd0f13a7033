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
            "gpsd": { n, _ in self.readGPSD(n) },
            "regions": { n, key in self.readRegions(n, key) },
            "socket": { n, key in if let s = self.string(n, key) { self.config.socket = s } },
            "database": { n, key in if let s = self.string(n, key) { self.config.database = s } },
            "species": { n, key in if let s = self.string(n, key) { self.config.species = s } },
            "journal": { n, _ in
                self.section(n, "journal", ["keep_days": { n, key in if let d = self.days(n, key) { self.config.journalKeepDays = d } }])
            },
            "track": { n, _ in
                self.section(n, "track", ["keep_days": { n, key in if let d = self.days(n, key) { self.config.trackKeepDays = d } }])
            },
            "mqtt": { n, _ in self.config.mqtt = self.mqtt(n) },
            "http": { n, _ in self.config.http = self.http(n) },
            "monitor": { n, _ in self.readMonitor(n) },
        ])
    }

    /// `gpsd:`: where gpsd listens.
    func readGPSD(_ node: Node) {
        section(node, "gpsd", [
            "host": { n, key in if let s = self.string(n, key) { self.config.gpsdHost = s } },
            "port": { n, key in if let p = self.port(n, key) { self.config.gpsdPort = p } },
        ])
    }

    /// `regions:`: one file, or a non-empty list of them.
    func readRegions(_ node: Node, _ key: String) {
        if let seq = node.sequence {
            let files = seq.compactMap { self.string($0, key) }
            if files.isEmpty { issue(node, key, "must name at least one regions file") } else { config.regions = files }
        } else if let s = string(node, key) {
            config.regions = [s]
        }
    }

    /// `monitor:`: the region monitor's tuning.
    func readMonitor(_ node: Node) {
        section(node, "monitor", [
            "hysteresis_m": { n, key in if let x = self.number(n, key) { self.config.monitor.hysteresisMetres = x } },
            "accuracy_factor": { n, key in if let x = self.number(n, key) { self.config.monitor.accuracyFactor = x } },
            "max_error_m": { n, key in if let x = self.number(n, key) { self.config.monitor.maxErrorMetres = x } },
            "max_speed_mps": { n, key in if let x = self.number(n, key) { self.config.monitor.maxSpeed = x } },
            "dwell_s": { n, key in if let x = self.number(n, key) { self.config.monitor.dwellSeconds = x } },
            "transit": { n, key in if let b = self.flag(n, key) { self.config.monitor.transit = b } },
            "initial_enter": { n, key in if let b = self.flag(n, key) { self.config.monitor.initialEnter = b } },
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

    /// A whole number from `min` to `max`; otherwise `message` is reported (after `number`'s own
    /// refusals: not a number, or under `min`).
    func whole(_ node: Node, _ key: String, min: Double, max: Double, _ message: String) -> Int? {
        guard let x = number(node, key, min: min) else { return nil }
        guard x == x.rounded(), x <= max else { issue(node, key, message); return nil }
        return Int(x)
    }

    /// A TCP port, 1 to 65535.
    func port(_ node: Node, _ key: String) -> Int? {
        whole(node, key, min: 1, max: 65535, "must be a port number from 1 to 65535")
    }

    /// A retention: whole days, at least one.
    func days(_ node: Node, _ key: String) -> Int? {
        whole(node, key, min: 1, max: 36_500, "must be a whole number of days from 1 to 36500")
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
