import Foundation
import Geo
import NMEA

/// gpsd's reports in a regression `.chk` file, one per epoch: the last TPV printed for each time.
struct GPSDEpoch {
    var time: Int64  // nanoseconds since 1970, as gpsd printed it (may carry the 1024-week shift)
    var mode: Int
    var lat: Double?
    var lon: Double?
    var altMSL: Double?
    var speed: Double?
    var track: Double?
}

enum GPSDCheck {
    /// gpsd 3.22 moves dates before 2017 forward by 1024 GPS weeks.
    static let weekRolloverShift: Int64 = 619_315_200 * 1_000_000_000

    static func parseTime(_ s: String) -> Int64? {
        // 2034-08-16T03:07:19.000Z
        let u = Array(s.utf8)
        guard u.count >= 20 else { return nil }
        func num(_ a: Int, _ n: Int) -> Int? {
            var v = 0
            for i in a..<(a + n) {
                let d = Int(u[i]) - 48
                guard (0...9).contains(d) else { return nil }
                v = v * 10 + d
            }
            return v
        }
        guard let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2), let mi = num(14, 2),
              let se = num(17, 2) else { return nil }
        var nanos: Int64 = 0
        if u.count > 20, u[19] == UInt8(ascii: ".") {
            var scale: Int64 = 100_000_000
            var i = 20
            while i < u.count, let dg = num(i, 1) { nanos += Int64(dg) * scale; scale /= 10; i += 1 }
        }
        guard let t = UTCTime(year: y, month: mo, day: d, nanosOfDay: Int64(h * 3600 + mi * 60 + se) * 1_000_000_000 + nanos)
        else { return nil }
        return t.nanoseconds
    }

    /// The last TPV per time, in order of first appearance.
    static func epochs(chk: String) -> [GPSDEpoch] {
        var order: [Int64] = []
        var byTime: [Int64: GPSDEpoch] = [:]
        // Split on bytes: "\r\n" is one Character in Swift, so String.split("\n") would miss CRLF lines.
        for line in chk.utf8.split(separator: UInt8(ascii: "\n")) where line.starts(with: "{\"class\":\"TPV\"".utf8) {
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                  let ts = obj["time"] as? String, let t = parseTime(ts) else { continue }
            let e = GPSDEpoch(
                time: t, mode: obj["mode"] as? Int ?? 0,
                lat: obj["lat"] as? Double, lon: obj["lon"] as? Double, altMSL: obj["altMSL"] as? Double,
                speed: obj["speed"] as? Double, track: obj["track"] as? Double)
            if byTime[t] == nil { order.append(t) }
            byTime[t] = e
        }
        return order.map { byTime[$0]! }
    }

    struct Result {
        var name: String
        var gpsdFixes = 0  // gpsd's 2D/3D epochs
        var matched = 0
        var reasons: [String: Int] = [:]
        var examples: [String] = []
        var percent: Double { gpsdFixes == 0 ? 100 : 100 * Double(matched) / Double(gpsdFixes) }
    }

    /// gpsd's test logs may declare a "Delay-Cookie" character that marks write boundaries for
    /// gpsfake, which removes it before gpsd sees the bytes. Do the same.
    static func removingDelayCookie(_ log: [UInt8]) -> [UInt8] {
        let marker = Array("# Delay-Cookie: ".utf8)
        guard let start = log.firstRange(of: marker) else { return log }
        let cookie = log[start.upperBound]
        var out: [UInt8] = []
        out.reserveCapacity(log.count)
        var inComment = false
        var lineStart = true
        for b in log {
            if lineStart { inComment = b == UInt8(ascii: "#") }
            lineStart = b == 0x0A
            if b == cookie && !inComment { continue }
            out.append(b)
        }
        return out
    }

    static func compare(name: String, log: [UInt8], chk: String) -> Result {
        var ours: [Int64: Fix] = [:]
        var oursByTimeOfDay: [Int64: Fix] = [:]
        var reader = NMEAReader()
        reader.readAll(removingDelayCookie(log)) { fix in
            if let t = fix.time { ours[t.nanoseconds] = fix }
            if let tod = fix.timeOfDay { oursByTimeOfDay[tod] = fix }
        }
        var r = Result(name: name)
        for g in epochs(chk: chk) where g.mode >= 2 {
            r.gpsdFixes += 1
            guard let f = ours[g.time] ?? ours[g.time - weekRolloverShift] else {
                let gpsdTime = UTCTime(nanoseconds: g.time)
                let why = oursByTimeOfDay[gpsdTime.nanosOfDay].flatMap { $0.time }.map { "date differs (ours \($0.iso8601))" } ?? "no epoch"
                r.reasons[why, default: 0] += 1
                if r.examples.count < 3 { r.examples.append("\(why) at gpsd's \(gpsdTime.iso8601)") }
                continue
            }
            var why: String?
            if f.mode.rawValue != g.mode {
                why = "mode \(f.mode.rawValue) vs gpsd \(g.mode)"
            } else if let la = g.lat, let lo = g.lon {
                if let c = f.coordinate {
                    if abs(c.latitude - la) > 1e-7 || abs(c.longitude - lo) > 1e-7 { why = "position" }
                } else { why = "no position" }
            }
            if why == nil, let s = g.speed {
                if let fs = f.speed { if abs(fs - s) > 0.01 { why = "speed" } } else { why = "speed missing" }
            }
            if why == nil, let t = g.track {
                if let ft = f.course {
                    let d = abs(ft - t).truncatingRemainder(dividingBy: 360)
                    if min(d, 360 - d) > 0.1 { why = "track" }
                } else { why = "track missing" }
            }
            if why == nil, let a = g.altMSL {
                if let fa = f.altitudeMSL { if abs(fa - a) > 0.01 { why = "altMSL" } } else { why = "altMSL missing" }
            }
            if let why {
                r.reasons[why, default: 0] += 1
                if r.examples.count < 3 { r.examples.append("\(why) at \(UTCTime(nanoseconds: g.time).iso8601): ours \(f.json)") }
            } else {
                r.matched += 1
            }
        }
        return r
    }
}
