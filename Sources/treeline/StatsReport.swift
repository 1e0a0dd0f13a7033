import ArgumentParser
import Geo
import NMEA
import Config
import Loading
import Rules
import Map

/// The human-readable `--stats` block.
enum StatsReport {
    static func text(_ s: NMEAStats, source: String) -> String {
        func row(_ name: String, _ value: Int, indent: Int = 0) -> String {
            let label = String(repeating: " ", count: indent) + name
            let pad = max(1, 22 - label.count)
            return label + String(repeating: " ", count: pad) + String(value) + "\n"
        }
        var t = "NMEA log \(source == "-" ? "(standard input)" : source)\n"
        t += row("lines", s.lines)
        t += row("sentences", s.sentences)
        for (type, n) in s.sentencesByType.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
            t += row(type.description, n, indent: 2)
        }
        t += row("bad checksum", s.badChecksum)
        t += row("missing checksum", s.missingChecksum)
        t += row("skipped", s.skipped)
        t += row("invalid", s.invalid)
        t += row("garbage", s.garbage)
        t += row("comments", s.comments)
        t += row("overlong", s.overlong)
        t += row("fixes", s.fixes)
        t += row("3D", s.fixes3D, indent: 2)
        t += row("2D", s.fixes2D, indent: 2)
        t += row("no fix", s.noFix, indent: 2)
        return t
    }
}
