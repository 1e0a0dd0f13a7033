/// An error already worded for the daemon's log: printed as it is, exit 1.
package struct DaemonError: Error, CustomStringConvertible {
    package var description: String
    package init(_ d: String) { description = d }
}
