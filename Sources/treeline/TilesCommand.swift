import ArgumentParser
import Foundation
import JSON
import Tiles

extension Treeline {
    struct TilesCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tiles",
            abstract: "Say what an MBTiles file holds: its name, format, zooms, bounds, tile count and size.",
            discussion: """
            An offline basemap for the web app is an MBTiles file (SQLite, raster PNG, JPEG or \\
            WebP tiles) named by http.tiles in the daemon's config; a list of files makes layers. \\
            This reads the file as the daemon will (read-only) and refuses one it could not serve, \\
            saying why. Make one from a drone's GeoTIFF with GDAL:

              gdal_translate -of MBTILES -co TILE_FORMAT=JPEG ortho.tif ortho.mbtiles
              gdaladdo -r average ortho.mbtiles 2 4 8 16

            Examples:
              treeline tiles /var/lib/treeline/ortho.mbtiles
              treeline tiles ortho.mbtiles --json
            """
        )

        @Argument(help: "The MBTiles file.") var file: String
        @Flag(help: "One JSON object instead of the table.") var json = false

        func run() throws {
            let tiles: MBTiles
            do {
                tiles = try MBTiles(path: file)
            } catch {
                throw UserError(error.description)
            }
            let m = tiles.metadata
            let levels = try tiles.levels()
            let count = levels.reduce(0) { $0 + $1.tiles }, bytes = levels.reduce(0) { $0 + $1.bytes }
            if json {
                var w = JSONWriter()
                w.beginObject()
                w.member("file", file)
                m.writeMembers(to: &w)
                w.member("tiles", count)
                w.member("bytes", bytes)
                w.member("levels") { $0.array(levels) { l, level in l.object { o in o.member("zoom", level.zoom); o.member("tiles", level.tiles); o.member("bytes", level.bytes) } } }
                w.endObject()
                print(String(decoding: w.bytes, as: UTF8.self))
                return
            }
            func size(_ n: Int) -> String { n >= 1 << 20 ? String(format: "%.1f MB", Double(n) / 1_048_576) : String(format: "%.1f KB", Double(n) / 1024) }
            print("\(m.name): \(m.format.rawValue) tiles, \(count) tile\(count == 1 ? "" : "s"), \(size(bytes))")
            let said = [m.minZoom.map { "minzoom \($0)" }, m.maxZoom.map { "maxzoom \($0)" }].compactMap { $0 }
            let held = levels.isEmpty ? "none" : "\(levels.first!.zoom) to \(levels.last!.zoom)"
            print("zooms: \(held) held\(said.isEmpty ? "" : " (metadata: " + said.joined(separator: ", ") + ")")")
            if let b = m.bounds { print(String(format: "bounds: west %.6f, south %.6f, east %.6f, north %.6f", b[0], b[1], b[2], b[3])) }
            if let a = m.attribution { print("attribution: \(a)") }
            if !levels.isEmpty {
                print(HumanText.table([["zoom", "tiles", "size"]] + levels.map { ["\($0.zoom)", "\($0.tiles)", size($0.bytes)] }))
            }
        }
    }
}
