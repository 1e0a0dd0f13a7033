import CompressNIO
import Crypto
import Foundation
import JSON
import NIOCore

/// The page's files and Debian's Leaflet, read once at start and kept in memory with their
/// compressed copies: Debian's own `.brotli`/`.br` and `.gz` beside a file where present, else
/// gzip made here, once. A request is answered from memory: no disk read, no compression per
/// request.
///
/// A file is served at its path under its URL base; a path ending in `/` serves its
/// `index.html`. Hidden files (a name starting with `.`) are not served.
public struct StaticFiles: Sendable {
    /// One file's bytes as stored and in each encoding made or found.
    public struct Asset: Sendable {
        public var contentType: String
        public var identity: ByteBuffer
        public var gzip: ByteBuffer?
        public var brotli: ByteBuffer?
        /// The identity bytes' digest, quoted; each encoding's ETag adds its name.
        public var tag: String
    }

    /// What `load` read, by URL path.
    public private(set) var assets: [String: Asset] = [:]
    /// How many bytes were read from disk and how many compressed here, and how long it took.
    public private(set) var bytesRead = 0
    public private(set) var compressedHere = 0

    /// At most this many files, and this many bytes in all (the page and Leaflet are 3 MB).
    public static let maxFiles = 4096
    public static let maxTotalBytes = 64 << 20

    public init() {}

