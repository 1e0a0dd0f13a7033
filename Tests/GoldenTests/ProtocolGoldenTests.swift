import Engine
import Foundation
import Geo
import Loading
import Logging
import MQTT
import Rules
import Server
import Store
import Web
import XCTest
import Regions
import Protocol

/// The wire, byte for byte: every command's request and the daemon's reply (or its error), the
/// journal's event lines, the web app's GeoJSON layers and the OwnTracks payloads, as the engine
/// gives them on a fixed walk, against `protocol.golden`. A change of any byte fails here, so
/// the wire cannot change by accident. When it changes on purpose, write the file again with
/// `TREELINE_GOLDEN_WRITE=1 swift test --filter ProtocolGoldenTests` and review its diff.
///
/// Three things vary from run to run and are blanked in both: the commits' durations in `state`
/// (`commit_ms`), the temporary folder's path, and the journal's name (random, `$JOURNAL`).
final class ProtocolGoldenTests: XCTestCase {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("protocol.golden")

    /// Every command with its keys, in an order where each builds on the last; then refusals.
    static let script: [String] = [
        #"{"cmd":"state"}"#,
        #"{"cmd":"regions"}"#,
        #"{"cmd":"regions","geometry":true}"#,
        #"{"cmd":"export"}"#,
        #"{"cmd":"water","plant":"plant-a"}"#,
        #"{"cmd":"undo_water","plant":"plant-a"}"#,
        #"{"cmd":"water","plant":"plant-a"}"#,
        #"{"cmd":"add_region","kind":"plant","name":"Basil","interval_days":3,"radius_m":5}"#,
        #"{"cmd":"add_region","kind":"album","name":"Beach","at":[40.1,-8.24],"radius_m":80}"#,
        #"{"cmd":"add_region","feature":{"type":"Feature","properties":{"kind":"plant","name":"Fig","interval_days":4,"radius_m":12,"species":"Ficus carica"},"geometry":{"type":"Point","coordinates":[-8.2402,40.1002]}}}"#,
        #"{"cmd":"update_region","region":"plant-1","name":"Sweet basil","radius_m":8,"note":"by the door","interval_days":2,"last_watered":"2026-04-30T08:00:00Z","species":"Ocimum basilicum"}"#,
        #"{"cmd":"water","plant":"plant-1"}"#,
        #"{"cmd":"undo_water","plant":"plant-1"}"#,
        #"{"cmd":"undo_water","plant":"plant-1"}"#,
        #"{"cmd":"add_regions","features":[{"type":"Feature","properties":{"id":"x1","kind":"album","name":"X"},"geometry":{"type":"Point","coordinates":[-8.24,40.1]}},{"type":"Feature","properties":{"id":"x2","kind":"plant","name":"Y","interval_days":5},"geometry":{"type":"Point","coordinates":[-8.2401,40.1]}},{"type":"Feature","properties":{"id":"terrace","kind":"reforestation","name":"Terrace","species":["Quercus robur"],"spacing_m":4},"geometry":{"type":"Polygon","coordinates":[[[-8.2410,40.0995],[-8.2390,40.0995],[-8.2390,40.1005],[-8.2410,40.1005],[-8.2410,40.0995]],[[-8.2402,40.0999],[-8.2398,40.0999],[-8.2398,40.1001],[-8.2402,40.1001],[-8.2402,40.0999]]]}}]}"#,
        #"{"cmd":"update_region","region":"terrace","species":["Quercus robur","Pinus pinaster"],"name":"Upper terrace"}"#,
        #"{"cmd":"regions"}"#,
        #"{"cmd":"regions","geometry":true,"bbox":[-8.2405,40.0998,-8.2395,40.1003],"zoom":14,"limit":2}"#,
        #"{"cmd":"regions","bbox":[-8.2405,40.0998,-8.2395,40.1003]}"#,
        #"{"cmd":"regions","geometry":true,"ids":["terrace","x1","gone"]}"#,
        #"{"cmd":"journal","limit":2}"#,
        #"{"cmd":"journal","before":3,"limit":2}"#,
        #"{"cmd":"remove_region","region":"x2"}"#,
        #"{"cmd":"restore_region","region":"x2"}"#,
        #"{"cmd":"restore_region","region":"x2"}"#,
        #"{"cmd":"remove_region","region":"x2"}"#,
        #"{"cmd":"species","query":"oak"}"#,
        #"{"cmd":"species"}"#,
        #"{"cmd":"can_plant","species":"Quercus robur","area":"area-a"}"#,
        #"{"cmd":"can_plant","species":"Quercus robur","at":[40.0995,-8.2415]}"#,
        #"{"cmd":"can_plant","species":"Eucalyptus globulus","area":"area-a"}"#,
        #"{"cmd":"plant","species":"Quercus robur","area":"area-a","at":[40.1,-8.24],"project":"spring","planted":"2026-05-01T09:00:10Z"}"#,
        #"{"cmd":"plant","species":"Pinus pinaster","area":"area-a","at":[40.1005,-8.2405]}"#,
        #"{"cmd":"plant","species":"Quercus robur","area":"area-a","at":[40.10001,-8.24]}"#,
        #"{"cmd":"trees"}"#,
        #"{"cmd":"trees","area":"area-a","project":"spring"}"#,
        #"{"cmd":"plan","area":"area-a","species":"Pinus pinaster","count":4,"seed":7,"at":[40.0995,-8.2415],"max_distance":200}"#,
        #"{"cmd":"remove_tree","tree":1}"#,
        #"{"cmd":"undo_tree"}"#,
        #"{"cmd":"undo_tree"}"#,
        #"{"cmd":"trees"}"#,
        #"{"cmd":"capture","album":"album-a","file":"20260501-090005-1a2b3c4d.jpg","note":"sunset"}"#,
        #"{"cmd":"capture","album":"plant-a"}"#,
        #"{"cmd":"captures"}"#,
        #"{"cmd":"captures","album":"album-a"}"#,
        #"{"cmd":"track"}"#,
        #"{"cmd":"track","since":"2026-05-01T09:00:02Z","until":"2026-05-01T09:00:03Z"}"#,
        #"{"cmd":"layout","heading":0,"fov":[60,80],"screen":[390,844]}"#,
        #"{"cmd":"layout","heading":92.5,"pitch":10,"fov":[70,90],"screen":[844,390],"box":[120,44],"projection":"pinhole","offset":"automatic","clamp":true,"max_visible":2,"max_levels":3,"max_distance":5000,"at":[40.0995,-8.2415]}"#,
        #"{"cmd":"layout","panorama":true,"fov":[60,80],"screen":[360,740],"max_levels":3,"offset":"manual:10:2"}"#,
        #"{"cmd":"layout","panorama":true,"fov":[60,80],"screen":[360,740],"box":[160,56],"sizes":{"plant-1":[212,74],"area-a":[96,56],"nowhere":[50,50]}}"#,
        #"{"cmd":"layout","heading":180,"fov":[60,80],"screen":[360,740],"box":[160,56],"sizes":{"plant-1":[212,74],"terrace":[120,40]}}"#,
        #"{"cmd":"round","regions":["album-a","plant-1","x1","terrace"],"at":[40.0995,-8.2415]}"#,
        #"{"cmd":"round","kind":"plant","due":true}"#,
        #"{"cmd":"round","points":[[40.1003,-8.2403],[40.0998,-8.2401],[40.1001,-8.2407]],"at":[40.1,-8.24]}"#,
        #"{"cmd":"add_trail","trail":"level-1","name":"First steps","checkpoints":[{"region":"plant-a","action":"water"},"album-a"],"project":"spring"}"#,
        #"{"cmd":"add_trail","trail":"level-2","checkpoints":["x1",{"region":"terrace","action":"plant"}],"requires":["level-1"]}"#,
        #"{"cmd":"start_trail","trail":"level-2"}"#,
        #"{"cmd":"start_trail","trail":"level-1"}"#,
        #"{"cmd":"trails"}"#,
        #"{"cmd":"start_trail","trail":"level-2"}"#,
        #"{"cmd":"trails"}"#,
        #"{"cmd":"stop_trail"}"#,
        #"{"cmd":"remove_trail","trail":"level-1"}"#,
        #"{"cmd":"remove_trail","trail":"level-2"}"#,
        #"{"cmd":"state"}"#,
        // No broker here: nobody around.
        #"{"cmd":"crew"}"#,
        #"{"cmd":"crew","user":"x"}"#,
        // Refusals: each names what is wrong and what to send.
        #"not json"#,
        #"[1,2]"#,
        #"{}"#,
        #"{"cmd":7}"#,
        #"{"cmd":"fly"}"#,
        #"{"cmd":"state","x":1}"#,
        #"{"cmd":"water"}"#,
        #"{"cmd":"water","plant":"nope"}"#,
        #"{"cmd":"water","plant":"album-a"}"#,
        #"{"cmd":"regions","geometry":1}"#,
        #"{"cmd":"regions","bbox":[0,50,1,40]}"#,
        #"{"cmd":"regions","zoom":25}"#,
        #"{"cmd":"regions","limit":0}"#,
        #"{"cmd":"regions","ids":[]}"#,
        #"{"cmd":"journal","before":0}"#,
        #"{"cmd":"journal","limit":1001}"#,
        #"{"cmd":"add_region","kind":"tree"}"#,
        #"{"cmd":"add_region","kind":"plant","name":"","interval_days":3}"#,
        #"{"cmd":"update_region","region":"area-a","name":"Z"}"#,
        #"{"cmd":"update_region","region":"plant-1","species":["Ocimum basilicum","Olea europaea"]}"#,
        #"{"cmd":"update_region","region":"album-1","species":"Olea europaea"}"#,
        #"{"cmd":"add_region","kind":"plant","name":"Olive","interval_days":3,"species":7}"#,
        #"{"cmd":"add_region","kind":"album","name":"Beach","species":"Olea europaea"}"#,
        #"{"cmd":"remove_region","region":"area-a"}"#,
        #"{"cmd":"remove_region","region":"gone"}"#,
        #"{"cmd":"can_plant","species":"Nothing at all"}"#,
        #"{"cmd":"plant","area":"area-a"}"#,
        #"{"cmd":"remove_tree","tree":0}"#,
        #"{"cmd":"remove_tree","tree":99}"#,
        #"{"cmd":"capture"}"#,
        #"{"cmd":"track","since":"2026-05-02T00:00:00Z","until":"2026-05-01T00:00:00Z"}"#,
        #"{"cmd":"plan","area":"area-a","species":"Pinus pinaster","count":0}"#,
        #"{"cmd":"layout","fov":[60,80],"screen":[390,844]}"#,
        #"{"cmd":"layout","heading":0,"fov":[1e-300,1e-300],"screen":[1e300,1e300]}"#,
        #"{"cmd":"layout","heading":0,"fov":[60,80],"screen":[360,740],"sizes":[[100,40]]}"#,
        #"{"cmd":"layout","heading":0,"fov":[60,80],"screen":[360,740],"sizes":{"plant-1":[0,40]}}"#,
        #"{"cmd":"layout","heading":0,"fov":[60,80],"screen":[360,740],"sizes":{"plant-1":"wide"}}"#,
        #"{"cmd":"subscribe","kinds":["plant","album"],"regions":["plant-a"],"types":["enter","watered"],"since":3,"timing":true,"positions":true}"#,
        #"{"cmd":"subscribe"}"#,
        #"{"cmd":"subscribe","kinds":[]}"#,
        #"{"cmd":"subscribe","since":-1}"#,
        #"{"cmd":"subscribe","since":0,"part":3,"base_regions":true,"types":["region_added"]}"#,
        #"{"cmd":"subscribe","since":2,"journal":"0123456789abcdef0123456789abcdef"}"#,
        #"{"cmd":"subscribe","journal":42}"#,
        #"{"cmd":"subscribe","part":3}"#,
        #"{"cmd":"subscribe","since":1,"part":0,"base_regions":true}"#,
        #"{"cmd":"species","query":"\u001b[2J"}"#,
        #"{"cmd":"restore_region","region":"area-a"}"#,
        #"{"cmd":"restore_region","region":"nope"}"#,
        #"{"cmd":"undo_water","plant":"album-a"}"#,
        #"{"cmd":"undo_water","plant":"plant-2"}"#,
        #"{"cmd":"round"}"#,
        #"{"cmd":"round","regions":["nope"]}"#,
        #"{"cmd":"round","kind":"album","due":true}"#,
        #"{"cmd":"round","regions":["plant-a"],"points":[[40.1,-8.24]]}"#,
        #"{"cmd":"round","points":[[91,0]]}"#,
        #"{"cmd":"add_trail","trail":"t","checkpoints":[]}"#,
        #"{"cmd":"add_trail","trail":"t","checkpoints":[{"region":"album-a","action":"water"}]}"#,
        #"{"cmd":"add_trail","trail":"t","checkpoints":["nope"]}"#,
        #"{"cmd":"add_trail","trail":"t","checkpoints":["album-a"],"requires":["t"]}"#,
        #"{"cmd":"start_trail","trail":"nope"}"#,
        #"{"cmd":"stop_trail"}"#,
    ]

