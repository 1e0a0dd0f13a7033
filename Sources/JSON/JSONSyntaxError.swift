#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON syntax error with its place in the text.
public struct JSONSyntaxError: Error, Equatable, Sendable {
    /// Line where parsing stopped, 1-based.
    public var line: Int
    /// Column where parsing stopped, 1-based, counted in bytes.
    public var column: Int
    /// What was wrong.
    public var message: String
}

/// A parsed JSON value. `coordinates` members (GeoJSON) are parsed into `.coordinates`: their
/// numbers go to one flat array owned by the document instead of a value per number, so a file
/// of 100,000 fences does not cost a boxed value per vertex.
public enum JSONValue: Sendable {
    /// Members in the order written; a name appears twice only when parsed with `duplicateMembers`.
    case object([(key: String, value: JSONValue)])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    /// A `coordinates` member that is an array of numbers, or of such arrays, its positions in
    /// `JSONDocument.positions`; any other `coordinates` value is plain JSON.
    case coordinates(CoordinateTree)

    /// The value of the first member named `key`; nil when there is none or this is not an object.
    public subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The string, when this is a string; else nil.
    public var string: String? { if case let .string(s) = self { return s } else { return nil } }
    /// The number, when this is a number; else nil.
    public var number: Double? { if case let .number(n) = self { return n } else { return nil } }
    /// Whether this is `null`.
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// A short name of the value's type for error messages.
    public var typeName: String {
        switch self {
        case .object: return "an object"
        case .array, .coordinates: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }
}

/// The nesting of a GeoJSON `coordinates` value; positions live in `JSONDocument.positions`.
public enum CoordinateTree: Sendable {
    /// One position: its index in `positions` (pairs), and how many numbers it had.
    case position(index: Int, numbers: Int)
    /// An array of positions (a ring or a line): `count` consecutive positions from `start`.
    /// `badPosition` is the first element (1-based) that did not have 2 or 3 numbers, if any.
    case positions(start: Int, count: Int, badPosition: Int?)
    /// An array of arrays.
    case list([CoordinateTree])
}
