import Foundation
import Geo
import IntegrationSupport
import Loading
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Regions and records changed while the daemon runs, with a real gpsd fed the walk.
extension Daemon {
    /// Mid-walk, a plant is added where the walker stands and another where the walk goes later:
    /// each is announced (`region_added`), entered on evidence (the first `initial`, as it was
    /// added around the walker) and due at once (never watered); `water` resets the first; it is
    /// removed while inside it (`region_removed`, no `exit`). The subscriber's events (the files'
    /// regions from their `base_layer` record, `base_regions`), applied to an empty list, give
    /// exactly the regions the daemon answers at the end; the recorded track
    /// is valid GPX 1.1 with the fixes `replay --gpx` keeps.
    @Test func regionsAddedMidWalkAreAnnouncedEnteredAndRebuiltFromTheStream() async throws {
        var fixes: [Coordinate] = []
        _ = try LogFile(path: walk.path).replay { f in if let c = f.coordinate, f.mode >= .twoD { fixes.append(c) } }
        try await withGPSD(log: walk, linesPerTick: 8, tick: 0.01) { feeder, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            feeder.pause()
            try await daemon.start()
            let (events, _) = try daemon.client()
            #expect(json(events.ask(#"{"cmd":"subscribe","since":0,"base_regions":true}"#))["class"] as? String == "SUBSCRIBED")
            var seen: [[String: Any]] = []
            func read(until done: ([String: Any]) -> Bool, within seconds: Double = 30) -> [String: Any]? {
                let deadline = Date().addingTimeInterval(seconds)
                while Date() < deadline, let line = events.line(timeout: max(0.1, deadline.timeIntervalSinceNow)) {
                    let e = json(line)
                    seen.append(e)
                    if done(e) { return e }
                }
                return nil
            }
            let (c, _) = try daemon.client()

            // A third of the way, the walker stops: the feed stops after an epoch's last sentence
            // (its GST), and gpsd reports that epoch at once; the daemon's last fix is then that
            // epoch's, a known time (not a last fix that stood still for 0.3 s).
            let lines = try NMEAFeeder.servedLines(walk)
            let gst = try #require(lines[(lines.count / 3)...].firstIndex { $0.hasPrefix("$GPGST,") })
            let hhmmss = lines[gst].split(separator: ",")[1]
            let stopTime = "2026-05-01T\(hhmmss.prefix(2)):\(hhmmss.dropFirst(2).prefix(2)):\(hhmmss.dropFirst(4).prefix(2)).000Z"
            feeder.resume(until: gst + 1)
            try await waitFor(within: 30) { feeder.served == gst + 1 }
            try await waitFor(within: 10) { (json(c.ask(#"{"cmd":"state"}"#))["last_fix"] as? [String: Any])?["time"] as? String == stopTime }
            let here = json(c.ask(#"{"cmd":"state"}"#))["last_fix"] as? [String: Any] ?? [:]
            let stop = Coordinate(latitude: here["lat"] as? Double ?? 0, longitude: here["lon"] as? Double ?? 0)

            // Plant A where the walker stands (its circle takes in the whole walk); plant B at a
            // point of the walk's last quarter, at least 60 m from here.
            let added = json(c.ask(#"{"cmd":"add_region","kind":"plant","name":"Basil","interval_days":3,"radius_m":1000}"#))
            #expect(added["class"] as? String == "EVENT" && added["type"] as? String == "region_added", "\(added)")
            let a = try #require(added["region"] as? String)
            #expect(a == "plant-1", "the first id made for a plant")
            let feature = added["feature"] as? [String: Any] ?? [:]
            let centre = (feature["geometry"] as? [String: Any])?["coordinates"] as? [Double] ?? []
            #expect(centre.count == 2 && abs(centre[1] - stop.latitude) < 1e-7 && abs(centre[0] - stop.longitude) < 1e-7, "placed at the last fix: \(centre) vs \(stop)")
            let later = try #require(fixes[(fixes.count * 3 / 4)...].first { Geodesic.wgs84.distance($0, stop) > 60 })
            let b = try #require(json(c.ask(#"{"cmd":"add_region","kind":"plant","name":"Rosemary","interval_days":7,"radius_m":12,"at":[\#(later.latitude),\#(later.longitude)]}"#))["region"] as? String)
            #expect(b == "plant-2")

            feeder.resume()
            let enterA = read { $0["region"] as? String == a && $0["type"] as? String == "enter" }
            #expect(enterA?["initial"] as? Bool == true, "entered because it was added around the walker: \(enterA ?? [:])")
            let dueA = read { $0["region"] as? String == a && $0["type"] as? String == "water_due" }
            #expect(dueA != nil && dueA?["time"] as? String == enterA?["time"] as? String, "never watered: due on entering")
            let watered = json(c.ask(#"{"cmd":"water","plant":"\#(a)"}"#))
            #expect(watered["type"] as? String == "watered", "\(watered)")
            #expect(read { $0["region"] as? String == a && $0["type"] as? String == "watered" } != nil)
            let listed = (json(c.ask(#"{"cmd":"regions"}"#))["regions"] as? [[String: Any]] ?? []).first { $0["id"] as? String == a } ?? [:]
            #expect(listed["last_watered"] as? String == watered["time"] as? String && listed["due"] as? Bool == false, "\(listed)")

            let enterB = read { $0["region"] as? String == b && $0["type"] as? String == "enter" }
            #expect(enterB != nil && enterB?["initial"] == nil, "an ordinary enter: the walk came to it")
            #expect(read { $0["region"] as? String == b && $0["type"] as? String == "water_due" } != nil)

            try await waitFor(within: 60) { feeder.served >= feeder.count }
            try await waitFor(within: 10) { (json(c.ask(#"{"cmd":"state"}"#))["last_fix"] as? [String: Any])?["time"] as? String == walkLastFix }
            let inside = json(c.ask(#"{"cmd":"state"}"#))["inside"] as? [String] ?? []
            #expect(inside.contains(a), "still inside plant A at the end: \(inside)")
            let removed = json(c.ask(#"{"cmd":"remove_region","region":"\#(a)"}"#))
            #expect(removed["type"] as? String == "region_removed" && removed["inside"] as? Bool == true, "\(removed)")
            let seqRemoved = (removed["seq"] as? NSNumber)?.int64Value ?? -1
            #expect(read { ($0["seq"] as? NSNumber)?.int64Value == seqRemoved } != nil)
            #expect(!seen.contains { $0["region"] as? String == a && $0["type"] as? String == "exit" }, "no exit for a removed region")
            // Nothing after the removal: a marker added now is the next event (and a region the
            // stream and the daemon's list then both have).
            let marker = Self.marker(daemon.socket)
            let next = read { _ in true }
            #expect((next?["seq"] as? NSNumber)?.int64Value == marker && marker == seqRemoved + 1, "nothing after the removal: \(next ?? [:])")

            // The stream rebuilds the list: region events give each region's Feature, waterings
            // its last watering.
            var rebuilt: [String: [String: Any]] = [:]
            var order: [String] = []
            for e in seen {
                guard let id = e["region"] as? String else { continue }
                switch e["type"] as? String {
                case "region_added", "region_updated":
                    if rebuilt[id] == nil { order.append(id) }
                    rebuilt[id] = e["feature"] as? [String: Any]
                case "region_removed":
                    rebuilt[id] = nil
                    order.removeAll { $0 == id }
                case "watered":
                    var f = rebuilt[id] ?? [:]
                    var p = f["properties"] as? [String: Any] ?? [:]
                    p["last_watered"] = e["time"]
                    f["properties"] = p
                    rebuilt[id] = f
                default: break
                }
            }
            let answered = json(c.ask(#"{"cmd":"regions","geometry":true}"#))["regions"] as? [[String: Any]] ?? []
            #expect(answered.map { $0["id"] as? String ?? "" } == order, "the same regions in the same order")
            for r in answered {
                let id = r["id"] as? String ?? ""
                let f = rebuilt[id] ?? [:]
                let p = f["properties"] as? [String: Any] ?? [:]
                #expect(p["kind"] as? String == r["kind"] as? String && p["name"] as? String == r["name"] as? String, "\(id)")
                #expect(NSDictionary(dictionary: f["geometry"] as? [String: Any] ?? [:]).isEqual(to: r["geometry"] as? [String: Any] ?? [:]), "\(id)'s geometry")
                #expect(p["interval_days"] as? Int == r["interval_days"] as? Int && p["last_watered"] as? String == r["last_watered"] as? String, "\(id): \(p) vs \(r)")
                #expect((p["species"] as? [String]) == (r["species"] as? [String]), "\(id)")
            }

            // The track: GPX 1.1 by the schema, one trkpt per thinned fix, as replay keeps them.
            let gpx = daemon.folder.appendingPathComponent("walk.gpx").path
            let track = try TreelineProcess.run(["track", "--gpx", "-o", gpx, "--socket", daemon.socket])
            #expect(track.status == 0)
            let xsd = repository.appendingPathComponent("Tests/Fixtures/gpx/gpx.xsd").path
            let lint = try tool("/usr/bin/xmllint", ["--noout", "--nonet", "--schema", xsd, gpx])
            #expect(lint.status == 0, "xmllint: \(lint.stderr)")
            let replayGPX = daemon.folder.appendingPathComponent("replay.gpx").path
            _ = try TreelineProcess.run(["replay", walk.path] + sampleRegions.flatMap { ["--regions", $0.path] } + ["--gpx", replayGPX])
            let points = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8))?.components(separatedBy: "<trkpt ").count ?? 0 }
            #expect(points(gpx) > 100 && points(gpx) == points(replayGPX), "\(points(gpx) - 1) points live, \(points(replayGPX) - 1) replayed")
        }
    }

    /// Albums: a capture where the last fix is inside is recorded; outside, it is refused with the
    /// distance to walk, and nothing is recorded.
    @Test func captureInsideIsRecordedAndOutsideRefusedWithTheDistance() async throws {
        try await withGPSD(log: walk) { feeder, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try await daemon.start()
            let (c, _) = try daemon.client()
            try await waitFor(within: 30) { (json(c.ask(#"{"cmd":"state"}"#))["last_fix"] as? [String: Any])?["time"] as? String == "2026-05-01T09:22:19.000Z" }
            let fix = json(c.ask(#"{"cmd":"state"}"#))["last_fix"] as? [String: Any] ?? [:]
            let here = Coordinate(latitude: fix["lat"] as? Double ?? 0, longitude: fix["lon"] as? Double ?? 0)

            let add = try TreelineProcess.run(["albums", "add", "Beach", "--radius", "50", "--socket", daemon.socket])
            #expect(add.status == 0 && add.stdout.contains("added album album-1 (Beach)"), "\(add.stdout)")
            // 300 m north, 100 m around: the edge is 200 m away.
            let far = Geodesic.wgs84.direct(from: here, bearing: 0, distance: 300)
            _ = try TreelineProcess.run(["albums", "add", "Dunes", "--radius", "100", "--at", "\(far.latitude),\(far.longitude)", "--socket", daemon.socket])

            let inside = json(c.ask(#"{"cmd":"capture","album":"album-1","file":"DCIM/IMG_0042.jpg","note":"low tide"}"#))
            #expect(inside["recorded"] as? Bool == true, "\(inside)")
            let capture = inside["capture"] as? [String: Any] ?? [:]
            #expect(capture["time"] as? String == "2026-05-01T09:22:19.000Z" && capture["file"] as? String == "DCIM/IMG_0042.jpg")
            #expect(abs((capture["lat"] as? Double ?? 0) - here.latitude) < 1e-7 && abs((capture["lon"] as? Double ?? 0) - here.longitude) < 1e-7)

            let outside = json(c.ask(#"{"cmd":"capture","album":"album-2"}"#))
            #expect(outside["recorded"] as? Bool == false, "\(outside)")
            let walkMetres = outside["walk_m"] as? Double ?? 0
            #expect(abs(walkMetres - 200) < 0.5, "200 m to the edge, not \(walkMetres)")
            #expect((outside["reason"] as? String)?.contains("200 m from its edge") == true, "\(outside)")
            let cli = try TreelineProcess.run(["capture", "album-2", "--socket", daemon.socket])
            #expect(cli.status != 0)

            let listed = json(c.ask(#"{"cmd":"captures"}"#))["captures"] as? [[String: Any]] ?? []
            #expect(listed.count == 1 && listed.first?["album"] as? String == "album-1", "only the capture inside: \(listed)")
            let table = try TreelineProcess.run(["captures", "album-1", "--socket", daemon.socket])
            #expect(table.stdout.contains("DCIM/IMG_0042.jpg") && table.stdout.contains("low tide"), "\(table.stdout)")
            let albums = try TreelineProcess.run(["albums", "--socket", daemon.socket])
            #expect(albums.stdout.contains("Beach") && albums.stdout.contains("allowed") && albums.stdout.contains("locked"), "\(albums.stdout)")

            // After a restart the last fix is yesterday's news until gpsd gives a new one.
            gpsd.kill()
            #expect(daemon.terminate()?.status == 0)
            try await daemon.start()
            let stale = json(try daemon.client().0.ask(#"{"cmd":"capture","album":"album-1"}"#))
            #expect((stale["message"] as? String)?.contains("no fix since treelined started") == true, "\(stale)")
        }
    }
}

/// Runs `path` with `arguments`; its exit status, standard output and standard error.
func tool(_ path: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = arguments
    let o = Pipe(), e = Pipe()
    p.standardOutput = o
    p.standardError = e
    try p.run()
    // Both pipes drained at once: a full one would block the child.
    nonisolated(unsafe) var err = Data()
    let reader = Thread { err = e.fileHandleForReading.readDataToEndOfFile() }
    reader.start()
    let out = o.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    while !reader.isFinished { usleep(1_000) }
    return (p.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
}

/// `treeline` with `arguments`, standard error kept.
func treeline(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    try tool(TreelineProcess.products.appendingPathComponent("treeline").path, arguments)
}
