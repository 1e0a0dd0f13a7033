/// JSON written value by value: objects, arrays, members and items, with the braces, brackets
/// and commas kept by the writer, so no caller counts what it has written. Strings are escaped
/// as `JSONBytes.appendString` escapes them; numbers are written as asked (whole, or with fixed
/// decimals), so a reply's bytes are the same from one run to the next.
///
///     var w = JSONWriter()
///     w.object { o in
///         o.member("class", "STATE")
///         o.member("inside") { $0.array(ids) { $0.value($1) } }
///     }
///     w.bytes  // {"class":"STATE","inside":["a","b"]}
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8]
    /// Per open object or array: whether it holds nothing yet.
    private var empty: [Bool] = []
    /// A member's name was just written: its value follows without a comma.
    private var afterName = false

    public init(appendingTo bytes: [UInt8] = []) { self.bytes = bytes }

    /// Room for `n` more bytes (a long reply known in advance: the track).
    public mutating func reserveCapacity(_ n: Int) { bytes.reserveCapacity(bytes.count + n) }

    /// Before a value or a member's name: the comma, when something came before in the container.
    private mutating func separate() {
        if afterName {
            afterName = false
            return
        }
        guard let last = empty.indices.last else { return }
        if !empty[last] { bytes.append(UInt8(ascii: ",")) }
        empty[last] = false
    }

    // MARK: values

    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        beginObject()
        body(&self)
        endObject()
    }

    /// Opens an object that `endObject()` closes: for an object filled over several calls.
    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        empty.append(true)
    }

    public mutating func endObject() {
        empty.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    public mutating func array(_ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "["))
        empty.append(true)
        body(&self)
        empty.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    /// An array of `items`, each written by `each`.
    public mutating func array<S: Sequence>(_ items: S, _ each: (inout JSONWriter, S.Element) -> Void) {
        array { w in for item in items { each(&w, item) } }
    }

    public mutating func value(_ s: String) {
        separate()
        JSONBytes.appendString(s, to: &bytes)
    }

    public mutating func value(_ n: some BinaryInteger) {
        separate()
        bytes.append(contentsOf: String(n).utf8)
    }

    public mutating func value(_ b: Bool) {
        separate()
        bytes.append(contentsOf: (b ? "true" : "false").utf8)
    }

    /// `v` with `decimals` digits after the point (`JSONBytes.appendFixed`).
    public mutating func value(_ v: Double, decimals: Int) {
        separate()
        JSONBytes.appendFixed(v, decimals: decimals, to: &bytes)
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    /// One value already written as JSON by `write` (a Feature, a fix): appended as it is.
    public mutating func raw(_ write: (inout [UInt8]) -> Void) {
        separate()
        write(&bytes)
    }

    // MARK: members (inside an object)

    /// A member's name; its value is the next thing written.
    public mutating func name(_ key: String) {
        separate()
        JSONBytes.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        afterName = true
    }

    /// A member whose value `body` writes (exactly one value).
    public mutating func member(_ key: String, _ body: (inout JSONWriter) -> Void) {
        name(key)
        body(&self)
    }

    public mutating func member(_ key: String, _ s: String) {
        name(key)
        value(s)
    }

    /// Nothing at all when `s` is nil: optional members are left out, not null.
    public mutating func member(_ key: String, ifPresent s: String?) {
        if let s { member(key, s) }
    }

    public mutating func member(_ key: String, _ n: some BinaryInteger) {
        name(key)
        value(n)
    }

    public mutating func member(_ key: String, _ b: Bool) {
        name(key)
        value(b)
    }

    public mutating func member(_ key: String, _ v: Double, decimals: Int) {
        name(key)
        value(v, decimals: decimals)
    }

    public mutating func member(_ key: String, raw write: (inout [UInt8]) -> Void) {
        name(key)
        raw(write)
    }

    /// `[a,b,…]` appended to plain bytes, each item written by `each`: the commas of a list
    /// whose items are written without a writer (positions, rings). Inlinable, so that each
    /// caller gets it specialized for its sequence: called generically, every item went through
    /// the sequence's witness table and metadata looked up at run time (a third of writing
    /// 100,000 Features at a first start).
    @inlinable
    public static func appendArray<S: Sequence>(_ items: S, to out: inout [UInt8], _ each: (S.Element, inout [UInt8]) -> Void) {
        out.append(UInt8(ascii: "["))
        var first = true
        for item in items {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            each(item, &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// A whole object: `{…}` written by `body`, as bytes.
    public static func object(reserving n: Int = 0, _ body: (inout JSONWriter) -> Void) -> [UInt8] {
        var w = JSONWriter()
        w.reserveCapacity(n)
        w.object(body)
        return w.bytes
    }
}
