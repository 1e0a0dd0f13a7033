import Foundation
import GRDB

/// An MBTiles 1.3 file (SQLite: `metadata` and `tiles`, rows counted from the south as TMS
/// does), opened read-only through a GRDB pool: tiles are read one query at a time, never the
/// whole file into memory. Raster tiles only (PNG, JPEG, WebP): a web map draws those.
public final class MBTiles: Sendable {
    public let path: String
    public let metadata: Metadata
    let pool: DatabasePool

    /// What `metadata` says, checked.
    public struct Metadata: Sendable, Equatable {
        /// `name`, else the file's name without its extension.
        public var name: String
        public var format: Format
        /// west, south, east, north (WGS84), when given.
        public var bounds: [Double]?
        public var minZoom: Int?
        public var maxZoom: Int?
        public var attribution: String?
        public var description: String?
    }

    public enum Format: String, Sendable {
        case png, jpg, webp

        public var contentType: String {
            switch self {
            case .png: "image/png"
            case .jpg: "image/jpeg"
            case .webp: "image/webp"
            }
        }

        /// The format from a tile's first bytes.
        static func sniff(_ bytes: Data) -> Format? {
            let b = [UInt8](bytes.prefix(12))
            if b.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return .png }
            if b.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpg }
            if b.count >= 12, b[0..<4] == [0x52, 0x49, 0x46, 0x46], b[8..<12] == [0x57, 0x45, 0x42, 0x50] { return .webp }
            return nil
        }
    }

    /// The deepest zoom a tile may be asked at (2³⁰ tiles a side).
    public static let maxZoom = 30

    /// Opens `path` read-only and checks that it is a raster MBTiles file; the error says what
    /// it is not and what to do.
    public init(path: String) throws(MBTilesError) {
        self.path = path
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw MBTilesError(path, "cannot be read: check the path and that the treeline user may read it")
        }
        var config = Configuration()
        config.readonly = true
        config.label = "MBTiles"
        do {
            pool = try DatabasePool(path: path, configuration: config)
            metadata = try pool.read { db throws(MBTilesError) in try Self.metadata(db, path: path) }
        } catch let error as MBTilesError {
            throw error
        } catch {
            throw MBTilesError(path, "is not an MBTiles file (not an SQLite database: \(error)); make one with gdal_translate -of MBTILES")
        }
    }

    /// The tile at zoom `z`, column `x`, row `y` counted from the north (as a web map asks);
    /// nil when the file lacks it. Coordinates out of range are the caller's to refuse.
    public func tile(z: Int, x: Int, y: Int) throws -> Data? {
        let tmsRow = (1 << z) - 1 - y
        return try pool.read { db in
            try Data.fetchOne(db, sql: "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                              arguments: [z, x, tmsRow])
        }
    }

    /// Whether z/x/y names a tile of the world: 0 ≤ z ≤ 30, 0 ≤ x, y < 2^z.
    public static func inRange(z: Int, x: Int, y: Int) -> Bool {
        (0...maxZoom).contains(z) && (0..<(1 << z)).contains(x) && (0..<(1 << z)).contains(y)
    }

    /// What the file holds, zoom by zoom: tiles and bytes.
    public struct Level: Sendable, Equatable {
        public var zoom: Int
        public var tiles: Int
        public var bytes: Int

        public init(zoom: Int, tiles: Int, bytes: Int) {
            self.zoom = zoom
            self.tiles = tiles
            self.bytes = bytes
        }
    }

    public func levels() throws -> [Level] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT zoom_level, COUNT(*), SUM(LENGTH(tile_data)) FROM tiles GROUP BY zoom_level ORDER BY zoom_level")
                .map { Level(zoom: $0[0], tiles: $0[1], bytes: $0[2] ?? 0) }
        }
    }

    static func metadata(_ db: Database, path: String) throws(MBTilesError) -> Metadata {
        let names: Set<String>
        let pairs: [String: String]
        let first: Data?
        do {
            names = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"))
            guard names.contains("metadata"), names.contains("tiles") else {
                throw MBTilesError(path, "is an SQLite database but not an MBTiles file (no metadata and tiles tables); make one with gdal_translate -of MBTILES")
            }
            var p: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, value FROM metadata LIMIT 1000") {
                if let name: String = row[0], let value: String = row[1] { p[name] = value }
            }
            pairs = p
            first = try Data.fetchOne(db, sql: "SELECT tile_data FROM tiles LIMIT 1")
        } catch let error as MBTilesError {
            throw error
        } catch {
            throw MBTilesError(path, "cannot be read as MBTiles: \(error)")
        }
        let fileName = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        var m = Metadata(name: pairs["name"].flatMap { $0.isEmpty ? nil : $0 } ?? fileName, format: .png)
        switch pairs["format"]?.lowercased() {
        case "png"?: m.format = .png
        case "jpg"?, "jpeg"?: m.format = .jpg
        case "webp"?: m.format = .webp
        case "pbf"?: throw MBTilesError(path, "holds vector tiles (pbf): the map draws raster tiles; make a PNG, JPEG or WebP MBTiles")
        case let other?: throw MBTilesError(path, "has tiles in format '\(other.prefix(20))': the map draws png, jpg or webp")
        case nil:
            guard let first, let sniffed = Format.sniff(first) else {
                throw MBTilesError(path, "says no format and its tiles are not PNG, JPEG or WebP")
            }
            m.format = sniffed
        }
        if let b = pairs["bounds"] {
            let v = b.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard v.count == 4, v.allSatisfy(\.isFinite), (-180...180).contains(v[0]), (-180...180).contains(v[2]),
                  (-90...90).contains(v[1]), (-90...90).contains(v[3]), v[0] < v[2], v[1] < v[3] else {
                throw MBTilesError(path, "has bounds '\(b.prefix(60))': they must be west,south,east,north in degrees")
            }
            m.bounds = v
        }
        for (key, keyPath) in [("minzoom", \Metadata.minZoom), ("maxzoom", \Metadata.maxZoom)] {
            guard let s = pairs[key] else { continue }
            guard let z = Int(s.trimmingCharacters(in: .whitespaces)), (0...maxZoom).contains(z) else {
                throw MBTilesError(path, "has \(key) '\(s.prefix(20))': a whole number from 0 to \(maxZoom)")
            }
            m[keyPath: keyPath] = z
        }
        if let lo = m.minZoom, let hi = m.maxZoom, lo > hi { throw MBTilesError(path, "has minzoom \(lo) above maxzoom \(hi)") }
        m.attribution = pairs["attribution"].flatMap { $0.isEmpty ? nil : String($0.prefix(1000)) }
        m.description = pairs["description"].flatMap { $0.isEmpty ? nil : String($0.prefix(1000)) }
        return m
    }
}

/// An MBTiles file that cannot be served: which file and why, and what to do.
public struct MBTilesError: Error, CustomStringConvertible, Equatable {
    public var description: String
    init(_ path: String, _ problem: String) { description = "\(path) \(problem)" }
}
