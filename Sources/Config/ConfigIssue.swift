import Geo
import Rules
import Yams

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
