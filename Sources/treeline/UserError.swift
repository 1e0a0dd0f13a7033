import Geo
import JSON

/// An error already worded for the user; printed as "Error: …", exit 1. A control or
/// text-direction character in it (a name the daemon quotes back) is written as `\u{…}`.
struct UserError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = PlainText.forTerminal(d) }
}