    func testTheWireIsUnchanged() async throws {
        let world = try await GoldenWorld.make()
        defer { world.remove() }
        var out = ""
        func record(_ label: String, _ bytes: [UInt8]) {
            var text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: world.folder, with: "$FOLDER")
                .replacingOccurrences(of: world.store.journal, with: "$JOURNAL")
            while text.hasSuffix("\n") { text.removeLast() }
            out += label + " " + world.blankClock(text) + "\n"
        }
        for line in Self.script {
            out += "> " + line + "\n"
            let request: Command
            do { request = try Command.parse(Array(line.utf8)) } catch {
                record("!", error.json)
                continue
            }
            if case .subscribe(let s) = request { record("=", Array(Self.describe(s).utf8)); continue }
            switch await world.engine.answer(request) {
            case .success(let json): record("<", Self.blankTimings(json))
            case .failure(let e): record("!", e.json)
            }
        }
        out += "# the journal\n"
        for e in try world.store.events(after: 0, limit: 10_000) {
            var line: [UInt8] = []
            e.appendLine(to: &line)
            record("@", line)
        }
        out += "# GeoJSON layers (GET /api/regions.geojson, trees.geojson, track.geojson)\n"
        for layer in [GeoJSONLayer.regions, .trees, .track] {
            switch await world.engine.geoJSON(layer) {
            case .success(let bytes): record("%", bytes ?? Array("none".utf8))
            case .failure(let e): record("!", e.json)
            }
        }
        out += "# OwnTracks (location, transitions, waypoints)\n"
        let view = await world.engine.snapshot(added: true).ownTracks(kinds: ["plant", "album", "reforestation"])
        let position = try XCTUnwrap(view.position)
        record("&", OwnTracks.location(position, tid: "b7", inside: view.inside))
        for (id, name) in view.inside {
            record("&", OwnTracks.transition(entering: true, region: (id, name), created: view.created[id] ?? UTCTime(nanoseconds: 0), at: position, tid: "b7"))
        }
        record("&", OwnTracks.waypoints(view.waypoints))

