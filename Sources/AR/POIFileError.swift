import Geo
import Regions

/// Every problem found in a POI file; the file is refused as a whole.
public struct POIFileError: Error, Sendable, CustomStringConvertible {
    /// Every problem, in the order found.
    public var issues: [RegionIssue]
    /// A count, then one indented line per issue.
    public var description: String {
        let n = issues.count
        return "\(n) error\(n == 1 ? "" : "s") in POI file:\n" + issues.map { "  " + $0.description }.joined(separator: "\n")
    }
}
