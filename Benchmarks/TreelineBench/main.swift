// treeline-bench: throughput figures for Treeline's hot paths, measured in a release build.
//
//   swift run -c release treeline-bench nmea FILE [--runs N]
//
// `nmea` streams FILE through LogFile (1 MiB chunks) and NMEAReader, as `treeline replay` does,
// and reports lines/s, valid sentences/s and fixes/s (median of N runs after one uncounted warm-up)
// and the process's peak RSS.
#if canImport(Glibc)
import Glibc
#endif
import Geo
import NMEA
import Replay

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func peakRSSMiB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024  // kilobytes on Linux
}

func fail(_ message: String) -> Never {
    let text = Array("treeline-bench: \(message)\n".utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func fmt(_ v: Double, _ decimals: Int = 2) -> String {
    var out: [UInt8] = []
    JSONBytes.appendFixed(v, decimals: decimals, to: &out)
    return String(decoding: out, as: UTF8.self)
}

func benchNMEA(path: String, runs: Int) {
    var times: [Double] = []
    var stats = NMEAStats()
    var checksum = 0.0
    // Run 0 warms the page cache and the CPU clock and is not counted.
    for run in 0...runs {
        let log: LogFile
        do { log = try LogFile(path: path) } catch { fail(error.description) }
        var acc = 0.0
        let t0 = now()
        do {
            stats = try log.replay { fix in
                // Touch the result so the work cannot be optimised away.
                if let c = fix.coordinate { acc += c.latitude + c.longitude }
            }
        } catch { fail(error.description) }
        if run > 0 { times.append(now() - t0) }
        checksum = acc
    }
    let t = median(times)
    let sentences = Double(stats.sentences)
    print("NMEA read+assemble of \(path), median of \(runs) runs after one warm-up")
    print("  lines            \(stats.lines)")
    print("  valid sentences  \(stats.sentences)")
    print("  fixes            \(stats.fixes)  (3D \(stats.fixes3D), 2D \(stats.fixes2D), no fix \(stats.noFix))")
    print("  rejected         bad checksum \(stats.badChecksum), missing checksum \(stats.missingChecksum), garbage \(stats.garbage), invalid \(stats.invalid)")
    print("  time             \(fmt(t, 3)) s  (runs: \(times.map { fmt($0, 3) }.joined(separator: ", ")))")
    print("  lines/s          \(fmt(Double(stats.lines) / t / 1e6, 3)) M")
    print("  sentences/s      \(fmt(sentences / t / 1e6, 3)) M")
    print("  fixes/s          \(fmt(Double(stats.fixes) / t / 1e6, 3)) M")
    print("  peak RSS         \(fmt(peakRSSMiB(), 1)) MiB")
    print("{\"bench\":\"nmea\",\"lines\":\(stats.lines),\"sentences\":\(stats.sentences),\"fixes\":\(stats.fixes),\"seconds\":\(fmt(t, 4)),\"sentences_per_s\":\(Int(sentences / t)),\"fixes_per_s\":\(Int(Double(stats.fixes) / t)),\"peak_rss_mib\":\(fmt(peakRSSMiB(), 1)),\"acc\":\(fmt(checksum, 3))}")
}

var args = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, default value: Int, in args: inout [String]) -> Int {
    guard let i = args.firstIndex(of: name) else { return value }
    guard i + 1 < args.count, let v = Int(args[i + 1]), v > 0 else { fail("\(name) needs a positive number") }
    args.removeSubrange(i...(i + 1))
    return v
}
let runs = option("--runs", default: 5, in: &args)
switch args.first {
case "nmea":
    guard args.count == 2 else { fail("usage: treeline-bench nmea FILE [--runs N]") }
    benchNMEA(path: args[1], runs: runs)
default:
    print("""
    usage: treeline-bench nmea FILE [--runs N]

      nmea   read and assemble a whole NMEA log (as `treeline replay` does); report lines/s,
             sentences/s, fixes/s and peak RSS. Make the 1,000,000-epoch log with
             ../shared/bench/gen_nmea.py 1000000 FILE; Benchmarks/nmea.sh runs this and the
             pynmea2 baseline in one session and prints the ratios.
    """)
    exit(args.isEmpty ? 0 : 2)
}
