import Geo
import JSON

/// Every problem found in a species catalog; the catalog is refused as a whole.
public struct SpeciesCatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in one problem.
    public enum Reason: Sendable, Equatable {
        /// The file is not JSON: where parsing stopped (1-based line and column) and why.
        case notJSON(line: Int, column: Int, message: String)
        /// The top level is not an object.
        case notACatalog(found: String)
        /// The top-level object has no `species` member.
        case noSpeciesList
        /// `species` is an empty array.
        case emptyCatalog
        /// An entry of `species` that is not an object.
        case notAnObject(found: String)
        /// An entry lacks this field.
        case missingField(String)
        /// A member the top level or an entry may not have; `suggestion` is a close allowed name, if any.
        case unknownField(String, suggestion: String?)
        /// A member given twice in one object.
        case repeatedField(String)
        /// A value of the wrong JSON type: what it must be and what it is.
        case wrongType(field: String, expected: String, found: String)
        /// `latin` or `common` is empty or only white space.
        case emptyName(String)
        /// A spacing or height that is 0, negative or not finite.
        case notPositive(field: String, value: Double)
        /// A spacing or height above `limit` metres: probably the wrong unit.
        case implausible(field: String, value: Double, limit: Double)
        /// `min_height_m` is more than `max_height_m`.
        case minAboveMax(min: Double, max: Double)
        /// The same Latin name as entry `firstEntry`.
        case duplicateLatin(firstEntry: Int)
        /// A name (Latin or common) that an earlier entry already uses for another species.
        case ambiguousName(field: String, otherEntry: Int, otherField: String)
    }

    /// One problem: where in the file, and what.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// 0-based index in the `species` array; nil for a problem with the file as a whole.
        public var entry: Int?
        /// The entry's Latin name, when it has a usable one.
        public var latin: String?
        /// What is wrong.
        public var reason: Reason

        /// A problem with entry `entry` (nil: the file as a whole), whose Latin name is `latin` if known.
        public init(entry: Int?, latin: String?, reason: Reason) {
            self.entry = entry
            self.latin = latin
            self.reason = reason
        }

        /// What follows the file's name: `[:line:column][: species[N] ("…")]: message`.
        public var description: String {
            var place = ""
            if case let .notJSON(line, column, _) = reason { place = ":\(line):\(column)" }
            if let entry {
                place += ": species[\(entry)]"
                if let latin { place += " (\"\(TextExcerpt.short(latin))\")" }
            }
            return place + ": " + message
        }

        /// The reason in words, with what to change.
        public var message: String {
            let fields = SpeciesCatalog.fields.joined(separator: ", ")
            switch reason {
            case let .notJSON(_, _, message):
                return "not JSON: \(message)"
            case let .notACatalog(found):
                return "the top level is \(found); a species catalog is an object {\"about\": \"…\", \"species\": [ … ]}"
            case .noSpeciesList:
                return "no \"species\" member: add \"species\": [ {\(fields)}, … ]"
            case .emptyCatalog:
                return "\"species\" is empty: list at least one species"
            case let .notAnObject(found):
                return "is \(found), not an object: each species is {\(fields)}"
            case let .missingField(field):
                return "\(field) is missing: \(Self.explain(field))"
            case let .unknownField(field, suggestion):
                var s = "unknown field \"\(TextExcerpt.short(field))\""
                if let suggestion { s += " (did you mean \"\(suggestion)\"?)" }
                return s + "; the fields are " + (entry == nil ? SpeciesCatalog.topLevelKeys.joined(separator: ", ") : fields)
            case let .repeatedField(field):
                return "\"\(TextExcerpt.short(field))\" is given twice: keep one"
            case let .wrongType(field, expected, found):
                return "\(field) must be \(expected), not \(found)"
            case let .emptyName(field):
                return "\(field) is empty: \(Self.explain(field))"
            case let .notPositive(field, value):
                return "\(field) must be more than 0, not \(Wording.number(value)): \(Self.explain(field))"
            case let .implausible(field, value, limit):
                return "\(field) is \(Wording.number(value)), more than \(Wording.number(limit)) m: the value is in metres (was it given in another unit?)"
            case let .minAboveMax(min, max):
                return "min_height_m (\(Wording.number(min))) is more than max_height_m (\(Wording.number(max))): swap them or correct one"
            case let .duplicateLatin(first):
                return "duplicate Latin name: species[\(first)] has the same one; merge the two entries"
            case let .ambiguousName(field, other, otherField):
                return "\(field) name is also species[\(other)]'s \(otherField == "latin" ? "Latin" : "common") name; give each species its own names"
            }
        }

        static func explain(_ field: String) -> String {
            switch field {
            case "latin": return "the scientific name, e.g. \"Quercus robur\", as regions' species lists use it"
            case "common": return "the English common name, e.g. \"Pedunculate oak\""
            case "spacing_m": return "the distance between planting spots in metres, e.g. 5"
            case "min_height_m": return "the smallest usual height of a mature plant in metres"
            case "max_height_m": return "the largest usual height of a mature plant in metres"
            default: return field
            }
        }

    }

    /// The catalog file as the caller named it.
    public var file: String
    /// Every problem, in the order found.
    public var problems: [Problem]

    /// An error in `file` reporting `problems`.
    public init(file: String, problems: [Problem]) {
        self.file = file
        self.problems = problems
    }

    /// A count, then one indented line per problem, each starting with the file's name.
    public var description: String {
        let n = problems.count
        return "\(n) error\(n == 1 ? "" : "s") in species catalog:\n"
            + problems.map { "  " + file + $0.description }.joined(separator: "\n")
    }
}
