import Foundation
import IntegrationSupport
import Testing

/// The crew on every board's map (Tests/Browser/crew.py): one real mosquitto, two boards on it
/// (`board-a` and `board-b`, each with `owntracks:` set, so each publishes its location and sees
/// the other's), each fed by its own gpsd: board A the walk, board B the same walk 120 m north
/// and 60 m east, both dated from now and fed at the receiver's own pace (a fix a second), so
/// the positions' ages are real. chromium opens board A's page: board B shows on its map with
/// its name, where B last published (within 5 m), its age (at most 15 s) and its accuracy (B's
/// `acc`), and moves as B walks; A never shows itself; a member whose retained location is
/// cleared goes from the map and the list within 10 s; a hostile member (markup as its name, a
/// position out of range) is plain text or left out, never run; a position 10 minutes old shows
/// stale; out of reach the page keeps the last answer and its ages go on counting; it asks only
/// while the map is shown. axe-core with the list open, 44 px targets; screenshots at 320×640,
/// 390×844 and 844×390 in out/web/crew-*.png.
extension InBrowser {
    @Test func theCrewShowsOnEveryBoardsMap() async throws {
        let broker = try MosquittoProcess()
        try await broker.start()
        let folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("tl-crew-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer {
            broker.finish()
            try? FileManager.default.removeItem(at: folder)
        }
        let walkA = folder.appendingPathComponent("walk-a.nmea"), walkB = folder.appendingPathComponent("walk-b.nmea")
        try CrewWalk.write(walk, to: walkA, north: 0, east: 0, from: Date())
        // 5,325 lines over 1,340 s of fixes: the receiver's pace, so a fix's time is the clock's.
        let pace = (lines: 1, tick: 1340.0 / 5325)
        try await withGPSD(log: walkA, linesPerTick: pace.lines, tick: pace.tick) { _, gpsdA in
            try CrewWalk.write(walk, to: walkB, north: 120, east: 60, from: Date())
            try await withGPSD(log: walkB, linesPerTick: pace.lines, tick: pace.tick) { feederB, gpsdB in
                let a = try DaemonProcess(gpsdPort: gpsdA.port, regions: sampleRegions)
                let b = try DaemonProcess(gpsdPort: gpsdB.port, regions: sampleRegions)
                defer {
                    a.finish()
                    b.finish()
                }
                try connect(a, to: broker, clientID: "board-a", extra: CrewWalk.ownTracks(user: "board-a"))
                try connect(b, to: broker, clientID: "board-b", extra: CrewWalk.ownTracks(user: "board-b"))
                let port = try serveWeb(a)
                try await a.start()
                try await b.start()
                let mqtt = ["--mqtt-port", String(broker.port), "--mqtt-user", broker.username, "--mqtt-password", broker.password, "--socket-b", b.socket]
                let script = try BrowserScript("crew", arguments: webArguments(a, port: port) + ["--shots", Self.artefacts.path] + mqtt)
                // B stands still (its receiver quiet) for the check of its latest position.
                if await script.waitFor("PAUSE_B", timeout: 400) { feederB.pause() }
                let r = await script.finish(timeout: 600)
                report("crew", r)
                #expect(r.status == 0, "\(r.stderr)\nA's log: \(a.logText.suffix(2000))\nB's log: \(b.logText.suffix(1000))")
                #expect(r.results["b_shown_name"] as? String == "board-b")
                #expect((r.results["b_latest_off_m"] as? Double ?? 99) <= 5)
                #expect((r.results["b_walking_off_max_m"] as? Double ?? 99) <= 5)
                #expect((r.results["b_age_shown_max_s"] as? Double ?? 99) <= 15)
                #expect(r.results["b_acc_matches"] as? Bool == true)
                #expect((r.results["b_positions_seen"] as? Int ?? 0) >= 3)
                #expect(r.results["self_shown"] as? Bool == false)
                #expect((r.results["b_gone_after_clear_s"] as? Double ?? 99) <= 10)
                #expect(r.results["hostile_ran"] as? Bool == false)
                #expect(r.results["hostile_as_text"] as? Bool == true)
                #expect(r.results["out_of_range_shown"] as? Bool == false)
                #expect(r.results["stale_shown"] as? Bool == true)
                #expect(r.results["offline_kept_ages_counting"] as? Bool == true)
                #expect(r.results["asked_while_hidden"] as? Int == 0)
                #expect(r.results["centred_on_tap"] as? Bool == true)
                #expect(r.results["axe_serious_or_critical"] as? Int == 0)
                #expect(r.results["small_targets"] as? Int == 0)
                #expect(r.results["console_errors"] as? Int == 0)
                for name in ["map-390x844", "list-390x844", "list-320x640", "map-320x640", "list-844x390", "map-844x390", "list-390x844-sun"] {
                    let shot = Self.artefacts.appendingPathComponent("crew-\(name).png")
                    #expect(FileManager.default.fileExists(atPath: shot.path), "no screenshot \(shot.lastPathComponent)")
                }
                #expect(a.isRunning && b.isRunning)
            }
        }
    }
}

