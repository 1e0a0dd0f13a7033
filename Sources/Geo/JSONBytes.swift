/// Writes JSON numbers and strings into a byte buffer without Foundation formatters, so the
/// per-fix output path does not allocate or go through locale-aware code.
public enum JSONBytes {
    /// `v` with exactly `decimals` digits after the point (rounded half away from zero), like
    /// gpsd's `%.9f`. Non-finite values are written as `null`.
    public static func appendFixed(_ v: Double, decimals: Int, to out: inout [UInt8]) {
        guard v.isFinite else { out.append(contentsOf: "null".utf8); return }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(v) * scale).rounded()
        guard scaled < 9.0e18 else {
            out.append(contentsOf: String(v).utf8)  // not reached for coordinates and speeds
            return
        }
        var n = UInt64(scaled)
        if v < 0 && n != 0 { out.append(UInt8(ascii: "-")) }
        var tmp: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                  UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &tmp) { buf in
            var i = buf.count
            var produced = 0
            repeat {
                i -= 1
                buf[i] = UInt8(48 + n % 10)
                n /= 10
                produced += 1
            } while n > 0 || produced <= decimals
            let intDigits = produced - decimals
            for k in 0..<produced {
                if k == intDigits { out.append(UInt8(ascii: ".")) }
                out.append(buf[i + k])
            }
        }
    }

    /// Appends `v` in decimal, with a leading `-` when negative.
    public static func appendInt(_ v: Int, to out: inout [UInt8]) {
        var n = v.magnitude
        if v < 0 { out.append(UInt8(ascii: "-")) }
        var tmp: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                  UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &tmp) { buf in
            var i = buf.count
            repeat {
                i -= 1
                buf[i] = UInt8(48 + n % 10)
                n /= 10
            } while n > 0
            out.append(contentsOf: buf[i...])
        }
    }

    /// A JSON string literal with the escapes RFC 8259 requires.
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 15)])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension Fix {
    /// One JSON object (no newline) with gpsd's TPV names: `time` (when the date is known), `mode`,
    /// `lat`, `lon`, and where known `altMSL`, `speed`, `track`, `eph`, `hdop`, `satellites`.
    public func appendJSON(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        if let time {
            out.append(contentsOf: "\"time\":\"".utf8)
            time.appendISO8601(to: &out)
            out.append(contentsOf: "\",".utf8)
        }
        out.append(contentsOf: "\"mode\":".utf8)
        JSONBytes.appendInt(mode.rawValue, to: &out)
        if let c = coordinate {
            out.append(contentsOf: ",\"lat\":".utf8)
            JSONBytes.appendFixed(c.latitude, decimals: 9, to: &out)
            out.append(contentsOf: ",\"lon\":".utf8)
            JSONBytes.appendFixed(c.longitude, decimals: 9, to: &out)
        }
        func field(_ name: StaticString, _ v: Double?, _ decimals: Int) {
            guard let v else { return }
            out.append(UInt8(ascii: ","))
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            out.append(contentsOf: "\":".utf8)
            JSONBytes.appendFixed(v, decimals: decimals, to: &out)
        }
        field("altMSL", altitudeMSL, 3)
        field("speed", speed, 3)
        field("track", course, 4)
        field("eph", horizontalError, 3)
        field("hdop", hdop, 2)
        if let satellitesUsed {
            out.append(contentsOf: ",\"satellites\":".utf8)
            JSONBytes.appendInt(satellitesUsed, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The JSON object as a String (tests, logs).
    public var json: String {
        var out: [UInt8] = []
        appendJSON(to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
