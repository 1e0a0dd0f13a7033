#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

package struct JSONParser {
    /// Where parsing stopped and why. The line and column are counted only for the failure that
    /// is reported (`located(in:)`): a `coordinates` array that is not all numbers fails and is
    /// read again as plain JSON, and counting from the start of the text at each of those would
    /// make a file of many such arrays quadratic.
    package struct Failure: Error {
        var message: String
        var offset: Int

        func located(in bytes: UnsafeBufferPointer<UInt8>) -> JSONSyntaxError {
            let end = min(offset, bytes.count)
            var line = 1, lineStart = 0
            for k in 0..<end where bytes[k] == 0x0A {
                line += 1
                lineStart = k + 1
            }
            return JSONSyntaxError(line: line, column: end - lineStart + 1, message: message)
        }
    }

    /// The text, read from `i` up to `end` (a value inside a larger text is parsed in place;
    /// offsets, in errors too, count from the start of `bytes`). The caller keeps it alive while
    /// the parser lives.
    package let bytes: UnsafeBufferPointer<UInt8>
    package let first: Int, end: Int
    package var i: Int
    package var positions: [Double] = []
    package var depth = 0
    package var duplicateMembers = false

    package init(bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>? = nil) {
        self.bytes = bytes
        first = range?.lowerBound ?? 0
        i = first
        end = range?.upperBound ?? bytes.count
    }

    package func error(_ message: String, at offset: Int? = nil) -> Failure {
        Failure(message: message, offset: offset ?? i)
    }

    package mutating func skipSpace() {
        while i < end, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    package func describeHere() -> String {
        guard i < end else { return "end of file" }
        let c = bytes[i]
        return c >= 0x20 && c < 0x7F ? "'\(Character(UnicodeScalar(c)))'" : "byte 0x\(String(c, radix: 16))"
    }

    package mutating func expect(_ c: UInt8, _ what: String) throws(Failure) {
        skipSpace()
        guard i < end, bytes[i] == c else { throw error("expected \(what), found \(describeHere())") }
        i += 1
    }

    package mutating func value(key: String?) throws(Failure) -> JSONValue {
        skipSpace()
        guard i < end else { throw error("unexpected end of file") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["):
            if key == "coordinates" {
                // GeoJSON positions when they are; any other array (a property that happens to be
                // called "coordinates") is read as plain JSON.
                // At the first one, room for every number the text could hold (each takes a digit
                // and a separator at least), so that `positions` never grows by copying: an 80 MB
                // regions file has 42 MB of positions, and a doubling would hold old and new at
                // once. Pages never written are never resident: the room costs address space.
                if positions.capacity == 0 { positions.reserveCapacity((end - first) / 2 + 2) }
                let start = i, stored = positions.count
                if let tree = try? coordinates() { return .coordinates(tree) }
                i = start
                positions.removeSubrange(stored...)
            }
            return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default:
            if bytes[i] == UInt8(ascii: "-") || (bytes[i] >= 0x30 && bytes[i] <= 0x39) { return .number(try number()) }
            throw error("unexpected \(describeHere()) where a value should be")
        }
    }

    package mutating func literal(_ word: String) throws(Failure) {
        let w = Array(word.utf8)
        guard i + w.count <= end, bytes[i..<(i + w.count)].elementsEqual(w) else {
            throw error("unexpected \(describeHere()) where a value should be")
        }
        i += w.count
    }

    package mutating func nest() throws(Failure) {
        depth += 1
        if depth > 512 { throw error("nesting deeper than 512 levels") }
    }

    package mutating func object() throws(Failure) -> JSONValue {
        try nest()
        defer { depth -= 1 }
        i += 1
        var members: [(key: String, value: JSONValue)] = []
        var names: Set<String> = []  // filled only for objects of many members
        skipSpace()
        if i < end, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
        while true {
            skipSpace()
            guard i < end, bytes[i] == UInt8(ascii: "\"") else {
                throw error("expected a member name in quotes, found \(describeHere())")
            }
            let keyStart = i
            let key = try string()
            if !duplicateMembers, Self.contains(members, key, &names) {
                throw error("duplicate member \"\(TextExcerpt.short(key))\" in an object: give each name once", at: keyStart)
            }
            try expect(UInt8(ascii: ":"), "':' after member name \"\(TextExcerpt.short(key))\"")
            let v = try value(key: key)
            members.append((key, v))
            skipSpace()
            guard i < end else { throw error("unexpected end of file inside an object") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            throw error("expected ',' or '}' after a member, found \(describeHere())")
        }
    }

    /// Whether `key` is already a member: a scan for the usual few members, a set past 16 (so an
    /// object of many members costs no more than linear time).
    package static func contains(_ members: [(key: String, value: JSONValue)], _ key: String, _ names: inout Set<String>) -> Bool {
        if members.count < 16 { return members.contains { $0.key == key } }
        if names.isEmpty { names = Set(members.map(\.key)) }
        return !names.insert(key).inserted
    }

    package mutating func array() throws(Failure) -> JSONValue {
        try nest()
        defer { depth -= 1 }
        i += 1
        var items: [JSONValue] = []
        skipSpace()
        if i < end, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
        while true {
            items.append(try value(key: nil))
            skipSpace()
            guard i < end else { throw error("unexpected end of file inside an array") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            throw error("expected ',' or ']' in an array, found \(describeHere())")
        }
    }

    /// A `coordinates` array: positions go to `positions`, the nesting to the tree.
    package mutating func coordinates() throws(Failure) -> CoordinateTree {
        try nest()
        defer { depth -= 1 }
        guard i < end, bytes[i] == UInt8(ascii: "[") else { throw error("expected '[' in coordinates, found \(describeHere())") }
        i += 1
        skipSpace()
        guard i < end else { throw error("unexpected end of file in coordinates") }
        if bytes[i] == UInt8(ascii: "]") { i += 1; return .list([]) }
        if bytes[i] != UInt8(ascii: "[") {
            // A position: numbers only; the first two are kept, the rest counted.
            var x = 0.0, y = Double.nan, numbers = 0
            while true {
                skipSpace()
                guard i < end, bytes[i] == UInt8(ascii: "-") || (bytes[i] >= 0x30 && bytes[i] <= 0x39) else {
                    throw error("expected a number in a position, found \(describeHere())")
                }
                let v = try number()
                if numbers == 0 { x = v } else if numbers == 1 { y = v }
                numbers += 1
                skipSpace()
                guard i < end else { throw error("unexpected end of file in a position") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; break }
                throw error("expected ',' or ']' in a position, found \(describeHere())")
            }
            let index = positions.count / 2
            positions.append(x)
            positions.append(y)
            return .position(index: index, numbers: numbers)
        }
        var children: [CoordinateTree] = []
        var runStart = -1, runCount = 0, bad: Int?
        while true {
            let child = try coordinates()
            if case let .position(index, numbers) = child {
                guard children.isEmpty else { throw error("positions mixed with arrays in coordinates") }
                if runStart < 0 { runStart = index }
                runCount += 1
                if bad == nil, numbers < 2 || numbers > 3 { bad = runCount }
            } else {
                guard runStart < 0 else { throw error("positions mixed with arrays in coordinates") }
                children.append(child)
            }
            skipSpace()
            guard i < end else { throw error("unexpected end of file in coordinates") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; skipSpace(); continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; break }
            throw error("expected ',' or ']' in coordinates, found \(describeHere())")
        }
        if runStart >= 0 { return .positions(start: runStart, count: runCount, badPosition: bad) }
        return .list(children)
    }

    package mutating func string() throws(Failure) -> String {
        let start = i
        i += 1
        // The usual string, without escapes or control characters, is made from its bytes in
        // place: no buffer to fill byte by byte (a regions file has a dozen strings per feature).
        var close = i
        while close < end, bytes[close] != UInt8(ascii: "\""), bytes[close] != UInt8(ascii: "\\"), bytes[close] >= 0x20 { close += 1 }
        if close < end, bytes[close] == UInt8(ascii: "\"") {
            guard let s = String(validating: UnsafeBufferPointer(rebasing: bytes[i..<close]), as: UTF8.self) else {
                throw error("string is not valid UTF-8", at: start)
            }
            i = close + 1
            return s
        }
        var out: [UInt8] = []
        while true {
            guard i < end else { throw error("unterminated string", at: start) }
            let c = bytes[i]
            if c == UInt8(ascii: "\"") { i += 1; break }
            if c < 0x20 { throw error("control character in a string (escape it)") }
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
            i += 1
            guard i < end else { throw error("unterminated string", at: start) }
            switch bytes[i] {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard i + 2 < end, bytes[i + 1] == UInt8(ascii: "\\"), bytes[i + 2] == UInt8(ascii: "u") else {
                        throw error("lone UTF-16 surrogate in \\u escape")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("bad UTF-16 surrogate pair in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let u = UnicodeScalar(scalar) else { throw error("invalid \\u escape") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default: throw error("unknown escape \\\(describeHere())")
            }
            i += 1
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw error("string is not valid UTF-8", at: start) }
        return s
    }

    /// Reads four hex digits after `\u`; leaves `i` on the last one.
    package mutating func hex4() throws(Failure) -> UInt32 {
        guard i + 4 < end else { throw error("truncated \\u escape") }
        var v: UInt32 = 0
        for k in 1...4 {
            let c = bytes[i + k]
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c - 0x30
            case 0x41...0x46: d = c - 0x41 + 10
            case 0x61...0x66: d = c - 0x61 + 10
            default: throw error("bad hex digit in \\u escape", at: i + k)
            }
            v = v << 4 | UInt32(d)
        }
        i += 4
        return v
    }

    /// A JSON number, converted with one correctly rounded operation when exact (up to 19
    /// digits, |exponent| ≤ 22), else by strtod.
    package mutating func number() throws(Failure) -> Double {
        let start = i
        var negative = false
        if bytes[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        guard i < end, bytes[i] >= 0x30, bytes[i] <= 0x39 else { throw error("a number needs digits") }
        if bytes[i] == 0x30, i + 1 < end, bytes[i + 1] >= 0x30, bytes[i + 1] <= 0x39 {
            throw error("a number cannot start with 0")
        }
        while i < end, bytes[i] >= 0x30, bytes[i] <= 0x39 {
            if digits < 19 { mantissa = mantissa * 10 + UInt64(bytes[i] - 0x30) } else { exponent += 1 }
            if mantissa > 0 { digits += 1 }
            i += 1
        }
        if i < end, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < end, bytes[i] >= 0x30, bytes[i] <= 0x39 else { throw error("a '.' in a number needs digits after it") }
            while i < end, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                if digits < 19 {
                    mantissa = mantissa * 10 + UInt64(bytes[i] - 0x30)
                    exponent -= 1
                    if mantissa > 0 { digits += 1 }
                }
                i += 1
            }
        }
        if i < end, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            var expNegative = false
            if i < end, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
                expNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            guard i < end, bytes[i] >= 0x30, bytes[i] <= 0x39 else { throw error("an exponent needs digits") }
            var e = 0
            while i < end, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                if e < 100_000 { e = e * 10 + Int(bytes[i] - 0x30) }
                i += 1
            }
            exponent += expNegative ? -e : e
        }
        var value: Double
        if mantissa < (1 << 53), abs(exponent) <= 22 {
            let scale = Self.power10(abs(exponent))
            value = exponent < 0 ? Double(mantissa) / scale : Double(mantissa) * scale
        } else {
            var text = Array(bytes[start..<i])
            text.append(0)
            value = text.withUnsafeBufferPointer { buf in
                buf.withMemoryRebound(to: CChar.self) { strtod($0.baseAddress!, nil) }
            }
            guard value.isFinite else {
                throw error("number \(TextExcerpt.short(String(decoding: bytes[start..<i], as: UTF8.self))) is out of range (beyond ±1.8e308)", at: start)
            }
            return value
        }
        if negative { value = -value }
        return value
    }

    package static func power10(_ k: Int) -> Double {
        var v = 1.0
        for _ in 0..<k { v *= 10 }  // exact up to 1e22
        return v
    }
}