        if ProcessInfo.processInfo.environment["TREELINE_GOLDEN_WRITE"] == "1" {
            try out.write(to: Self.golden, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: Self.golden, encoding: .utf8)
        let got = out.split(separator: "\n", omittingEmptySubsequences: false)
        let want = expected.split(separator: "\n", omittingEmptySubsequences: false)
        for (k, (g, w)) in zip(got, want).enumerated() where g != w {
            XCTFail("protocol.golden line \(k + 1) differs:\n want: \(w)\n  got: \(g)")
            return
        }
        XCTAssertEqual(got.count, want.count, "protocol.golden has \(want.count) lines, the run \(got.count)")
        XCTAssertGreaterThan(want.count, Self.script.count * 2, "every request has its answer in the file")
    }

    /// A subscription as read (the connection answers it, not the engine).
    static func describe(_ s: Subscribe) -> String {
        func list(_ set: Set<String>?) -> String { set.map { "[" + $0.sorted().joined(separator: ",") + "]" } ?? "all" }
        return "subscribe kinds=\(list(s.filter.kinds)) regions=\(list(s.filter.regions)) types=\(list(s.filter.types)) "
            + "since=\(s.since.map(String.init) ?? "now")\(s.part.map { " part=\($0)" } ?? "")\(s.filter.baseRegions ? " base_regions" : "") "
            + "timing=\(s.timing) positions=\(s.positions)\(s.journal.map { " journal=\($0)" } ?? "")"
    }

