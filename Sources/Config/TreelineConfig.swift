import Geo
import Rules
import Yams
import JSON

/// The daemon's configuration file (YAML), whose `monitor:` section the CLI reads too:
///
///     gpsd: {host: 127.0.0.1, port: 2947}
///     regions: /etc/treeline/regions.geojson      # or a list of files
///     socket: /run/treeline/treeline.sock
///     database: /var/lib/treeline/treeline.sqlite
///     species: /usr/local/share/treeline/species.json
///     monitor: {hysteresis_m: 5, accuracy_factor: 1, max_error_m: 50, max_speed_mps: 100,
///               dwell_s: 60, transit: true, initial_enter: false}
///     journal: {keep_days: 365}   # events older than this are pruned (region events of
///     track: {keep_days: 90}      # regions in force stay); track points likewise
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
    /// Days the journal keeps an event (region events of regions in force are kept always).
    public var journalKeepDays = 365
    /// Days the track keeps a point.
    public var trackKeepDays = 90
    /// The MQTT bridge (`MQTTConfig`); nil: none.
    public var mqtt: MQTTConfig?
    /// The web app and HTTP API (`HTTPConfig`); nil: none.
    public var http: HTTPConfig?

    public init() {}
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
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let e as YamlError {
            throw ConfigError(issues: [Self.yamlIssue(e, file: file)])
        } catch {
            throw ConfigError(issues: [ConfigIssue(file: file, message: "not YAML: \(error)")])
        }
        guard let root else { return TreelineConfig() }  // an empty file: every default
        guard root.mapping != nil else {
            throw ConfigError(issues: [ConfigIssue(file: file, line: root.mark?.line, column: root.mark?.column, key: nil,
                                                   message: "the file must be a mapping of keys (gpsd, regions, socket, database, species, monitor, journal, track, mqtt, http)")])
        }
        let reader = ConfigReader(file: file)
        reader.read(root)
        if !reader.issues.isEmpty { throw ConfigError(issues: reader.issues) }
        return reader.config
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
