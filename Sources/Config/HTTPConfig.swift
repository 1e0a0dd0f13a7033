/// The config's `http:` section: the web app and `POST /api` over HTTPS. Absent: no HTTP at all.
///
///     http:
///       listen: 127.0.0.1:8047          # 0.0.0.0:8047 serves the board's Wi-Fi (see README)
///       tls: auto                       # a self-signed certificate made at first start;
///                                       # or {cert: FILE, key: FILE}; or off (plain HTTP)
///       token_file: /var/lib/treeline/web-token   # default: beside the database
///       tiles: https://tile.openstreetmap.org/{z}/{x}/{y}.png   # default none (offline)
///       # or an MBTiles file on the board, or a list of them (layers):
///       # tiles: [/var/lib/treeline/ortho.mbtiles, /var/lib/treeline/topo.mbtiles]
///       tiles_attribution: "© OpenStreetMap contributors"
///       root: /usr/share/treeline/web   # the page's files; default: installed beside treelined
///       max_connections: 64
///       max_body_kib: 1024              # a command's body; a photo may be max_photo_mib
///       max_photo_mib: 16
public struct HTTPConfig: Sendable, Equatable {
    public enum TLS: Sendable, Equatable {
        /// A self-signed certificate for the board's names and addresses, kept beside the database.
        case auto
        case files(cert: String, key: String)
        /// Plain HTTP: for a listen address only this machine reaches (phones give the camera
        /// and the compass only to HTTPS pages, or to localhost).
        case off
    }

    public var host = "127.0.0.1"
    public var port = 8047
    public var tls = TLS.auto
    public var tokenFile: String?
    /// A tile URL template (tiles from a network).
    public var tiles: String?
    /// MBTiles files served by the board, as layers (the first shown at start).
    public var tileFiles: [String] = []
    public var tilesAttribution: String?
    public var root: String?
    public var maxConnections = 64
    public var maxBodyBytes = 1 << 20
    public var maxPhotoBytes = 16 << 20

    /// The most MBTiles layers.
    public static let maxTileFiles = 16

    public init() {}

    /// `host:port`, `[v6]:port`, or a bare host (port 8047).
    public static func parseListen(_ s: String) -> (host: String, port: Int)? {
        var host = s
        var port = 8047
        if s.hasPrefix("[") {
            guard let close = s.firstIndex(of: "]") else { return nil }
            host = String(s[s.index(after: s.startIndex)..<close])
            let rest = s[s.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let p = Int(rest.dropFirst()) else { return nil }
                port = p
            }
        } else if let colon = s.lastIndex(of: ":"), s.firstIndex(of: ":") == colon {
            host = String(s[..<colon])
            guard let p = Int(s[s.index(after: colon)...]) else { return nil }
            port = p
        }
        guard !host.isEmpty, (1...65535).contains(port) else { return nil }
        return (host, port)
    }
}
