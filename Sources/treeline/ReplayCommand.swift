import ArgumentParser
import Geo
import NMEA
import Replay

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay an NMEA 0183 log: print its fixes and what was in it.",
        discussion: """
        Sentences of one epoch (the same UTC time) become one fix. Only sentences with a correct
        checksum are used; everything else is counted. With neither flag, --stats is implied.

        --fixes prints one JSON object per line per epoch on standard output:
          time (ISO 8601 UTC; absent until the log has given a date), mode (1 no fix, 2 2D, 3 3D),
          lat, lon, and where known altMSL (m), speed (m/s), track (degrees true), eph (m, from GST),
          hdop, satellites.
        --stats prints the counts: lines, sentences by type, bad and missing checksums, skipped,
          invalid, garbage, over-long lines, fixes by mode. On standard output when alone, on
          standard error when --fixes is given too.

        Examples:
          treeline replay Data/walk.nmea --fixes | head
          cat Data/walk.nmea | treeline replay - --stats
        """
    )

    @Argument(help: "The NMEA log to read, or '-' for standard input.")
    var file: String

    @Flag(help: "Print one JSON line per fix.")
    var fixes = false

    @Flag(help: "Print the counts of what the log held.")
    var stats = false

    func run() throws {
        // LogFileError's message names the file and what to do; ArgumentParser prints it
        // as "Error: …" on standard error and exits 1.
        let log = try LogFile(path: file)
        let out = ByteWriter(fd: 1)
        let printFixes = fixes
        defer { out.flush() }
        let counts = try log.replay { fix in
            guard printFixes else { return }
            out.write { buf in
                fix.appendJSON(to: &buf)
                buf.append(0x0A)
            }
        }
        out.flush()
        if stats || !fixes {
            let dest = fixes ? ByteWriter(fd: 2) : out
            dest.write(StatsReport.text(counts, source: file))
            dest.flush()
        }
    }
}

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
