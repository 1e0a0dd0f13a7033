import Foundation
import Testing
@testable import Web

/// The page's scripts and stylesheets served without their comment lines: whole comment lines
/// go, nothing else; a file this cannot follow is served as it is; every file of `web/` loses
/// only comment lines, and loses them.
@Suite struct CommentLinesTests {
    static func strip(_ text: String, script: Bool = true) -> String {
        String(decoding: CommentLines.stripped(Array(text.utf8), script: script), as: UTF8.self)
    }

    @Test func wholeCommentLinesGoAndNothingElse() {
        // Each line, and whether it is kept.
        let lines: [(String, Bool)] = [
            ("// a comment line", false),
            ("  // an indented one", false),
            ("const a = `x", true),
            ("// inside a template: kept", true),
            ("/* kept too */", true),
            ("`; // after code: kept", true),
            ("/**", false),
            (" * a block", false),
            (" */", false),
            (#"const b = "//"; /* inline */ const c = 1;"#, true),
            ("  /* one line */", false),
            ("const d = '`'; // a backtick in a string", true),
            (#"const e = `${`nested`} and \` escaped`;"#, true),
            (#"const f = "a \" quote"; // it's fine"#, true),
            ("/* a block whose end", false),
            ("   closes the line */", false),
            ("const g = 1 / 2 / 3;", true),
            ("", true),
        ]
        let text = lines.map(\.0).joined(separator: "\n")
        #expect(Self.strip(text) == lines.filter(\.1).map(\.0).joined(separator: "\n"))
    }

    @Test func aFileItCannotFollowIsLeftAsItIs() {
        for text in ["const a = `open\n// x\n", "/* a\n b */ const x = 1;\n// y\n", "/* never closed\n// y\n"] {
            #expect(Self.strip(text) == text, "\(text)")
        }
    }

    @Test func stylesheetsLoseTheirCommentLinesOnly() {
        let css = "/* a rule */\na { color: red; } /* kept */\n/* two\n   lines */\n// not a CSS comment: kept\nb {}\r\n  /* indented */\r\n"
        #expect(Self.strip(css, script: false) == "a { color: red; } /* kept */\n// not a CSS comment: kept\nb {}\r\n")
    }

    /// Every script and stylesheet of the page: what is left is its lines in order, less lines
    /// that are comments, and each file with comments loses some.
    @Test func thePagesFilesLoseOnlyCommentLines() throws {
        let web = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../web").standardizedFileURL
        let walker = try #require(FileManager.default.enumerator(at: web, includingPropertiesForKeys: nil))
        var files = 0, before = 0, after = 0
        for case let url as URL in walker where ["js", "css"].contains(url.pathExtension) {
            let text = try String(contentsOf: url, encoding: .utf8)
            let out = Self.strip(text, script: url.pathExtension == "js")
            files += 1
            before += text.utf8.count
            after += out.utf8.count
            var kept = out.split(separator: "\n", omittingEmptySubsequences: false)[...]
            var inBlock = false
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if let next = kept.first, next == line {
                    kept.removeFirst()
                    continue
                }
                let t = line.trimmingCharacters(in: .whitespaces)
                let comment = inBlock || t.hasPrefix("//") || t.hasPrefix("/*")
                #expect(comment, "\(url.lastPathComponent): dropped a line that is not a comment: \(line)")
                inBlock = (inBlock || t.hasPrefix("/*")) && !t.hasSuffix("*/")
            }
            #expect(kept.isEmpty, "\(url.lastPathComponent): lines out of order")
            if text.contains("\n// ") || text.hasPrefix("// ") { #expect(out.utf8.count < text.utf8.count, "\(url.lastPathComponent) kept its comments") }
        }
        #expect(files >= 30)
        print("comment lines: \(files) files, \(before) bytes, \(after) without their comment lines")
    }
}
