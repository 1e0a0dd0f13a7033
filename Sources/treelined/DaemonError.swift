/// An error already worded for the daemon's log: printed as it is, exit 1.
struct DaemonError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
