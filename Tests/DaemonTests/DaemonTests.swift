import Foundation
import IntegrationSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

let walk = repository.appendingPathComponent("Data/walk.nmea")
let sampleRegions = [repository.appendingPathComponent("Data/regions.geojson"),
                     repository.appendingPathComponent("Data/regions-pt-tm06.geojson")]
/// How many regions those files hold.
let sampleRegionCount: Int64 = 7
/// The events a daemon's first start on a database journals before any fix's: the files'
/// regions announced in one `base_layer` record (seq 1).
let announcedSeqs: Int64 = 1

/// Whether an event line is one of the region layers' (`region_added`, `region_updated`,
/// `region_removed`, `base_layer`): `withoutSeq` leaves them out, for comparing with what
/// `replay` gives.
func isRegionEvent(_ line: String) -> Bool { line.contains(#""type":"region_"#) || line.contains(#""type":"base_layer""#) }

/// The seqs of `n` events after the announcements of `announced` regions.
func seqs(_ n: Int, after announced: Int64 = announcedSeqs) -> [Int64] { Array((announced + 1)...(announced + Int64(n))) }

/// `treeline replay --regions` of a log: the events a daemon fed the same log must send.
func replayed(_ log: URL, regions: [URL], monitor: [String] = []) throws -> [String] {
    let r = try TreelineProcess.run(["replay", log.path] + regions.flatMap { ["--regions", $0.path] } + monitor)
    return r.stdout.split(separator: "\n").map(String.init)
}

/// An EVENT line without its `class` and `seq`: what replay prints for the same event.
func withoutSeq(_ line: String) -> (seq: Int64, event: String)? {
    guard line.hasPrefix(#"{"class":"EVENT","seq":"#), !isRegionEvent(line) else { return nil }
    let rest = line.dropFirst(#"{"class":"EVENT","seq":"#.count)
    guard let comma = rest.firstIndex(of: ","), let seq = Int64(rest[..<comma]) else { return nil }
    var event = "{" + rest[rest.index(after: comma)...]
    if let r = event.range(of: #","received_ns":"#) { event = String(event[..<r.lowerBound]) + "}" }
    return (seq, event)
}

/// Whether two event lines are the same event: every field equal, except that the numbers may
/// differ in their last printed digit. gpsd parses the NMEA coordinates with its own arithmetic,
/// which agrees with Treeline's to 1e-9° but not bit for bit; a distance that falls on a
/// rounding tie (1.165 m) then prints as 1.16 live and 1.17 replayed.
func sameEvent(_ a: String, _ b: String) -> Bool {
    if a == b { return true }
    let x = json(a), y = json(b)
    guard !x.isEmpty, Set(x.keys) == Set(y.keys) else { return false }
    for (k, v) in x {
        if let n = v as? NSNumber, let m = y[k] as? NSNumber, !(v is String) {
            let step = (k == "lat" || k == "lon") ? 1.01e-7 : 0.0101
            if abs(n.doubleValue - m.doubleValue) > step { return false }
        } else if "\(v)" != "\(y[k] ?? "")" {
            return false
        }
    }
    return true
}

/// The first place two event lists differ (nil: the same events).
func firstDifference(_ a: [String], _ b: [String]) -> String? {
    if let k = Array(zip(a, b)).firstIndex(where: { !sameEvent($0, $1) }) { return "at \(k): \(a[k]) vs \(b[k])" }
    return a.count == b.count ? nil : "\(a.count) events vs \(b.count)"
}

/// What the daemon's suites share: the helpers in `extension DaemonSuite`.
///
/// Each suite runs its tests one at a time, and `make test` runs the two side by side (a test
/// mostly waits: on a walk fed at a walker's pace, on a page), but for the first draw of 100,000
/// regions, which a busy core slows past its limit: it runs alone after them (docs/testing.md).
protocol DaemonSuite {}

/// The daemon with a real gpsd fed an NMEA log, a real socket and a real SQLite file.
@Suite(.serialized) struct Daemon: DaemonSuite {
    @Test func aSubscriberGetsTheEventsReplayGives() async throws {
        let expected = try replayed(walk, regions: sampleRegions)
        #expect(expected.count == 28)
        try await withGPSD(log: walk) { _, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try await daemon.start()
            let (client, hello) = try daemon.client()
            #expect(hello["class"] as? String == "HELLO")
            #expect(client.ask(#"{"cmd":"subscribe","since":0}"#).map { json($0)["class"] as? String } == "SUBSCRIBED")
            var got: [(seq: Int64, event: String)] = []
            while got.count < expected.count, let line = client.line(timeout: 20) {
                if let e = withoutSeq(line) { got.append(e) }
            }
            #expect(firstDifference(got.map(\.event), expected) == nil)
            #expect(got.map(\.seq) == seqs(expected.count))
            // Nothing more comes: a marker added now is the next event.
            let end = Self.marker(daemon.socket)
            #expect(end == announcedSeqs + Int64(expected.count) + 1)
            let next = client.line(timeout: 10)
            #expect((json(next)["seq"] as? NSNumber)?.int64Value == end && regionName(json(next)) == "Marker", "\(next ?? "nothing")")
            // A filtered subscriber, from the journal: albums' events and every plant's enter.
            let (filtered, _) = try daemon.client()
            _ = filtered.ask(#"{"cmd":"subscribe","since":0,"kinds":["album"]}"#)
            let albums = expected.filter { json($0)["kind"] as? String == "album" }
            #expect(albums.count == 10)
            var got2: [String] = []
            while got2.count < albums.count, let line = filtered.line(timeout: 10) { if let e = withoutSeq(line) { got2.append(e.event) } }
            #expect(firstDifference(got2, albums) == nil)
            let (enters, _) = try daemon.client()
            _ = enters.ask(#"{"cmd":"subscribe","since":\#(announcedSeqs + 3),"kinds":["plant"],"types":["enter"]}"#)
            let plantEnters = Array(expected.dropFirst(3)).filter { json($0)["kind"] as? String == "plant" && json($0)["type"] as? String == "enter" }
            var got3: [String] = []
            while got3.count < plantEnters.count, let line = enters.line(timeout: 10) { if let e = withoutSeq(line) { got3.append(e.event) } }
            #expect(!plantEnters.isEmpty && firstDifference(got3, plantEnters) == nil)
            // Nothing more: the answer to a command on the same connection comes next (no marker
            // event of this filter can be made without a fix).
            #expect(linesBefore(answerTo: enters) == [], "nothing after the plants' enters")
            let stopped = daemon.terminate()
            #expect(stopped?.status == 0, "log: \(daemon.logText)")
            #expect((stopped?.seconds ?? 99) < 2, "SIGTERM to exit: \(stopped?.seconds ?? -1) s")
        }
    }
}

/// The daemon's tests that drive a browser (chromium or firefox, through Tests/Browser's
/// scripts), one at a time: two pages at once on two cores slow each other's drawing past what
/// the tests time (the first draw of 100,000 regions went from 0.8 s to 1.2 s).
@Suite(.serialized) struct InBrowser: DaemonSuite {}

extension Daemon {
    /// Every kind of bad input gets an ERROR that says what is wrong, and the same connection
    /// then answers a good command; other clients are served all along.
    @Test func badInputGetsAnErrorAndTheConnectionStaysUsable() async throws {
        try await withGPSD(log: walk) { _, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try await daemon.start()
            let (c, _) = try daemon.client()
            let cases: [(String, String)] = [
                ("this is not json", "not JSON"),
                ("[1,2,3]", "not a JSON object"),
                (#"{"command":"state"}"#, "missing \"cmd\""),
                (#"{"cmd":"foo"}"#, "unknown cmd 'foo'"),
                (#"{"cmd":"subscribe","since":"ten"}"#, "\"since\" must be a whole number"),
                (#"{"cmd":"subscribe","kinds":"plant"}"#, "\"kinds\" must be a list of strings"),
                (#"{"cmd":"water","plant":12}"#, "\"plant\" must be a plant's id"),
                (#"{"cmd":"water","plant":"no-such-plant"}"#, "no region 'no-such-plant'"),
                (#"{"cmd":"water","plant":"album-miradouro"}"#, "not a plant"),
                ("\u{01}\u{02}\u{ff}garbage", "not JSON"),
            ]
            for (input, message) in cases {
                let reply = json(c.ask(input))
                #expect(reply["class"] as? String == "ERROR", "\(input): \(reply)")
                #expect((reply["message"] as? String)?.contains(message) == true, "\(input): \(reply)")
            }
            // A line over 64 KiB, sent in pieces.
            let long = #"{"cmd":"state","x":""# + String(repeating: "a", count: 70_000) + "\"}\n"
            c.send(long)
            let tooLong = json(c.line())
            #expect(tooLong["class"] as? String == "ERROR")
            #expect((tooLong["message"] as? String)?.contains("over the limit of 64 KiB") == true, "\(tooLong)")
            // Still usable, and still the daemon is healthy for everyone.
            #expect(json(c.ask(#"{"cmd":"state"}"#))["class"] as? String == "STATE")
            let (other, _) = try daemon.client()
            #expect(json(other.ask(#"{"cmd":"regions"}"#))["class"] as? String == "REGIONS")
            #expect(daemon.isRunning)
        }
    }

    /// SIGHUP with a broken regions file: the log names the file and the reason, the regions in
    /// force stay; mended (with a region more), SIGHUP takes it.
    @Test func reloadWithABrokenRegionsFileKeepsTheOldOnes() async throws {
        try await withGPSD(log: walk) { _, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try await daemon.start()
            let (c, _) = try daemon.client()
            func ids() -> [String] {
                (json(c.ask(#"{"cmd":"regions"}"#))["regions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            }
            // The ids of a regions file, in its order.
            func fileIDs(_ url: URL) throws -> [String] {
                let doc = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
                return (doc["features"] as? [[String: Any]] ?? []).compactMap { ($0["properties"] as? [String: Any])?["id"] as? String }
            }
            let before = ids()
            #expect(before.count > 5)
            // The daemon's order: the files' regions, file by file, each in its file's order.
            #expect(before == (try fileIDs(daemon.regionFile(0))) + (try fileIDs(daemon.regionFile(1))), "\(before)")
            let file = daemon.regionFile(0)
            let good = try Data(contentsOf: file)
            // Not JSON at all.
            try Data("{\"type\": \"FeatureCollection\", \"features\": [".utf8).write(to: file)
            daemon.signal(SIGHUP)
            try await waitFor(within: 10) { daemon.logText.contains("reload refused") }
            #expect(daemon.logText.contains(file.path), "the error names the file: \(daemon.logText)")
            #expect(ids() == before)
            // JSON, but a feature without a kind.
            var text = String(decoding: good, as: UTF8.self)
            text = text.replacingOccurrences(of: "\"kind\": \"album\"", with: "\"kinf\": \"album\"")
            text = text.replacingOccurrences(of: "\"kind\":\"album\"", with: "\"kinf\":\"album\"")
            try Data(text.utf8).write(to: file)
            daemon.signal(SIGHUP)
            try await waitFor(within: 10) { daemon.logText.components(separatedBy: "reload refused").count == 3 }
            #expect(daemon.logText.contains("kind"), "the reason is given: \(daemon.logText)")
            #expect(ids() == before)
            // Mended, with one region more: taken.
            var mended = try JSONSerialization.jsonObject(with: good) as! [String: Any]
            var features = mended["features"] as! [[String: Any]]
            features.append(["type": "Feature",
                             "properties": ["id": "album-new", "kind": "album", "name": "New album", "radius_m": 50],
                             "geometry": ["type": "Point", "coordinates": [-8.236, 40.103]]])
            mended["features"] = features
            try JSONSerialization.data(withJSONObject: mended).write(to: file)
            daemon.signal(SIGHUP)
            try await waitFor(within: 10) { daemon.logText.contains("reloaded") }
            // The new region where the file has it: after the first file's others, before the second's.
            let after = ids()
            #expect(after == (try fileIDs(file)) + (try fileIDs(daemon.regionFile(1))), "\(after)")
            #expect(after.filter { $0 != "album-new" } == before && after.count == before.count + 1, "\(after)")
            #expect(daemon.isRunning)
        }
    }

    /// SIGHUP with the species catalog gone: the catalog read before stays in force, so planting
    /// goes on (the log says so); a reload does not turn planting off.
    @Test func reloadWithABrokenCatalogKeepsTheOneInForce() async throws {
        try await withGPSD(log: walk) { _, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try await daemon.start()
            let (c, _) = try daemon.client()
            let before = try #require(c.ask(#"{"cmd":"species","query":"oak"}"#))
            #expect(before.hasPrefix(#"{"class":"SPECIES","species":[{"#), "\(before)")
            var config = try String(contentsOf: daemon.config, encoding: .utf8)
            config = config.replacingOccurrences(of: "Data/species.json", with: "Data/no-such-species.json")
            try Data(config.utf8).write(to: daemon.config)
            daemon.signal(SIGHUP)
            try await waitFor(within: 10) { daemon.logText.contains("reloaded") }
            try await waitFor(within: 10) { daemon.logText.contains("the one read before stays in force") }
            #expect(c.ask(#"{"cmd":"species","query":"oak"}"#) == before, "the catalog in force answers as before")
            #expect(daemon.isRunning)
        }
    }
}

/// The name a region event carries (in its Feature's properties).
func regionName(_ e: [String: Any]) -> String? {
    ((e["feature"] as? [String: Any])?["properties"] as? [String: Any])?["name"] as? String
}

/// The lines a connection gets before the answer to a `state` sent on it (nil: no answer within
/// 10 s): on a subscribed connection, what the daemon had for it before answering.
func linesBefore(answerTo c: SocketClient) -> [String]? {
    c.send(#"{"cmd":"state"}"# + "\n")
    var before: [String] = []
    while let line = c.line(timeout: 10) {
        if json(line)["class"] as? String == "STATE" { return before }
        before.append(line)
    }
    return nil
}

func waitFor(within seconds: Double, _ condition: () -> Bool) async throws {
    var patience = Patience()
    while !condition() {
        if patience.waited > seconds { throw POSIXError(.ETIMEDOUT, "not within \(seconds) s") }
        await patience.nap(0.02)
    }
}

/// A crash mid-walk: SIGKILL, then a start again once gpsd's client is back, with the feeder
/// paused meanwhile and its last 200 lines offered again (gpsd keeps nothing for a client that
/// is gone; a receiver's buffer stands in for the dead time). The daemon must drop what it had
/// already used and make up nothing.
func killAndRestart(_ daemon: DaemonProcess, feeder: NMEAFeeder) async throws {
    daemon.kill9()
    feeder.pause()
    feeder.rewind(200)
    try await daemon.start()
    let (c, _) = try daemon.client()
    try await waitFor(within: 20) { (json(c.ask(#"{"cmd":"state"}"#))["gpsd"] as? String)?.hasPrefix("connected") == true }
    feeder.resume()
}
