/// The page's scripts and stylesheets without their comment lines, as they are served: their
/// comments are a fifth of what a phone downloads on a cold load, and say nothing to it (they
/// are read in `web/`).
///
/// Only whole lines go: a line that is a `//` comment (scripts), and a `/* … */` comment that
/// starts a line and ends one. A comment after code on its line stays, and so does every line
/// inside a multi-line template literal (scripts), which is followed across lines. Anything this
/// cannot follow (a template or a comment still open at the end, or code after a comment's end
/// on its last line) leaves the file as it is.
enum CommentLines {
    /// `bytes` without their comment lines; `script`: JavaScript, else CSS.
    static func stripped(_ bytes: [UInt8], script: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var inTemplate = false, inBlock = false
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
            let line = bytes[start..<end]
            let next = min(end + 1, bytes.count)
            defer { start = next }
            let text = trimmed(line)
            if inBlock {
                guard let close = text.firstRange(of: "*/".utf8) else { continue }
                // Code after the comment's end on its last line: not a whole-line comment.
                guard close.upperBound == text.endIndex else { return bytes }
                inBlock = false
                continue
            }
            if !inTemplate {
                if script, text.starts(with: "//".utf8) { continue }
                if text.starts(with: "/*".utf8) {
                    guard let close = text.firstRange(of: "*/".utf8) else {
                        inBlock = true
                        continue
                    }
                    if close.upperBound == text.endIndex { continue }
                }
            }
            if script { inTemplate = Self.templateOpen(after: line, inTemplate) }
            out.append(contentsOf: bytes[start..<next])
        }
        return inTemplate || inBlock ? bytes : out
    }

    /// Whether a template literal is open at the end of `line` (kept as it is), given whether one
    /// was at its start: backticks outside strings and comments, escapes skipped. A `'` or `"`
    /// string ends with its line; a regular expression is read as code (the page's have no
    /// backtick or quote that would mislead this).
    static func templateOpen(after line: ArraySlice<UInt8>, _ open: Bool) -> Bool {
        var inTemplate = open
        var quote: UInt8? = nil
        var i = line.startIndex
        while i < line.endIndex {
            let c = line[i]
            if c == UInt8(ascii: "\\"), inTemplate || quote != nil {
                i += 2
                continue
            }
            if let q = quote {
                if c == q { quote = nil }
            } else if inTemplate {
                if c == UInt8(ascii: "`") { inTemplate = false }
            } else if c == UInt8(ascii: "`") {
                inTemplate = true
            } else if c == UInt8(ascii: "'") || c == UInt8(ascii: "\"") {
                quote = c
            } else if c == UInt8(ascii: "/"), i + 1 < line.endIndex, line[i + 1] == UInt8(ascii: "/") {
                break  // a comment to the end of the line
            }
            i += 1
        }
        return inTemplate
    }

    /// The line without its leading and trailing blanks (spaces, tabs, a CR).
    static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        func blank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D }
        var a = line.startIndex, b = line.endIndex
        while a < b, blank(line[a]) { a += 1 }
        while b > a, blank(line[b - 1]) { b -= 1 }
        return line[a..<b]
    }
}
