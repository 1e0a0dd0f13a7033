import Yams

/// The config's `http:` section: the web app's listener, TLS, token, tiles and limits.
extension ConfigReader {
    /// `http:`.
    func http(_ node: Node) -> HTTPConfig {
        var h = HTTPConfig()
        section(node, "http", [
            "listen": { n, key in
                guard let s = self.string(n, key) else { return }
                if let (host, port) = HTTPConfig.parseListen(s) { (h.host, h.port) = (host, port) } else {
                    self.issue(n, key, "must be an address and port, e.g. 127.0.0.1:8047, 0.0.0.0:8047 or [::]:8047")
                }
            },
            "tls": { n, key in if let t = self.httpTLS(n, key) { h.tls = t } },
            "token_file": { n, key in if let s = self.string(n, key) { h.tokenFile = s } },
            "tiles": { n, key in
                let what = "must be a tile URL with {z}, {x} and {y} (e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png), an MBTiles file, or a list of MBTiles files"
                if let list = n.sequence {
                    let files = list.compactMap(\.string)
                    guard files.count == list.count, !files.isEmpty, files.count <= HTTPConfig.maxTileFiles, files.allSatisfy({ $0.hasPrefix("/") }) else {
                        self.issue(n, key, "\(what): a list of 1 to \(HTTPConfig.maxTileFiles) absolute paths")
                        return
                    }
                    h.tileFiles = files
                    return
                }
                guard let s = self.string(n, key) else { return }
                if (s.hasPrefix("https://") || s.hasPrefix("http://")) && s.contains("{z}") && s.contains("{x}") && s.contains("{y}") {
                    h.tiles = s
                } else if s.hasPrefix("/") {
                    h.tileFiles = [s]
                } else {
                    self.issue(n, key, what)
                }
            },
            "tiles_attribution": { n, key in if let s = self.string(n, key) { h.tilesAttribution = s } },
            "root": { n, key in if let s = self.string(n, key) { h.root = s } },
            "max_connections": { n, key in
                if let x = self.whole(n, key, min: 4, max: 4096, "must be a whole number from 4 to 4096") { h.maxConnections = x }
            },
            "max_body_kib": { n, key in if let x = self.whole(n, key, min: 1, max: 65536, "must be whole KiB from 1 to 65536") { h.maxBodyBytes = x * 1024 } },
            "max_photo_mib": { n, key in if let x = self.whole(n, key, min: 1, max: 1024, "must be whole MiB from 1 to 1024") { h.maxPhotoBytes = x << 20 } },
        ])
        return h
    }

    /// `http.tls`: auto, off, or a mapping `{cert: FILE, key: FILE}`; nil (reported) when it is
    /// none of them.
    func httpTLS(_ node: Node, _ key: String) -> HTTPConfig.TLS? {
        if node.mapping != nil {
            var cert: String?, keyFile: String?
            section(node, key, [
                "cert": { n, key in cert = self.string(n, key) },
                "key": { n, key in keyFile = self.string(n, key) },
            ])
            if let cert, let keyFile { return .files(cert: cert, key: keyFile) }
            issue(node, key, "needs both cert: and key: (PEM files)")
            return nil
        }
        guard let s = string(node, key) else { return nil }
        switch s {
        case "auto": return .auto
        case "off": return .off
        default:
            issue(node, key, "must be auto, off, or {cert: FILE, key: FILE}")
            return nil
        }
    }
}