    /// `"commit_ms":{"mean":…,"max":…}` measures the disk: blanked.
    static func blankTimings(_ json: [UInt8]) -> [UInt8] {
        var s = String(decoding: json, as: UTF8.self)
        if let r = s.range(of: #""commit_ms":\{[^}]*\}"#, options: .regularExpression) {
            s.replaceSubrange(r, with: #""commit_ms":{…}"#)
        }
        return Array(s.utf8)
    }
}

/// An engine on a journal of its own, with a plant, an album and a reforestation area, the
/// species catalog, and five fixes walking into all three.
struct GoldenWorld {
    let engine: Engine
    let store: Store
    let folder: String
    /// The clock's seconds around the engine's start: the base layer is announced before any fix,
    /// at the clock's time.
    let started: ClosedRange<Int64>

    /// Times from the clock (the base layer's announcement) blanked: ISO times of another day than
    /// the walk's, and OwnTracks' `tst`/`created_at` seconds within the start.
    func blankClock(_ text: String) -> String {
        var s = text.replacing(/"(20\d\d-\d\d-\d\dT[0-9:.]+Z)"/) { m in
            m.output.1.hasPrefix("2026-05-01") || m.output.1.hasPrefix("2026-04-30") ? "\"\(m.output.1)\"" : "\"<clock>\""
        }
        s = s.replacing(/\b(\d{10})\b/) { m in
            guard let n = Int64(m.output.1), started.contains(n) else { return String(m.output.0) }
            return "<clock>"
        }
        return s
    }

