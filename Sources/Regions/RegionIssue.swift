import Geo
import JSON
/// One problem in a regions file, naming where it is and what is wrong.
public struct RegionIssue: Sendable, Equatable, CustomStringConvertible {
    /// The file as the caller named it.
    public var file: String
    /// 0-based index of the feature, nil for a problem with the file as a whole.
    public var feature: Int?
    /// The feature's id, when it has a usable one.
    public var id: String?
    /// Line and column, for syntax errors.
    public var line: Int?
    public var column: Int?
    /// What is wrong.
    public var message: String

    /// An issue with feature `feature` (nil: the file as a whole); `line` and `column` for syntax errors.
    public init(file: String, feature: Int?, id: String?, line: Int? = nil, column: Int? = nil, message: String) {
        self.file = file
        self.feature = feature
        self.id = id
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file[:line:column][: feature N (id "…")]: message`, with the parts that are known.
    public var description: String {
        var place = file
        if let line, let column { place += ":\(line):\(column)" }
        if let feature {
            place += ": feature \(feature)"
            if let id { place += " (id \"\(TextExcerpt.short(id))\")" }
        }
        return place + ": " + message
    }
}
