import Foundation
import IntegrationSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The web app and HTTP API: treelined with an `http:` section (HTTPS with its own certificate,
/// a token), gpsd fed the walk, checked by the Python scripts of Tests/Browser: plain HTTPS
/// clients, and Selenium driving Debian's chromium. What the tests of both suites share:
extension DaemonSuite {
    /// Adds an `http:` section: a free port on loopback, the page from web/.
    func serveWeb(_ daemon: DaemonProcess, extra: String = "") throws -> Int {
        let port = NMEAFeeder.freePort()
        let config = try String(contentsOf: daemon.config, encoding: .utf8)
        let section = "http:\n  listen: 127.0.0.1:\(port)\n  root: \(repository.appendingPathComponent("web").path)\n" + extra
        try Data((config + section).utf8).write(to: daemon.config)
        return port
    }

    /// What every script is told: where the daemon listens, its token and certificate (made at
    /// its first start, beside the database), its socket, and the `treeline` to compare with.
    func webArguments(_ daemon: DaemonProcess, port: Int) -> [String] {
        ["--url", "https://localhost:\(port)/", "--token-file", daemon.folder.appendingPathComponent("web-token").path,
         "--cert", daemon.folder.appendingPathComponent("web-cert.pem").path, "--socket", daemon.socket,
         "--treeline", TreelineProcess.binary.path, "--pid", String(daemon.pid ?? 0)]
    }

    /// Where screenshots are left for a person to look at.
    static var artefacts: URL { repository.appendingPathComponent("out/web") }

    func report(_ name: String, _ r: (status: Int32, results: [String: Any], stderr: String)) {
        let figures = r.results.keys.sorted().map { "\($0)=\(r.results[$0]!)" }.joined(separator: " ")
        print("\(name): \(figures)")
    }

    /// Runs `Tests/Browser/<name>.py` against a daemon that serves the web app, once gpsd has fed
    /// it the whole walk (its journal then holds the 35 events to compare with).
    func afterTheWalk(_ name: String, timeout: Double, arguments: [String] = [],
                      _ check: ((status: Int32, results: [String: Any], stderr: String)) -> Void) async throws {
        try await withGPSD(log: walk) { _, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            let port = try serveWeb(daemon)
            try await daemon.start()
            let (c, _) = try daemon.client()
            try await waitFor(within: 30) { (json(c.ask(#"{"cmd":"state"}"#))["seq"] as? NSNumber)?.int64Value == announcedSeqs + 28 }
            let script = try BrowserScript(name, arguments: webArguments(daemon, port: port) + arguments)
            let r = await script.finish(timeout: timeout)
            report(name, r)
            #expect(r.status == 0, "\(r.stderr)\nlog: \(daemon.logText.suffix(3000))")
            check(r)
        }
    }

    /// Runs `Tests/Browser/<name>.py` beside a daemon that serves the web app, with gpsd fed the
    /// walk at `linesPerTick` lines every `tick` seconds from the moment the script prints READY.
    /// `faster`: the pace's changes, in order, each once the script prints its `line`: from
    /// then on `linesPerTick` lines a tick, until the walk's line `until` when one is given (then
    /// the test's own pace again, for the checks that need it).
    func walkWith(_ name: String, linesPerTick: Int, tick: Double, timeout: Double, arguments: (_ gpsdPort: Int) -> [String] = { _ in [] },
                  faster: [PaceChange] = [],
                  _ check: ((status: Int32, results: [String: Any], stderr: String), DaemonProcess) -> Void) async throws {
        try await withGPSD(log: walk, linesPerTick: linesPerTick, tick: tick) { feeder, gpsd in
            feeder.pause()
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            let port = try serveWeb(daemon)
            try await daemon.start()
            let script = try BrowserScript(name, arguments: webArguments(daemon, port: port) + arguments(gpsd.port))
            #expect(await script.waitFor("READY", timeout: 90))
            feeder.resume()
            let speedUp = Task {
                for f in faster {
                    guard await script.waitFor(f.line, timeout: timeout) else { return }
                    if let until = f.until {
                        feeder.pace(linesPerTick: f.linesPerTick, untilLine: until, then: linesPerTick)
                    } else {
                        feeder.pace(linesPerTick: f.linesPerTick)
                    }
                }
            }
            let r = await script.finish(timeout: timeout)
            speedUp.cancel()
            report(name, r)
            #expect(r.status == 0, "\(r.stderr)\nlog: \(daemon.logText.suffix(3000))")
            check(r, daemon)
        }
    }
}

/// A change of the walk's pace in `walkWith`: once the script prints `line`, `linesPerTick`
/// lines a tick, until the walk's line `until` (nil: to its end).
struct PaceChange: Sendable {
    let line: String
    let linesPerTick: Int
    var until: Int?
}

/// The index of the walk's first line of the fix at `time` (hhmmss, e.g. "091309"), as the
/// feeder counts its lines: where a faster stretch of the walk ends.
func walkLine(at time: String) throws -> Int {
    let lines = try NMEAFeeder.servedLines(walk)
    guard let k = lines.firstIndex(where: { $0.hasPrefix("$GPRMC,\(time)") }) else {
        throw POSIXError(.EINVAL, "the walk has no fix at \(time)")
    }
    return k
}

/// The HTTP API and the web server against hostile clients, without a browser.
extension Daemon {
    /// Without the token every path is 401; with it, `POST /api` answers byte for byte what the
    /// socket answers; the certificate pinned, the names it was made for; SSE resumes by
    /// `Last-Event-ID` and filters as the socket's subscription.
    @Test func theHTTPAPIIsTheSocketsBehindATokenOverPinnedTLS() async throws {
        try await afterTheWalk("http_api", timeout: 120) { r in
            #expect((r.results["unauthorized_paths"] as? Int ?? 0) >= 15)
            #expect((r.results["parity_commands"] as? Int ?? 0) >= 15)
        }
    }

    /// Huge bodies, slow clients, 500 connections, malformed input: 4xx or a closed connection,
    /// and all the while the daemon answers and streams events with its memory bounded.
    @Test func hostileHTTPClientsGetRefusedAndTheDaemonStaysHealthy() async throws {
        try await walkWith("hostile", linesPerTick: 10, tick: 0.05, timeout: 300) { r, daemon in
            // Every event of the walk reached a subscriber that was streaming through it all.
            #expect(r.results["events_streamed"] as? Int == Int(announcedSeqs) + 28)
            #expect(daemon.isRunning)
        }
    }

    /// A hostile page or upload cannot turn the board's own origin against its user: a picture
    /// that is a page is refused (415), a photo is served only by the name the board wrote, as
    /// its checked type, in a sandbox; paths with a NUL, a control character, a backslash or an
    /// encoded slash are 400 before any file is opened; with the cookie a change must be JSON
    /// (415) from this origin (403: another port of the same host is another origin), while
    /// the bearer token works from anywhere; the 413 carries the security headers; `/?token=`
    /// sends the browser back to a plain path of this origin only. Files 0600, folder 0700.
    @Test func aHostilePageOrUploadCannotUseTheBoardsOrigin() async throws {
        try await walkWith("web_attacks", linesPerTick: 10, tick: 0.1, timeout: 240) { r, daemon in
            #expect((r.results["photo"] as? String ?? "").hasSuffix(".png"))
            #expect(daemon.isRunning)
        }
    }

    /// SIGTERM ends the daemon within 2 s (as the README says) with a page open: an event
    /// stream, the AR view's layout stream and an idle keep-alive connection, over TLS, whose
    /// client never answers the close with its own close_notify.
    @Test func sigtermEndsTheDaemonWithinTwoSecondsWithAPageOpen() async throws {
        try await withGPSD(log: walk) { _, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            let port = try serveWeb(daemon)
            try await daemon.start()
            let script = try BrowserScript("held_open", arguments: webArguments(daemon, port: port))
            // READY: the three connections are open, each past its response's head.
            #expect(await script.waitFor("READY", timeout: 30))
            let stopped = daemon.terminate(within: 10)
            print("SIGTERM with a page open: \(stopped.map { String(format: "exit %d after %.2f s", $0.status, $0.seconds) } ?? "not within 10 s")")
            #expect(stopped?.status == 0)
            #expect((stopped?.seconds ?? 99) < 2, "SIGTERM took \(stopped?.seconds ?? 99) s with a page open")
            let r = await script.finish(timeout: 30)
            #expect(r.status == 0, "\(r.stderr)")
        }
    }
}

/// The web app in a browser.
extension InBrowser {
    /// The page in Firefox too (Debian's firefox-esr over Marionette): the journal, the regions,
    /// every view, no error; screenshots in out/web.
    @Test func theWebAppWorksInFirefox() async throws {
        try await afterTheWalk("firefox", timeout: 180, arguments: ["--shots", Self.artefacts.path]) { r in
            #expect(r.results["firefox_events"] as? Int == Int(announcedSeqs) + 28 + 1, "the walk's events and the script's marker, on screen")
            #expect(r.results["firefox_errors"] as? Int == 0)
        }
    }

    /// The cross-port attack in chromium: a page on another port of the board's host (the same
    /// site, so the cookie goes along) posts to /api by fetch no-cors and by a form; nothing is
    /// added, and the board's own page still posts.
    @Test func aPageOnAnotherPortCannotChangeTheBoardWithItsCookie() async throws {
        try await afterTheWalk("cross_port", timeout: 120) { r in
            #expect((r.results["own_page"] as? [Any])?.first as? Int == 200)
        }
    }

    /// A cold load of the page over the wire, until the map has drawn the regions: at most
    /// 150 KB (Debian's brotli Leaflet, the app's files gzipped once at start, nothing twice).
    @Test func aColdLoadOfThePageIsSmall() async throws {
        try await afterTheWalk("page_weight", timeout: 120) { r in
            let bytes = r.results["cold_load_bytes"] as? Int ?? .max
            #expect(bytes <= 150 * 1024, "\(bytes) bytes")
            #expect((r.results["responses"] as? Int ?? 0) >= 10, "the page's files, Leaflet's, the API's answers")
        }
    }

    /// The web app in Debian's chromium on a 360×740 screen, while gpsd is fed the walk at
    /// 100 lines a second: the position within 2 s of gpsd's fix, the Events list on screen the
    /// journal's events newest first (each once, none lost or doubled across a reload), Water,
    /// Add plant here, Add album here and Capture (a note, then a photo) as the command line then
    /// sees them; screenshots of each view in out/web.
    @Test func theWebAppFollowsTheWalkInChromium() async throws {
        let arguments: @Sendable (Int) -> [String] = { ["--gpsd-port", String($0), "--shots", Self.artefacts.path, "--last-fix", walkLastFix] }
        try await walkWith("walk", linesPerTick: 10, tick: 0.1, timeout: 400, arguments: arguments) { r, _ in
            #expect((r.results["position_delay_ms_max"] as? Double ?? 9e9) <= 2000)
            #expect((r.results["events_shown"] as? Int ?? 0) >= Int(announcedSeqs) + 28)
            for view in ["map", "plants", "albums", "planting", "events"] {
                #expect(FileManager.default.fileExists(atPath: Self.artefacts.appendingPathComponent("\(view).png").path), "no screenshot of \(view)")
            }
        }
    }
}