    static func make() async throws -> GoldenWorld {
        let folder = NSTemporaryDirectory() + "treeline-golden-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let regions = try RegionFile.parse(Array(Self.regions.utf8), file: "golden.geojson")
        var logger = Logger(label: "golden")
        logger.logLevel = .critical
        let store = try Store(path: folder + "/treeline.sqlite")
        let engine = try Engine(store: store, base: regions.map { ($0, "golden.geojson") }, config: MonitorConfig(),
                                retention: Retention(journalDays: 36_500, trackDays: 36_500), hub: Hub(), version: "golden",
                                logger: logger, onStatus: { _ in })
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let catalog = try Loader.catalog([root.appendingPathComponent("Data/species.json").path])
        let before = Int64(Date().timeIntervalSince1970)
        try await engine.start()
        let after = Int64(Date().timeIntervalSince1970) + 1
        await engine.setCatalog(.success(catalog))
        for k in 0..<5 {
            let time = UTCTime(year: 2026, month: 5, day: 1, nanosOfDay: Int64(9 * 3600 + k) * 1_000_000_000)!
            let at = Coordinate(latitude: 40.1000 + Double(k) * 2e-6, longitude: -8.2400)
            let fix = Fix(time: time, mode: .threeD, coordinate: at, speed: 0.5, course: 0, horizontalError: 3, hdop: 0.9, satellitesUsed: 9)
            await engine.process(fix, receivedNanos: monotonicNanos())
        }
        return GoldenWorld(engine: engine, store: store, folder: folder, started: before...after)
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }

    static let regions = #"""
        {"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"id":"plant-a","kind":"plant","name":"Oak","interval_days":3,"radius_m":30},
         "geometry":{"type":"Point","coordinates":[-8.2400,40.1000]}},
        {"type":"Feature","properties":{"id":"album-a","kind":"album","name":"View","radius_m":150},
         "geometry":{"type":"Point","coordinates":[-8.2401,40.1001]}},
        {"type":"Feature","properties":{"id":"area-a","kind":"reforestation","name":"Slope","species":["Quercus robur","Pinus pinaster"],"spacing_m":3},
         "geometry":{"type":"Polygon","coordinates":[[[-8.2420,40.0990],[-8.2380,40.0990],[-8.2380,40.1010],[-8.2420,40.1010],[-8.2420,40.0990]]]}}
        ]}
        """#
}