    /// Reads every file under `directory` (recursively) to be served under `urlBase` ("" or
    /// "/leaflet"); with `compress`, gzips those that have no copy beside them (the page's own
    /// files; Debian's Leaflet ships its copies for what a page loads, and its unminified files
    /// and source maps are not worth a start's time). A missing directory is an error the caller
    /// words.
    public mutating func load(directory: String, urlBase: String, compress: Bool = true) throws(StaticFilesError) {
        let root = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StaticFilesError("\(directory) is not a directory")
        }
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey],
                                                          options: [.skipsHiddenFiles]) else {
            throw StaticFilesError("\(directory) cannot be read")
        }
        var files: [String: [UInt8]] = [:]
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            let relative = String(url.standardizedFileURL.path.dropFirst(root.path.count))
            guard relative.hasPrefix("/") else { continue }
            guard assets.count + files.count < Self.maxFiles else {
                throw StaticFilesError("\(directory) holds more than \(Self.maxFiles) files: serve a directory of the page's files only")
            }
            guard let data = FileManager.default.contents(atPath: url.path) else { throw StaticFilesError("\(url.path) cannot be read") }
            bytesRead += data.count
            guard bytesRead <= Self.maxTotalBytes else {
                throw StaticFilesError("\(directory) holds more than \(Self.maxTotalBytes >> 20) MB: serve a directory of the page's files only")
            }
            files[urlBase + relative] = Array(data)
        }
        for (path, file) in files {
            let gz = files[path + ".gz"], br = files[path + ".brotli"] ?? files[path + ".br"]
            // The page's own scripts and stylesheets go without their comment lines (a copy
            // beside them is served as it is, so the file is too).
            let own = compress && gz == nil && br == nil
            let bytes = own && (path.hasSuffix(".js") || path.hasSuffix(".css")) ? CommentLines.stripped(file, script: path.hasSuffix(".js")) : file
            var asset = Asset(contentType: Self.contentType(of: path), identity: ByteBuffer(bytes: bytes), tag: Self.tag(bytes))
            if let gz { asset.gzip = ByteBuffer(bytes: gz) }
            if let br { asset.brotli = ByteBuffer(bytes: br) }
            if compress, asset.gzip == nil, Self.compressible(path), bytes.count >= 256, let gz = Self.gzip(bytes, level: .bestCompression) {
                asset.gzip = gz
                compressedHere += 1
            }
            assets[path] = asset
        }
    }

    /// Where the page's service worker finds what to keep for when the board is out of reach.
    public static let shellPath = "/app-files.json"

    /// Adds `shellPath`: `{"version":…,"files":[…]}`, the paths a page needs offline (the app's
    /// files, and of Leaflet the minified script, its stylesheet and images), sorted, with a
    /// version that changes whenever one of them does (a digest of their tags).
    public mutating func addShellList() {
        let files = assets.keys.filter(Self.belongsToShell).sorted()
        var out = Array(#"{"version":"#.utf8)
        let version = Self.tag(files.flatMap { Array(($0 + (assets[$0]?.tag ?? "")).utf8) })
        out.append(contentsOf: version.utf8)
        out.append(contentsOf: #","files":["#.utf8)
        for (k, path) in files.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            JSONBytes.appendString(path, to: &out)
        }
        out.append(contentsOf: "]}".utf8)
        assets[Self.shellPath] = Asset(contentType: "application/json", identity: ByteBuffer(bytes: out), tag: Self.tag(out))
    }

    /// A file the page needs offline: not a compressed copy or a source map, and of Leaflet only
    /// what the page loads.
    static func belongsToShell(_ path: String) -> Bool {
        if [".gz", ".br", ".brotli", ".map"].contains(where: { path.hasSuffix($0) }) { return false }
        guard path.hasPrefix("/leaflet/") else { return path != shellPath }
        return path == "/leaflet/leaflet.min.js" || path == "/leaflet/leaflet.css" || path.hasPrefix("/leaflet/images/")
    }

    /// The asset for a request's path (`/` and `…/`: its `index.html`).
    public func asset(for path: String) -> Asset? {
        assets[path.hasSuffix("/") ? path + "index.html" : path]
    }

    /// Answers from this many bytes on, up to `gzipUpTo`, are gzipped for a client that takes it
    /// (beyond, a whole set of 100,000 regions: their compression would hold a core for seconds
    /// and a second copy in memory; they go as they are).
    public static let gzipFrom = 1024
    public static let gzipUpTo = 8 << 20

    /// `bytes` gzipped, when that saves a tenth or more.
    public static func gzip(_ bytes: [UInt8], level: ZlibConfiguration.CompressionLevel) -> ByteBuffer? {
        var input = ByteBuffer(bytes: bytes)
        guard let gz = try? input.compress(with: .gzip(configuration: .init(compressionLevel: level))), gz.readableBytes < bytes.count * 9 / 10 else {
            return nil
        }
        return gz
    }

    /// Whether an `Accept-Encoding` takes gzip.
    public static func takesGzip(_ acceptEncoding: String?) -> Bool {
        let q = weights(acceptEncoding)
        return (q["gzip"] ?? q["x-gzip"] ?? q["*"] ?? 0) > 0
    }

    /// The weight (q) of each coding an `Accept-Encoding` names; at most 32 are looked at.
    static func weights(_ acceptEncoding: String?) -> [String: Double] {
        var q: [String: Double] = [:]
        guard let acceptEncoding else { return q }
        for part in acceptEncoding.split(separator: ",").prefix(32) {
            let fields = part.split(separator: ";")
            guard let name = fields.first?.trimmingCharacters(in: .whitespaces).lowercased(), !name.isEmpty else { continue }
            var weight = 1.0
            for parameter in fields.dropFirst() {
                let kv = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if kv.count == 2, kv[0].lowercased() == "q", let v = Double(kv[1]), v.isFinite { weight = min(max(v, 0), 1) }
            }
            q[name] = weight
        }
        return q
    }

    /// The encoding to answer with for an `Accept-Encoding` header: brotli, then gzip, where the
    /// client takes it (q > 0, or `*`) and the asset has it; nil: the bytes as they are.
    public static func encoding(for acceptEncoding: String?, asset: Asset) -> ContentCoding? {
        guard acceptEncoding != nil else { return nil }
        let q = weights(acceptEncoding)
        func takes(_ name: String) -> Bool { (q[name] ?? q["*"] ?? 0) > 0 }
        if asset.brotli != nil, takes("br") { return .brotli }
        if asset.gzip != nil, takes("gzip") || takes("x-gzip") { return .gzip }
        return nil
    }

    public enum ContentCoding: String, Sendable {
        case gzip
        case brotli = "br"
    }

    /// `If-None-Match`: `*`, or a list of entity tags (weak ones compared weakly, as RFC 9110
    /// says for this header); at most 64 are looked at.
    static func matches(ifNoneMatch header: String, tag: String) -> Bool {
        header.split(separator: ",").prefix(64).contains { candidate in
            let t = candidate.trimmingCharacters(in: .whitespaces)
            return t == "*" || t == tag || (t.hasPrefix("W/") && t.dropFirst(2) == tag)
        }
    }

    /// A strong entity tag for these bytes: 12 bytes of their SHA-256, quoted (a file's, a tile's).
    static func tag(_ bytes: some DataProtocol) -> String {
        let digest = SHA256.hash(data: bytes)
        return "\"" + digest.prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
    }

    static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "json": "application/json", "map": "application/json", "svg": "image/svg+xml",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "webp": "image/webp", "ico": "image/x-icon",
        "txt": "text/plain; charset=utf-8", "webmanifest": "application/manifest+json", "woff2": "font/woff2",
        "gz": "application/gzip", "brotli": "application/octet-stream", "br": "application/octet-stream",
    ]

    static func contentType(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
        return types[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }

    static func compressible(_ path: String) -> Bool {
        let type = contentType(of: path)
        return type.hasPrefix("text/") || type.hasPrefix("application/json") || type == "image/svg+xml" || type == "application/manifest+json"
    }
}

/// The page's files could not be read: what and why.
public struct StaticFilesError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
