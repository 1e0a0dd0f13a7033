import Geo
/// Every problem found in a regions file; the file is refused as a whole.
public struct RegionFileError: Error, Sendable, CustomStringConvertible {
    /// Every problem, in the order found.
    public var issues: [RegionIssue]
    /// An error reporting `issues`.
    public init(issues: [RegionIssue]) { self.issues = issues }
    /// A count, then one indented line per issue.
    public var description: String {
        let n = issues.count
        return "\(n) error\(n == 1 ? "" : "s") in regions file:\n" + issues.map { "  " + $0.description }.joined(separator: "\n")
    }
}
