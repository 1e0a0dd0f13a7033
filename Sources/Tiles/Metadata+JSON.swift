import JSON

extension MBTiles.Metadata {
    /// `name`, `format`, and where the file says them `minzoom`, `maxzoom`, `bounds` (west, south,
    /// east, north) and `attribution`, as members of an object being written (web.json's layers,
    /// `treeline tiles --json`).
    public func writeMembers(to w: inout JSONWriter) {
        w.member("name", name)
        w.member("format", format.rawValue)
        if let z = minZoom { w.member("minzoom", z) }
        if let z = maxZoom { w.member("maxzoom", z) }
        if let b = bounds { w.member("bounds") { $0.array(b) { p, v in p.value(v, decimals: 7) } } }
        w.member("attribution", ifPresent: attribution)
    }
}
