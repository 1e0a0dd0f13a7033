import ArgumentParser
import Config
import Foundation
import Loading

extension Treeline {
    struct Web: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the address a phone opens for treelined's web app, with its token (and a QR code).",
            discussion: """
            Reads the config's http: section and the token treelined made at its first start \\
            (http.token_file, by default web-token beside the database: readable by root and \\
            the treeline user only, so run this with sudo). Opening the address once sets a \\
            cookie on the phone; after that the plain address works.

            With listen: 0.0.0.0 (the board's Wi-Fi) every name and address of the board is \\
            printed, the first also as a QR code when Debian's qrencode is installed. With \\
            tls: auto the phone warns once about the board's self-signed certificate: accept it.

            Examples:
              sudo treeline web
              treeline web --config Data/treeline.yaml --no-qr
            """
        )

        @Option(help: "The daemon's config file.")
        var config = "/etc/treeline/treeline.yaml"

        @Flag(help: "No QR code, only the addresses.")
        var noQR = false

        func run() throws {
            let settings = try Loader.config(config)
            guard let http = settings.http else {
                throw UserError("\(config) has no http: section: add one (docs/web.md) and restart treelined")
            }
            let state = URL(fileURLWithPath: settings.database).deletingLastPathComponent().path
            let tokenFile = http.tokenFile ?? state + "/web-token"
            guard let data = FileManager.default.contents(atPath: tokenFile) else {
                let why = FileManager.default.fileExists(atPath: tokenFile)
                    ? "cannot be read by this user: run `sudo treeline web`"
                    : "does not exist yet: treelined makes it at its first start with an http: section (systemctl restart treelined)"
                throw UserError("the web token \(tokenFile) \(why)")
            }
            let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let https: Bool
            if case .off = http.tls { https = false } else { https = true }
            let urls = BoardAddresses.current().urls(listenHost: http.host, port: http.port, https: https).map { $0 + "?token=" + token }
            var text = "Open on the phone (once; the page keeps the token as a cookie):\n"
            for url in urls { text += "  " + url + "\n" }
            if https, case .auto = http.tls { text += "The board's certificate is self-signed: the browser asks once to accept it.\n" }
            // Written unbuffered: qrencode's output follows it on the same descriptor.
            FileHandle.standardOutput.write(Data(text.utf8))
            if !noQR, let first = urls.first, let qrencode = Self.onPath("qrencode") {
                let p = Process()
                p.executableURL = URL(fileURLWithPath: qrencode)
                p.arguments = ["-t", "ANSIUTF8", "-m", "2", first]
                try p.run()
                p.waitUntilExit()
            }
        }

        static func onPath(_ name: String) -> String? {
            for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
                let path = "\(dir)/\(name)"
                if FileManager.default.isExecutableFile(atPath: path) { return path }
            }
            return nil
        }
    }
}