/// A board's walk for the crew test: an NMEA log moved north and east by some metres, its fixes
/// dated from a moment on (each as far from the first as in the log), checksums made again.
enum CrewWalk {
    /// The `owntracks:` lines of a board: its user level, a location at every fix that moved a metre.
    static func ownTracks(user: String) -> String {
        "  owntracks: {user: \(user), device: treeline, interval_s: 1, distance_m: 1}\n"
    }

    static func write(_ log: URL, to out: URL, north: Double, east: Double, from start: Date) throws {
        let text = try String(contentsOf: log, encoding: .utf8)
        var first: Double?
        var lines: [String] = []
        for line in text.split(whereSeparator: \.isNewline) {
            guard line.hasPrefix("$"), let star = line.lastIndex(of: "*") else { continue }
            var f = line[line.index(after: line.startIndex)..<star].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let type = f[0].dropFirst(2)
            if ["RMC", "GGA", "GST"].contains(type), let t = secondsOfDay(f[1]) {
                let base = first ?? t
                first = base
                let at = start.addingTimeInterval(t - base)
                f[1] = clock(at)
                if type == "RMC" { f[9] = date(at) }
            }
            if type == "RMC" { move(&f, lat: 3, lon: 5, north: north, east: east) }
            if type == "GGA" { move(&f, lat: 2, lon: 4, north: north, east: east) }
            let body = f.joined(separator: ",")
            lines.append("$\(body)*\(String(format: "%02X", body.utf8.reduce(0) { $0 ^ $1 }))")
        }
        try Data((lines.joined(separator: "\r\n") + "\r\n").utf8).write(to: out)
    }

    static func secondsOfDay(_ s: String) -> Double? {
        guard s.count >= 6, let h = Double(s.prefix(2)), let m = Double(s.dropFirst(2).prefix(2)), let sec = Double(s.dropFirst(4)) else { return nil }
        return h * 3600 + m * 60 + sec
    }

    static func utc(_ d: Date) -> DateComponents {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: d)
    }

    static func clock(_ d: Date) -> String {
        let c = utc(d)
        return String(format: "%02d%02d%02d.%02d", c.hour!, c.minute!, c.second!, c.nanosecond! / 10_000_000)
    }

    static func date(_ d: Date) -> String {
        let c = utc(d)
        return String(format: "%02d%02d%02d", c.day!, c.month!, c.year! % 100)
    }

    /// Moves the fields `lat` (ddmm.mmmmm, then N/S) and `lon` (dddmm.mmmmm, then E/W).
    static func move(_ f: inout [String], lat: Int, lon: Int, north: Double, east: Double) {
        guard let la = degrees(f[lat], f[lat + 1]), let lo = degrees(f[lon], f[lon + 1]) else { return }
        let newLat = la + north / 111_320, newLon = lo + east / (111_320 * cos(la * .pi / 180))
        (f[lat], f[lat + 1]) = field(newLat, width: 2, positive: "N", negative: "S")
        (f[lon], f[lon + 1]) = field(newLon, width: 3, positive: "E", negative: "W")
    }

    static func degrees(_ value: String, _ hemisphere: String) -> Double? {
        guard let v = Double(value) else { return nil }
        let d = (v / 100).rounded(.towardZero) + v.truncatingRemainder(dividingBy: 100) / 60
        return hemisphere == "S" || hemisphere == "W" ? -d : d
    }

    static func field(_ deg: Double, width: Int, positive: String, negative: String) -> (String, String) {
        let a = abs(deg), whole = a.rounded(.towardZero)
        let minutes = (a - whole) * 60
        return (String(format: "%0\(width)d%08.5f", Int(whole), minutes), deg < 0 ? negative : positive)
    }
}
