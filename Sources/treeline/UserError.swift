/// An error already worded for the user; printed as "Error: …", exit 1.
struct UserError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
