import Geo
import Rules
import Yams

/// The daemon's configuration file (YAML), whose `monitor:` section the CLI reads too:
///
///     gpsd: {host: 127.0.0.1, port: 2947}
///     regions: /etc/treeline/regions.geojson      # or a list of files
///     socket: /run/treeline/treeline.sock
///     database: /var/lib/treeline/treeline.sqlite
///     species: /usr/local/share/treeline/species.json
///     monitor: {hysteresis_m: 5, accuracy_factor: 1, max_error_m: 50, max_speed_mps: 100,
///               dwell_s: 60, transit: true, initial_enter: false}
///
/// Every key is optional and has the default above. An unknown key is an error, so a typo never
/// falls back to a default silently.
public struct TreelineConfig: Sendable, Equatable {
    public var gpsdHost = "127.0.0.1"
    public var gpsdPort = 2947
    public var regions = ["/etc/treeline/regions.geojson"]
    public var socket = "/run/treeline/treeline.sock"
    public var database = "/var/lib/treeline/treeline.sqlite"
    /// The species catalog (planting rules, plans).
    public var species = "/usr/local/share/treeline/species.json"
    public var monitor = MonitorConfig()

    public init() {}
}

/// One problem in a configuration file: where it is and what to do.
public struct ConfigIssue: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var column: Int?
    /// The key's path, e.g. `monitor.dwell_s`.
    public var key: String?
    public var message: String

    public var description: String {
        var s = file
        if let line, let column { s += ":\(line):\(column)" }
        if let key { s += ": \(key)" }
        return s + ": " + message
    }
}

/// Every problem found; the file is refused as a whole (a daemon keeps its last good config).
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    public var issues: [ConfigIssue]
    public var description: String {
        "\(issues.count) error\(issues.count == 1 ? "" : "s") in config:\n" + issues.map { "  " + $0.description }.joined(separator: "\n")
    }
}

extension TreelineConfig {
    /// Parses a configuration file's text; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> TreelineConfig {
        // A config is a few hundred bytes: a huge file is the wrong file, refused before YAML
        // spends time on it.
        let size = text.utf8.count
        guard size <= maxFileBytes else {
            throw ConfigError(issues: [ConfigIssue(file: file, message: "is \(size) bytes, over the limit of \(maxFileBytes / 1024) KiB for a config: is this the config file?")])
        }
        var issues: [ConfigIssue] = []
        func issue(_ node: Node?, _ key: String?, _ message: String) {
            issues.append(ConfigIssue(file: file, line: node?.mark?.line, column: node?.mark?.column, key: key, message: message))
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let e as YamlError {
            throw ConfigError(issues: [Self.yamlIssue(e, file: file)])
        } catch {
            throw ConfigError(issues: [ConfigIssue(file: file, message: "not YAML: \(error)")])
        }
        var config = TreelineConfig()
        guard let root else { return config }  // an empty file: every default
        guard root.mapping != nil else {
            throw ConfigError(issues: [ConfigIssue(file: file, line: root.mark?.line, column: root.mark?.column, key: nil,
                                                   message: "the file must be a mapping of keys (gpsd, regions, socket, database, species, monitor)")])
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
        func flag(_ node: Node, _ key: String) -> Bool? {
            guard let s = node.scalar, s.string.utf8.count <= 8, let b = Bool(s.string.lowercased()) ?? (s.string == "yes" ? true : s.string == "no" ? false : nil) else {
                issue(node, key, "must be true or false")
                return nil
            }
            return b
        }
        func string(_ node: Node, _ key: String) -> String? {
            guard let s = node.scalar?.string, !s.isEmpty else { issue(node, key, "must be a non-empty string"); return nil }
            guard s.utf8.count <= maxPathBytes else {
                issue(node, key, "is \(s.utf8.count) bytes long (\"\(TextExcerpt.short(s))\"); a path has at most \(maxPathBytes)")
                return nil
            }
            return s
        }
        func entries(_ node: Node, _ section: String, known: [String], _ body: (String, Node) -> Void) {
            guard let m = node.mapping else { issue(node, section, "must be a mapping of keys (\(known.joined(separator: ", ")))"); return }
            for (k, v) in m {
                guard let name = k.scalar?.string else { issue(k, section, "keys must be names"); continue }
                guard known.contains(name) else {
                    let shown = TextExcerpt.short(name)
                    let path = section.isEmpty ? shown : "\(section).\(shown)"
                    let hint = Wording.nearest(name, in: known).map { "; did you mean \($0)?" } ?? ""
                    issue(k, path, "unknown key (known: \(known.joined(separator: ", ")))\(hint)")
                    continue
                }
                body(name, v)
            }
        }

        entries(root, "", known: ["gpsd", "regions", "socket", "database", "species", "monitor"]) { name, v in
            switch name {
            case "gpsd":
                entries(v, "gpsd", known: ["host", "port"]) { k, n in
                    if k == "host", let s = string(n, "gpsd.host") { config.gpsdHost = s }
                    if k == "port", let p = number(n, "gpsd.port", min: 1) {
                        if p == p.rounded(), p <= 65535 { config.gpsdPort = Int(p) } else { issue(n, "gpsd.port", "must be a port number from 1 to 65535") }
                    }
                }
            case "regions":
                if let seq = v.sequence {
                    let files = seq.compactMap { string($0, "regions") }
                    if files.isEmpty { issue(v, "regions", "must name at least one regions file") } else { config.regions = files }
                } else if let s = string(v, "regions") {
                    config.regions = [s]
                }
            case "socket": if let s = string(v, "socket") { config.socket = s }
            case "database": if let s = string(v, "database") { config.database = s }
            case "species": if let s = string(v, "species") { config.species = s }
            default:
                entries(v, "monitor", known: ["hysteresis_m", "accuracy_factor", "max_error_m", "max_speed_mps", "dwell_s", "transit", "initial_enter"]) { k, n in
                    let key = "monitor.\(k)"
                    switch k {
                    case "hysteresis_m": if let x = number(n, key) { config.monitor.hysteresisMetres = x }
                    case "accuracy_factor": if let x = number(n, key) { config.monitor.accuracyFactor = x }
                    case "max_error_m": if let x = number(n, key) { config.monitor.maxErrorMetres = x }
                    case "max_speed_mps": if let x = number(n, key) { config.monitor.maxSpeed = x }
                    case "dwell_s": if let x = number(n, key) { config.monitor.dwellSeconds = x }
                    case "transit": if let b = flag(n, key) { config.monitor.transit = b }
                    default: if let b = flag(n, key) { config.monitor.initialEnter = b }
                    }
                }
            }
        }
        if !issues.isEmpty { throw ConfigError(issues: issues) }
        return config
    }

    static func yamlIssue(_ e: YamlError, file: String) -> ConfigIssue {
        switch e {
        case let .scanner(_, problem, mark, _), let .parser(_, problem, mark, _), let .composer(_, problem, mark, _):
            return ConfigIssue(file: file, line: mark.line, column: mark.column, key: nil, message: "not YAML: \(problem)")
        case let .duplicatedKeysInMapping(duplicates, context):
            return ConfigIssue(file: file, line: context.mark.line, column: context.mark.column, key: nil,
                               message: "duplicate key \(TextExcerpt.short(duplicates.joined(separator: ", ")))")
        default:
            return ConfigIssue(file: file, line: nil, column: nil, key: nil, message: "not YAML: \(e)")
        }
    }

    /// The largest config file read, bytes.
    public static let maxFileBytes = 1 << 20
    /// The longest path or host name taken (Linux's PATH_MAX).
    static let maxPathBytes = 4096

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
