import Geo
import Rules
import Yams

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
                                                   message: "the file must be a mapping of keys (gpsd, regions, socket, database, species, monitor)")])
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
