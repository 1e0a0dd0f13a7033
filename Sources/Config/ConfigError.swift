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
