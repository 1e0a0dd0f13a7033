import Geo

extension LayoutItem {
    /// One JSON object (no newline): `id`, `distance` (m), `bearing` (°), `x` (null where a
    /// pinhole camera cannot see), `y`, `level`, `visible`, `near`, `hidden`.
    public func appendJSON(to out: inout [UInt8]) {
        out.append(contentsOf: "{\"id\":".utf8)
        JSONBytes.appendString(id, to: &out)
        out.append(contentsOf: ",\"distance\":".utf8)
        JSONBytes.appendFixed(distance, decimals: 2, to: &out)
        out.append(contentsOf: ",\"bearing\":".utf8)
        JSONBytes.appendFixed(bearing, decimals: 4, to: &out)
        out.append(contentsOf: ",\"x\":".utf8)
        if let x { JSONBytes.appendFixed(x, decimals: 2, to: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: ",\"y\":".utf8)
        JSONBytes.appendFixed(y, decimals: 2, to: &out)
        out.append(contentsOf: ",\"level\":".utf8)
        JSONBytes.appendInt(level, to: &out)
        out.append(contentsOf: visible ? ",\"visible\":true".utf8 : ",\"visible\":false".utf8)
        out.append(contentsOf: inNearView ? ",\"near\":true".utf8 : ",\"near\":false".utf8)
        out.append(contentsOf: hidden ? ",\"hidden\":true}".utf8 : ",\"hidden\":false}".utf8)
    }
}
