import Foundation
import IntegrationSupport
import Testing

/// An offline basemap made as a crew would make one from a drone's GeoTIFF, with Debian's GDAL:
/// `gdal_create` (a 512×512 RGB GeoTIFF over the walk's hillside), `gdal_translate -of MBTILES`,
/// `gdaladdo` (zoom 15 below 16). `treeline tiles` says what it holds; treelined serves it at
/// /tiles/ (Tests/Browser/tiles.py compares every tile with the file).
struct ToolFailed: Error, CustomStringConvertible {
    var description: String
}

extension InBrowser {
    /// `executable ARGS` in `folder`, its output as text.
    static func runText(_ executable: String, _ arguments: [String], in folder: URL) throws -> (status: Int32, stdout: String, stderr: String) {
        let r = try run(executable, arguments, in: folder)
        return (r.status, String(decoding: r.stdout, as: UTF8.self), String(decoding: r.stderr, as: UTF8.self))
    }

    /// One of GDAL's tools (gdal-bin); a failure says what it said.
    static func gdal(_ arguments: [String], in folder: URL) throws {
        let r = try runText("/usr/bin/" + arguments[0], Array(arguments.dropFirst()), in: folder)
        guard r.status == 0 else { throw ToolFailed(description: "\(arguments.joined(separator: " ")): \(r.stderr) (make test installs gdal-bin)") }
    }

    @Test func anMBTilesMadeByGDALIsServedAsTheBoardsBasemap() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tiles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.gdal(["gdal_create", "-of", "GTiff", "-outsize", "512", "512", "-bands", "3", "-ot", "Byte", "-burn", "40", "-burn", "160",
                       "-burn", "60", "-a_srs", "EPSG:4326", "-a_ullr", "-8.2450", "40.1030", "-8.2350", "40.0970", "ortho.tif"], in: folder)
        try Self.gdal(["gdal_translate", "-q", "-of", "MBTILES", "-co", "NAME=Drone 2026", "ortho.tif", "ortho.mbtiles"], in: folder)
        try Self.gdal(["gdaladdo", "-q", "-r", "average", "ortho.mbtiles", "2", "4"], in: folder)
        let mbtiles = folder.appendingPathComponent("ortho.mbtiles").path

        let said = try Self.runText(TreelineProcess.binary.path, ["tiles", mbtiles], in: folder)
        #expect(said.status == 0 && said.stdout.hasPrefix("Drone 2026: png tiles, 6 tiles,"), "\(said.stdout)\(said.stderr)")
        #expect(said.stdout.contains("zooms: 15 to 16 held (metadata: minzoom 15, maxzoom 16)"), "\(said.stdout)")
        let refused = try Self.runText(TreelineProcess.binary.path, ["tiles", folder.appendingPathComponent("ortho.tif").path], in: folder)
        #expect(refused.status != 0 && refused.stderr.contains("ortho.tif is not an MBTiles file"), "\(refused.stderr)")

        try await withGPSD(log: walk) { _, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            let port = try serveWeb(daemon, extra: "  tiles: \(mbtiles)\n")
            do {
                try await daemon.start()
            } catch {
                Issue.record("treelined did not start: \(error)\nlog: \(daemon.logText.prefix(3000))")
                return
            }
            let script = try BrowserScript("tiles", arguments: webArguments(daemon, port: port) + ["--mbtiles", mbtiles])
            let r = await script.finish(timeout: 120)
            report("tiles", r)
            #expect(r.status == 0, "\(r.stderr)\nlog: \(daemon.logText.suffix(2000))")
            #expect(r.results["tiles_served"] as? Int == 2 * (r.results["tiles_in_file"] as? Int ?? -1))
            #expect(daemon.logText.contains("basemap Drone 2026 from \(mbtiles): png, zoom 15–16"))
        }
    }
}
