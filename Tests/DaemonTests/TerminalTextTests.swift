import Foundation
import IntegrationSupport
import Testing

/// A name that would drive a terminal (set its title, clear it) never reaches one: the daemon
/// refuses it at every entry, and what the command line prints escapes anything unprintable.
extension DaemonSuite {
    /// `executable ARGS` (in `folder`, else here): exit status, standard output and standard error.
    static func run(_ executable: String, _ arguments: [String], in folder: URL? = nil) throws -> (status: Int32, stdout: [UInt8], stderr: [UInt8]) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        if let folder { p.currentDirectoryURL = folder }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, Array(o), Array(e))
    }
}

extension Daemon {
    /// `treeline ARGS`: exit status, standard output and standard error.
    func treelineBytes(_ arguments: [String]) throws -> (status: Int32, stdout: [UInt8], stderr: [UInt8]) {
        try Self.run(TreelineProcess.binary.path, arguments)
    }

    /// ESC, BEL, C1 (U+0080–U+009F as UTF-8) or a bidi override in bytes a terminal gets.
    static func drivesATerminal(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.unicodeScalars.contains { u in
            (u.value < 0x20 && u != "\n" && u != "\t") || (0x7F...0x9F).contains(u.value) || (0x202A...0x202E).contains(u.value)
                || (0x2066...0x2069).contains(u.value)
        }
    }

    @Test func aNameThatDrivesATerminalIsRefusedAndNeverPrinted() async throws {
        let daemon = try DaemonProcess(gpsdPort: NMEAFeeder.freePort(), regions: sampleRegions)
        defer { daemon.finish() }
        try await daemon.start()
        let evil = "evil\u{1B}]0;pwned\u{07}\u{1B}[2J"
        let socket = ["--socket", daemon.socket]

        // Through the socket, as any client would send it.
        let (c, _) = try daemon.client()
        for line in [#"{"cmd":"add_region","kind":"plant","name":"evil\u001b]0;pwned\u0007\u001b[2J","interval_days":3,"at":[40.1,-8.24]}"#,
                     #"{"cmd":"add_region","kind":"album","name":"Beach","note":"\u009b2J","at":[40.1,-8.24]}"#,
                     #"{"cmd":"add_region","kind":"album","name":"\u202egpj.exe","at":[40.1,-8.24]}"#] {
            let answer = c.ask(line) ?? ""
            #expect(json(answer)["class"] as? String == "ERROR", "\(answer)")
            #expect(!Self.drivesATerminal(Array(answer.utf8)), "the refusal quotes nothing raw: \(answer)")
        }

        // Through the command line: refused, and the message printed escaped.
        for arguments in [["plants", "add", evil, "--every", "3d", "--at", "40.1,-8.24"], ["water", evil],
                          ["albums", "add", "Beach", "--note", "\u{9B}2J", "--at", "40.1,-8.24"], ["regions", "remove", evil]] {
            let r = try treelineBytes(arguments + socket)
            #expect(r.status != 0, "\(arguments) refused")
            #expect(!Self.drivesATerminal(r.stdout) && !Self.drivesATerminal(r.stderr),
                    "\(arguments): \(String(decoding: r.stderr, as: UTF8.self).debugDescription)")
            #expect(String(decoding: r.stderr, as: UTF8.self).contains("\\u{1B}") || arguments.contains("albums"),
                    "the character named, escaped: \(String(decoding: r.stderr, as: UTF8.self))")
        }

        // Nothing of it was kept: every list prints plain text.
        for arguments in [["plants"], ["albums"], ["regions"], ["state"]] {
            let r = try treelineBytes(arguments + socket)
            #expect(r.status == 0 && !Self.drivesATerminal(r.stdout), "\(arguments)")
        }
        #expect(!(json(c.ask(#"{"cmd":"regions"}"#))["regions"] as? [[String: Any]] ?? []).contains { ($0["name"] as? String)?.contains("evil") == true })
    }
}
