import Foundation
import IntegrationSupport
import Testing

/// 100,000 regions on the map (Tests/Browser/many_regions.py): treelined started on a regions
/// file made here (deterministic, seeded), the page opened in chromium at 390×844. The map asks
/// for its view (`bbox`, `zoom`, capped) and draws it on a canvas: the first regions painted
/// within 1 s of navigation (the median of five visits with the page's files cached; a cold
/// load is reported), the live JS heap under 60 MB at every step (after a collection: zoomed
/// in, panned, zoomed in and out, the whole set, the Events view paged back), no console
/// error; the bytes fetched are counted. Screenshots in out/web/many-*.png.
extension InBrowser {
    @Test func aHundredThousandRegionsDrawByTheView() async throws {
        let folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("tl-many-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { if ProcessInfo.processInfo.environment["TREELINE_KEEP_MANY"] == nil { try? FileManager.default.removeItem(at: folder) } }
        let file = folder.appendingPathComponent("many.geojson")
        try ManyRegions.write(count: 100_000, seed: 7, to: file)
        // No gpsd: the map shows the regions, not a walk.
        let daemon = try DaemonProcess(gpsdPort: NMEAFeeder.freePort(), regions: [file])
        defer { daemon.finish() }
        let port = try serveWeb(daemon)
        // The first start on 100,000 fences builds their index: minutes on a slow machine.
        do { try await daemon.start(within: 240) } catch {
            Issue.record("treelined did not start on \(file.path): \(error)\n\(daemon.logText.suffix(3000))")
            return
        }
        // The files' 100,000 regions are one journal event: 600 waterings give the Events view
        // more than its first 300 and its next 200 to list.
        let (c, _) = try daemon.client()
        let text = try String(contentsOf: file, encoding: .utf8)
        let kindAt = try #require(text.range(of: #""kind":"plant""#))
        let idAt = try #require(text.range(of: #""id":"m-"#, options: .backwards, range: text.startIndex..<kindAt.lowerBound))
        let plant = "m-" + text[idAt.upperBound...].prefix(6)
        for _ in 0..<600 { #expect(json(c.ask(#"{"cmd":"water","plant":"\#(plant)"}"#))["type"] as? String == "watered") }
        let script = try BrowserScript("many_regions", arguments: webArguments(daemon, port: port) + ["--shots", Self.artefacts.path, "--regions", "100000"])
        let r = await script.finish(timeout: 600)
        report("many_regions", r)
        #expect(r.status == 0, "\(r.stderr)\nlog: \(daemon.logText.suffix(3000))")
        #expect((r.results["first_draw_ms"] as? Double ?? 99_999) <= 1000)
        #expect((r.results["heap_mb"] as? Double ?? 999) < 60)
        #expect((r.results["heap_max_mb"] as? Double ?? 999) < 60)
        #expect(r.results["console_errors"] as? Int == 0)
        for name in ["first", "zoomed-in", "panned", "zoomed-out", "events", "events-older"] {
            let shot = Self.artefacts.appendingPathComponent("many-\(name).png")
            #expect(FileManager.default.fileExists(atPath: shot.path), "no screenshot \(shot.lastPathComponent)")
        }
        #expect(daemon.isRunning)
    }
}

/// A regions file of many fences around Lisbon (38.70 N, 9.14 W; centres uniform in a disc of
/// 20 km): 40 % reforestation areas (star-shaped polygons of 8 to 24 vertices, one in twenty of
/// 240 and one in ten with a hole), 30 % plants and 30 % albums (circles). Seeded: the same file
/// every time.
enum ManyRegions {
    /// SplitMix64: numbers in [0, 1).
    struct Seeded {
        var state: UInt64
        mutating func next() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return Double(z >> 11) / Double(1 << 53)
        }
        mutating func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * next() }
    }

    static let centre = (lat: 38.70, lon: -9.14)
    static let metresPerDegree = 111_320.0

    static func write(count: Int, seed: UInt64, to url: URL) throws {
        var rng = Seeded(state: seed)
        var out = #"{"type":"FeatureCollection","features":["#
        out.reserveCapacity(count * 260)
        let cosLat = cos(centre.lat * .pi / 180)
        for k in 0..<count {
            if k > 0 { out += "," }
            let r = 20_000 * rng.next().squareRoot(), a = rng.uniform(0, 2 * .pi)
            let lat = centre.lat + r * sin(a) / metresPerDegree, lon = centre.lon + r * cos(a) / (metresPerDegree * cosLat)
            let id = String(format: "m-%06d", k + 1), pick = rng.next()
            func point(_ dx: Double, _ dy: Double) -> String {
                String(format: "[%.7f,%.7f]", lon + dx / (metresPerDegree * cosLat), lat + dy / metresPerDegree)
            }
            if pick < 0.4 {
                let mean = rng.uniform(100, 1000)
                let n = rng.next() < 0.05 ? 240 : 8 + Int(rng.uniform(0, 17))
                var rings: [String] = []
                var outer: [String] = []
                for v in 0..<n {
                    let t = Double(v) / Double(n) * 2 * .pi, rad = mean * rng.uniform(0.6, 1.4)
                    outer.append(point(rad * cos(t), rad * sin(t)))
                }
                outer.append(outer[0])
                rings.append("[" + outer.joined(separator: ",") + "]")
                if rng.next() < 0.1 {
                    // A hole well inside the shell (its least radius is 0.6 × mean), clockwise.
                    let h = mean * 0.2
                    var hole: [String] = []
                    for v in 0..<6 {
                        let t = -Double(v) / 6 * 2 * .pi
                        hole.append(point(h * cos(t), h * sin(t)))
                    }
                    hole.append(hole[0])
                    rings.append("[" + hole.joined(separator: ",") + "]")
                }
                out += #"{"type":"Feature","properties":{"id":"\#(id)","kind":"reforestation","name":"Area \#(k + 1)","species":["Quercus robur"]},"#
                out += #""geometry":{"type":"Polygon","coordinates":[\#(rings.joined(separator: ","))]}}"#
            } else if pick < 0.7 {
                let radius = String(format: "%.1f", rng.uniform(15, 150)), days = 1 + Int(rng.uniform(0, 30))
                out += #"{"type":"Feature","properties":{"id":"\#(id)","kind":"plant","name":"Plant \#(k + 1)","radius_m":\#(radius),"interval_days":\#(days)},"#
                out += #""geometry":{"type":"Point","coordinates":\#(point(0, 0))}}"#
            } else {
                let radius = String(format: "%.1f", rng.uniform(20, 400))
                out += #"{"type":"Feature","properties":{"id":"\#(id)","kind":"album","name":"Album \#(k + 1)","radius_m":\#(radius)},"#
                out += #""geometry":{"type":"Point","coordinates":\#(point(0, 0))}}"#
            }
        }
        out += "]}\n"
        try Data(out.utf8).write(to: url)
    }
}
