import Foundation
import GRDB
import Testing
import Tiles

/// MBTiles files written here as a tiler writes them (TMS rows from the south), read back
/// through `MBTiles`: the rows flipped to a web map's, the metadata checked, and every file
/// that is not a raster MBTiles refused with what it is and what to do.
@Suite struct MBTilesTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 1, count: 40)

    /// A file with `metadata` pairs and tiles (z, x, TMS row, bytes).
    static func file(_ metadata: [(String, String)], tiles: [(Int, Int, Int, [UInt8])], name: String = "ortho") throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).mbtiles").path
        let db = try DatabaseQueue(path: path)
        try db.write { db in
            try db.execute(sql: "CREATE TABLE metadata (name TEXT, value TEXT)")
            try db.execute(sql: "CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB)")
            for (k, v) in metadata { try db.execute(sql: "INSERT INTO metadata VALUES (?, ?)", arguments: [k, v]) }
            for (z, x, row, data) in tiles {
                try db.execute(sql: "INSERT INTO tiles VALUES (?, ?, ?, ?)", arguments: [z, x, row, Data(data)])
            }
        }
        return path
    }

    @Test func rowsAreFlippedFromTMS() throws {
        // At zoom 3 a web map's row 2 is the file's row 8 − 1 − 2 = 5.
        let a = Self.png + [1], b = Self.png + [2]
        let path = try Self.file([("name", "Drone 2026"), ("format", "png"), ("bounds", "-8.25,40.09,-8.23,40.11"), ("minzoom", "3"),
                                  ("maxzoom", "4"), ("attribution", "© Crew")],
                                 tiles: [(3, 1, 5, a), (4, 3, 0, b)])
        let tiles = try MBTiles(path: path)
        #expect(try tiles.tile(z: 3, x: 1, y: 2) == Data(a))
        #expect(try tiles.tile(z: 4, x: 3, y: 15) == Data(b))
        #expect(try tiles.tile(z: 3, x: 1, y: 5) == nil, "the TMS row is not the web map's")
        #expect(try tiles.tile(z: 5, x: 0, y: 0) == nil)
        let m = tiles.metadata
        #expect(m.name == "Drone 2026" && m.format == .png && m.bounds == [-8.25, 40.09, -8.23, 40.11] && m.minZoom == 3 && m.maxZoom == 4)
        #expect(m.attribution == "© Crew")
        #expect(try tiles.levels() == [MBTiles.Level(zoom: 3, tiles: 1, bytes: a.count), MBTiles.Level(zoom: 4, tiles: 1, bytes: b.count)])
    }

    @Test func withoutAFormatTheTilesSayIt() throws {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0, count: 20)
        let tiles = try MBTiles(path: try Self.file([], tiles: [(0, 0, 0, jpeg)], name: "topo"))
        #expect(tiles.metadata.format == .jpg && tiles.metadata.name.hasPrefix("topo-"), "named from the file: \(tiles.metadata.name)")
        let webp: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8)
        #expect(try MBTiles(path: try Self.file([], tiles: [(0, 0, 0, webp)])).metadata.format == .webp)
    }

    @Test func whatIsNotARasterMBTilesIsRefusedWithWhy() throws {
        func refusal(_ path: String) -> String {
            do {
                _ = try MBTiles(path: path)
                return "opened"
            } catch {
                return error.description
            }
        }
        let text = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID().uuidString).mbtiles").path
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: text))
        #expect(refusal(text).contains("is not an MBTiles file (not an SQLite database"))
        #expect(refusal("/nonexistent/ortho.mbtiles") == "/nonexistent/ortho.mbtiles cannot be read: check the path and that the treeline user may read it")
        let other = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString).db").path
        try DatabaseQueue(path: other).write { try $0.execute(sql: "CREATE TABLE event (seq INTEGER)") }
        #expect(refusal(other).hasSuffix("is an SQLite database but not an MBTiles file (no metadata and tiles tables); make one with gdal_translate -of MBTILES"))
        #expect(refusal(try Self.file([("format", "pbf")], tiles: [])).hasSuffix("holds vector tiles (pbf): the map draws raster tiles; make a PNG, JPEG or WebP MBTiles"))
        #expect(refusal(try Self.file([("format", "tiff")], tiles: [])).hasSuffix("has tiles in format 'tiff': the map draws png, jpg or webp"))
        #expect(refusal(try Self.file([], tiles: [(0, 0, 0, [1, 2, 3])])).hasSuffix("says no format and its tiles are not PNG, JPEG or WebP"))
        #expect(refusal(try Self.file([("format", "png"), ("bounds", "-8.2,40.1,-8.3,40.2")], tiles: [])).contains("has bounds '-8.2,40.1,-8.3,40.2'"))
        #expect(refusal(try Self.file([("format", "png"), ("maxzoom", "31")], tiles: [])).hasSuffix("has maxzoom '31': a whole number from 0 to 30"))
        #expect(refusal(try Self.file([("format", "png"), ("minzoom", "9"), ("maxzoom", "4")], tiles: [])).hasSuffix("has minzoom 9 above maxzoom 4"))
    }

    @Test func onlyTilesOfTheWorldAreAskedFor() {
        #expect(MBTiles.inRange(z: 0, x: 0, y: 0) && MBTiles.inRange(z: 30, x: (1 << 30) - 1, y: 0))
        #expect(!MBTiles.inRange(z: 31, x: 0, y: 0) && !MBTiles.inRange(z: -1, x: 0, y: 0))
        #expect(!MBTiles.inRange(z: 3, x: 8, y: 0) && !MBTiles.inRange(z: 3, x: 0, y: -1))
    }
}
