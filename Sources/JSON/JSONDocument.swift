#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A parsed JSON text.
public struct JSONDocument: Sendable {
    /// The top-level value.
    public var root: JSONValue
    /// Longitude/latitude (x/y) pairs of every position in every `coordinates` member.
    public var positions: [Double]

    /// Position `i` (0-based) of `positions`: x is the longitude (or easting), y the latitude (or northing),
    /// NaN for a position of one number.
    public func position(_ i: Int) -> (x: Double, y: Double) { (positions[2 * i], positions[2 * i + 1]) }

    /// Parses `bytes`; errors carry the line and column (1-based, in bytes) where parsing stopped.
    /// A name given twice in one object is an error (RFC 8259 leaves it undefined, and a reader
    /// that takes one of them silently hides a mistake), unless `duplicateMembers` (for a reader
    /// that reports them itself, with more to say).
    public static func parse(_ bytes: [UInt8], duplicateMembers: Bool = false) throws(JSONSyntaxError) -> JSONDocument {
        let outcome = bytes.withUnsafeBufferPointer { b in Result { () throws(JSONSyntaxError) in try parse(b, duplicateMembers: duplicateMembers) } }
        return try outcome.get()
    }

    /// The value in `range` of `bytes` alone, `depth` deep in a larger text (for the nesting
    /// limit); nil when it is not JSON. The error is not placed: counting the lines before it is
    /// the whole text's work, for a reader that reads the whole text again to word it.
    package static func value(in bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>, depth: Int) -> JSONDocument? {
        var p = JSONParser(bytes: bytes, range: range)
        p.depth = depth
        return try? p.document()
    }

    /// Parses the value in `range` of `bytes` (all of it by default), with nothing but space
    /// around it; errors count lines and columns from the start of `bytes`.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>? = nil,
                      duplicateMembers: Bool = false) throws(JSONSyntaxError) -> JSONDocument {
        var p = JSONParser(bytes: bytes, range: range)
        p.duplicateMembers = duplicateMembers
        do throws(JSONParser.Failure) {
            return try p.document()
        } catch {
            throw error.located(in: bytes)
        }
    }
}

extension JSONParser {
    /// The one value from here to the end, with nothing but space around it.
    mutating func document() throws(Failure) -> JSONDocument {
        skipSpace()
        let root = try value(key: nil)
        skipSpace()
        guard i == end else { throw error("unexpected text after the JSON value") }
        return JSONDocument(root: root, positions: positions)
    }
}
