import Geo
import NMEA

/// `$BODY*hh\r\n` with the right checksum.
func sentence(_ body: String, ending: String = "\r\n") -> String {
    var sum: UInt8 = 0
    for b in body.utf8 { sum ^= b }
    let hex = Array("0123456789ABCDEF".utf8)
    return "$" + body + "*" + String(decoding: [hex[Int(sum >> 4)], hex[Int(sum & 15)]], as: UTF8.self) + ending
}

/// Reads `text` in one go and returns the fixes and the counts.
func replay(_ text: String) -> ([Fix], NMEAStats) {
    replay(Array(text.utf8))
}

func replay(_ bytes: [UInt8]) -> ([Fix], NMEAStats) {
    var reader = NMEAReader()
    var fixes: [Fix] = []
    reader.readAll(bytes) { fixes.append($0) }
    return (fixes, reader.statistics)
}

/// Reads `bytes` in chunks of the given sizes (cycled), to exercise lines split across reads.
func replayChunked(_ bytes: [UInt8], sizes: [Int]) -> ([Fix], NMEAStats) {
    var reader = NMEAReader()
    var fixes: [Fix] = []
    var i = 0, k = 0
    while i < bytes.count {
        let n = min(sizes[k % sizes.count], bytes.count - i)
        bytes[i..<(i + n)].withUnsafeBytes { reader.read($0) { fixes.append($0) } }
        i += n
        k += 1
    }
    reader.finish { fixes.append($0) }
    return (fixes, reader.statistics)
}

func count(_ stats: NMEAStats, _ type: String) -> Int { stats.sentencesByType[SentenceType(type)!] ?? 0 }

/// A small realistic epoch sequence (u-blox order: RMC, VTG, GGA, GSA, GST) around Lisbon.
let walk: String = [
    sentence("GPRMC,120000.00,A,3842.0000,N,00908.4000,W,2.000,90.0,140325,,,A"),
    sentence("GPVTG,90.0,T,,M,2.000,N,3.704,K,A"),
    sentence("GPGGA,120000.00,3842.0000,N,00908.4000,W,1,09,0.9,41.5,M,50.1,M,,"),
    sentence("GPGSA,A,3,01,02,03,04,05,06,07,08,09,,,,1.6,0.9,1.3"),
    sentence("GPGST,120000.00,1.2,2.0,1.5,30.0,1.8,1.4,2.5"),
    sentence("GPRMC,120001.00,A,3842.0010,N,00908.3990,W,2.100,91.0,140325,,,A"),
    sentence("GPVTG,91.0,T,,M,2.100,N,3.889,K,A"),
    sentence("GPGGA,120001.00,3842.0010,N,00908.3990,W,1,09,0.9,41.7,M,50.1,M,,"),
    sentence("GPGSA,A,3,01,02,03,04,05,06,07,08,09,,,,1.6,0.9,1.3"),
    sentence("GPGST,120001.00,1.2,2.0,1.5,30.0,1.8,1.4,2.5"),
].joined()
