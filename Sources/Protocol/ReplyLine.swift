import Geo
import JSON

/// Why a reply is not what its type says it holds: the daemon and the client disagree on the
/// wire.
public struct ReplyError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One line the daemon sent: its bytes as they came (what a client prints), and their JSON
/// (`null` when they are not JSON), every GeoJSON `coordinates` in it read as plain arrays of
/// numbers, so that the value stands on its own (`JSONDocument.plain`).
public struct ReplyLine: Sendable {
    public let bytes: [UInt8]
    public let value: JSONValue

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        if let document = try? JSONDocument.parse(bytes) { value = document.plain(document.root) } else { value = .null }
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The line's `class` (`HELLO`, `REGIONS`, `ERROR`, …), when it is an object that has one.
    public var className: String? { value["class"]?.string }

    /// The line as `R`, which checks its class.
    public func decoded<R: DaemonReply>(as type: R.Type = R.self) throws(ReplyError) -> R { try R(value) }
}

/// A reply of one class, read from its JSON object.
public protocol DaemonReply: Sendable {
    /// The `class` the daemon gives it.
    static var replyClass: String { get }
    /// Reads the object, checking its class and the members it needs.
    init(_ value: JSONValue) throws(ReplyError)
}

extension JSONDocument {
    /// `value`, a value of this document, with each `coordinates` tree as arrays of numbers
    /// (`[x, y]` per position: a third number, an altitude, is not kept by the parser).
    public func plain(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members): .object(members.map { ($0.key, plain($0.value)) })
        case .array(let items): .array(items.map { plain($0) })
        case .coordinates(let tree): plain(tree)
        case .string, .number, .bool, .null: value
        }
    }

    private func plain(_ tree: CoordinateTree) -> JSONValue {
        switch tree {
        case .position(let index, _): positionValue(index)
        case .positions(let start, let count, _): .array((start..<(start + count)).map(positionValue))
        case .list(let children): .array(children.map { plain($0) })
        }
    }

    private func positionValue(_ index: Int) -> JSONValue {
        let (x, y) = position(index)
        return .array(y.isNaN ? [.number(x)] : [.number(x), .number(y)])
    }
}

/// The members of a reply's object, read by name; what is wrong names the reply and the member.
struct ReplyObject {
    let value: JSONValue
    /// How messages name it: `REGIONS`, `REGIONS regions[2]`.
    let place: String

    /// The reply's own object, of class `name`.
    init(_ value: JSONValue, class name: String) throws(ReplyError) {
        guard case .object = value else { throw ReplyError("expected a \(name) reply, not \(value.typeName)") }
        guard let c = value["class"]?.string, c == name else {
            throw ReplyError("expected a \(name) reply, not \(value["class"]?.string.map { "a \($0)" } ?? "one without a class")")
        }
        self.value = value
        place = name
    }

    /// An object inside a reply.
    init(_ value: JSONValue, at place: String) throws(ReplyError) {
        guard case .object = value else { throw ReplyError("\(place) must be an object, not \(value.typeName)") }
        self.value = value
        self.place = place
    }

    /// The member, nil when absent or null.
    func member(_ key: String) -> JSONValue? {
        guard let v = value[key], !v.isNull else { return nil }
        return v
    }

    func problem(_ key: String, _ what: String) -> ReplyError { ReplyError("\(place): \"\(key)\" must be \(what)") }

    func required<T>(_ key: String, _ read: (String) throws(ReplyError) -> T?) throws(ReplyError) -> T {
        guard let v = try read(key) else { throw ReplyError("\(place): \"\(key)\" is missing") }
        return v
    }

    func string(_ key: String) throws(ReplyError) -> String? {
        guard let v = member(key) else { return nil }
        guard let s = v.string else { throw problem(key, "a string") }
        return s
    }

    func number(_ key: String) throws(ReplyError) -> Double? {
        guard let v = member(key) else { return nil }
        guard let n = v.number else { throw problem(key, "a number") }
        return n
    }

    /// A whole number (of at most 2⁵³ in magnitude, as JSON numbers are read).
    func integer(_ key: String) throws(ReplyError) -> Int64? {
        guard let v = member(key) else { return nil }
        guard let n = Command.integer(v) else { throw problem(key, "a whole number") }
        return n
    }

    func bool(_ key: String) throws(ReplyError) -> Bool? {
        guard let v = member(key) else { return nil }
        guard let b = Command.boolean(v) else { throw problem(key, "true or false") }
        return b
    }

    /// An ISO 8601 time.
    func time(_ key: String) throws(ReplyError) -> UTCTime? {
        guard let v = member(key) else { return nil }
        guard let s = v.string, let t = UTCTime(iso8601: s) else { throw problem(key, "an ISO 8601 time") }
        return t
    }

    func strings(_ key: String) throws(ReplyError) -> [String]? {
        guard let v = member(key) else { return nil }
        guard case .array(let items) = v, items.allSatisfy({ $0.string != nil }) else { throw problem(key, "a list of strings") }
        return items.compactMap(\.string)
    }

    /// Each object of the list `key` (absent: none), read by `read`.
    func objects<T>(_ key: String, _ read: (ReplyObject) throws(ReplyError) -> T) throws(ReplyError) -> [T] {
        guard let v = member(key) else { return [] }
        guard case .array(let items) = v else { throw problem(key, "a list") }
        var out: [T] = []
        out.reserveCapacity(items.count)
        for (k, item) in items.enumerated() { out.append(try read(ReplyObject(item, at: "\(place) \(key)[\(k)]"))) }
        return out
    }

    /// The object `key`, nil when absent.
    func object(_ key: String) throws(ReplyError) -> ReplyObject? {
        guard let v = member(key) else { return nil }
        return try ReplyObject(v, at: "\(place) \(key)")
    }
}
