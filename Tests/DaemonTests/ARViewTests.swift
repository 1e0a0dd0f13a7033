import Foundation
import IntegrationSupport
import Testing

/// The AR view (`/ar/`) in Debian's chromium with a fake camera, against a daemon whose gpsd is
/// fed a receiver that stands, walks 20 m north and stands again (Tests/Browser/ar_scene.py):
/// boxes where `treeline layout` puts them, a heading sweep that asks the board nothing, a new
/// layout after the walk, one after two regions are added at once and one after one is removed,
/// focus with Water and Capture, the radar.
extension InBrowser {
    /// The scene's files in a fresh folder: regions.geojson, stand-walk.nmea, scene.json.
    func arScene() throws -> URL {
        let folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("tl-ar-\(UUID().uuidString.prefix(8))")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [repository.appendingPathComponent("Tests/Browser/ar_scene.py").path, folder.path]
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw POSIXError(.EIO, "ar_scene.py failed (\(p.terminationStatus))") }
        return folder
    }

    @Test func theARViewDrawsTheProjectorsLayoutAndTurnsWithoutAsking() async throws {
        let scene = try arScene()
        defer { try? FileManager.default.removeItem(at: scene) }
        let facts = try JSONSerialization.jsonObject(with: Data(contentsOf: scene.appendingPathComponent("scene.json"))) as! [String: Any]
        let standLines = facts["stand_lines"] as! Int
        // 10 epochs a second: the standing part is out in 6 s, then the feed waits for the script.
        try await withGPSD(log: scene.appendingPathComponent("stand-walk.nmea"), linesPerTick: 3, tick: 0.1) { feeder, gpsd in
            feeder.pause(atLine: standLines)
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: [scene.appendingPathComponent("regions.geojson")])
            defer { daemon.finish() }
            let port = try serveWeb(daemon)
            try await daemon.start()
            let script = try BrowserScript("ar", arguments: webArguments(daemon, port: port) + [
                "--scene", scene.appendingPathComponent("scene.json").path,
                "--shots", Self.artefacts.path,
            ])
            // The script has compared the boxes and swept the heading: now the walk.
            let walking = await script.waitFor("WALK", timeout: 240)
            #expect(walking, "the script never asked for the walk")
            feeder.resume()
            let r = await script.finish(timeout: 240)
            report("ar", r)
            #expect(r.status == 0, "\(r.stderr)\nlog: \(daemon.logText.suffix(3000))")
            #expect(r.results["headings_compared"] as? Int == 3)
            #expect((r.results["boxes_compared"] as? Int ?? 0) >= 6)
            #expect(r.results["sweep_requests"] as? Int == 0)
            #expect(r.results["sweep_network_requests"] as? Int == 0)
            #expect((r.results["sweep_frames"] as? Int ?? 0) >= 72)
            #expect(r.results["moved_layouts"] as? Int == 1)
            #expect(r.results["layouts_for_two_regions"] as? Int == 1)
            for name in ["ar", "ar-seam", "ar-focus"] {
                #expect(FileManager.default.fileExists(atPath: Self.artefacts.appendingPathComponent("\(name).png").path), "no screenshot \(name)")
            }
        }
    }
}
