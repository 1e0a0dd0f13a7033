// treeline-bench: throughput figures for Treeline's hot paths, measured in a release build.
//
//   swift run -c release treeline-bench nmea FILE [--runs N]
//   swift run -c release treeline-bench layout [--runs N] [--reference-runs N]
//   swift run -c release treeline-bench hostile [--runs N]
//
// `nmea` streams FILE through LogFile (1 MiB chunks) and NMEAReader, as `treeline replay` does,
// and reports lines/s, valid sentences/s and fixes/s (median of N runs after one uncounted warm-up)
// and the process's peak RSS.
#if canImport(Glibc)
import Foundation
import Glibc
#endif
import AR
import Geo
import NMEA
import Loading
import Rules
import TestSupport
import JSON
import Regions

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

/// Reads `lat,lon` lines (gen_points.py) into coordinates with strtod (correctly rounded, as
/// numpy reads them), in place in the file's bytes.
func readPoints(_ path: String) -> [Coordinate] {
    var bytes: [UInt8]
    do { bytes = try Loader.bytes(path, what: "points file") } catch { fail(error.description) }
    bytes.append(0)
    var out: [Coordinate] = []
    out.reserveCapacity(bytes.count / 20)
    bytes.withUnsafeBufferPointer { buf in
        buf.withMemoryRebound(to: CChar.self) { text in
            var p = UnsafeMutablePointer(mutating: text.baseAddress!)
            let end = p + text.count - 1
            while p < end {
                var next: UnsafeMutablePointer<CChar>? = nil
                let lat = strtod(p, &next)
                if let comma = next, comma != p, comma.pointee == CChar(UInt8(ascii: ",")) {
                    let lon = strtod(comma + 1, &next)
                    if let after = next, after != comma + 1 { out.append(Coordinate(latitude: lat, longitude: lon)) }
                }
                while p < end, p.pointee != 0x0A { p += 1 }
                p += 1
            }
        }
    }
    return out
}

/// Loads a fence file and tests every point against it (fence contains point), one core.
func benchFences(path: String, pointsPath: String, pairsPath: String?, runs: Int, storeFolder: String?) {
    let points = readPoints(pointsPath)
    let rssBeforeLoad = peakRSSMiB()
    var set: RegionSet
    // gen_fences.py writes only id and kind: check every geometry rule, not the rules' properties.
    func timedLoad(_ store: FenceStore?) -> (RegionSet, Double) {
        let t0 = now()
        do {
            let set = try Loader.regions([path], requirements: .geometryOnly, store: store)
            return (set, now() - t0)
        } catch { fail(String(error.description.prefix(2000))) }
    }
    var load: Double
    (set, load) = timedLoad(nil)
    if let storeFolder {
        // The files' prepared store: the first load builds the set and writes it (the folder is
        // emptied first), each later one reads it; the median of those is the load reported.
        let store = FenceStore(directory: storeFolder) { fail("prepared store: \($0)") }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: storeFolder)) ?? [] where name.hasSuffix(".regions") {
            unlink("\(storeFolder)/\(name)")
        }
        let (_, first) = timedLoad(store)
        var reads: [Double] = []
        for _ in 0..<max(3, runs) {
            let (s, t) = timedLoad(store)
            reads.append(t)
            set = s
        }
        print("  load, parsed and built: \(fmt(load, 3)) s; building and writing the store: \(fmt(first, 3)) s; from the store: \(reads.map { fmt($0, 4) }.joined(separator: ", ")) s")
        load = median(reads)
    }
    var times: [Double] = []
    var pairs = 0, withHit = 0
    for run in 0...runs {
        var p = 0, h = 0
        let t = now()
        var last = -1
        set.forEachContaining(points) { point, _ in
            p += 1
            if point != last { h += 1; last = point }
        }
        if run > 0 { times.append(now() - t) }
        pairs = p
        withHit = h
    }
    let q = median(times)
    print("fences \(path): K = \(set.count), \(points.count) points, median of \(runs) runs after one warm-up")
    print("  load (read, parse, validate, build, index)  \(fmt(load, 3)) s")
    print("  query                                       \(fmt(q, 3)) s  (runs: \(times.map { fmt($0, 3) }.joined(separator: ", ")))")
    print("  points/s                                    \(Int(Double(points.count) / q))")
    print("  pairs (point inside fence)                  \(pairs); points with a hit \(withHit)")
    print("  peak RSS                                    \(fmt(peakRSSMiB(), 1)) MiB (\(fmt(rssBeforeLoad, 1)) MiB before loading the fences)")
    print("{\"bench\":\"fences\",\"K\":\(set.count),\"points\":\(points.count),\"load_s\":\(fmt(load, 4)),\"query_s\":\(fmt(q, 4)),\"points_per_s\":\(Int(Double(points.count) / q)),\"pairs\":\(pairs),\"points_with_hit\":\(withHit),\"peak_rss_mib\":\(fmt(peakRSSMiB(), 1))}")
    if let pairsPath {
        // "point_index region_index" per pair, region index in file order, for comparing with shapely.
        let out = ByteSink(path: pairsPath)
        for (i, c) in points.enumerated() {
            for r in set.containing(c) { out.line("\(i) \(r)") }
        }
        out.close()
    }
}

/// Replay of a whole log through the region monitor vs reading and parsing it alone, alternating
/// runs in one process so both see the same machine.
func benchPipeline(logPath: String, fencesPath: String, runs: Int, eventsPath: String?) {
    let set: RegionSet
    do { set = try Loader.regions(fencesPath, requirements: .geometryOnly) } catch { fail(String(error.description.prefix(2000))) }
    if let eventsPath {
        // The events once, one line each (time, type, region id, transit), to compare versions.
        let out = ByteSink(path: eventsPath)
        var monitor = RegionMonitor(regions: set)
        do {
            let log = try LogFile(path: logPath)
            _ = try log.replay { fix in
                monitor.process(fix) { e in
                    out.line("\(e.time.nanoseconds) \(e.type.rawValue) \(set.regions[e.region].id)\(e.transit ? " transit" : "")")
                }
            }
        } catch { fail(error.description) }
        out.close()
    }
    var parseTimes: [Double] = [], pipelineTimes: [Double] = [], ratios: [Double] = []
    var events = 0, fixes = 0, used = 0, quiet = 0, watched = 0
    for run in 0...runs {
        // Two streams over the log, each with its own reader: parsing alone, and the whole
        // pipeline. They take turns a slice at a time (turn order flipping each slice, so that
        // neither always finds the other's bytes in cache), so both see the same machine.
        let parse = SlicedReplay(path: logPath), pipeline = SlicedReplay(path: logPath)
        var monitor = RegionMonitor(regions: set)
        var n = 0, acc = 0.0
        var tp = 0.0, tw = 0.0, slice = 0
        while !(parse.done && pipeline.done) {
            for whole in slice % 2 == 0 ? [false, true] : [true, false] {
                let t0 = now()
                if whole {
                    pipeline.next { fix in monitor.process(fix) { _ in n += 1 } }
                    tw += now() - t0
                } else {
                    parse.next { fix in if let c = fix.coordinate { acc += c.latitude } }
                    tp += now() - t0
                }
            }
            slice += 1
        }
        if acc == 1 { print("") }
        if run > 0 {
            parseTimes.append(tp)
            pipelineTimes.append(tw)
            ratios.append(tw / tp)
        }
        fixes = pipeline.reader.statistics.fixes
        events = n
        used = monitor.gate.accepted
        quiet = monitor.quietFixes
        watched = monitor.watchedFixes
    }
    let p = median(parseTimes), w = median(pipelineTimes), r = median(ratios)
    print("pipeline: \(logPath) against \(set.count) fences; \(runs) runs after one warm-up, parse and pipeline taking turns every \(SlicedReplay.sliceBytes >> 20) MiB")
    print("  parse alone        \(fmt(p, 3)) s  (\(fmt(Double(fixes) / p / 1e6, 3)) M fixes/s; median)")
    print("  whole pipeline     \(fmt(w, 3)) s  (\(fmt(Double(fixes) / w / 1e6, 3)) M fixes/s; median; \(used) fixes used, \(quiet) of them in a quiet ball, \(watched) of those evaluating its watched regions, \(events) events)")
    // When the VM is slowed (its neighbours, the host's clock), parsing slows more than the
    // monitor: a run whose parsing took longer has a lower ratio (docs/BENCHMARKS.md).
    print("  ratio              \(fmt(r, 2))x parsing alone (median of the runs: \(ratios.map { fmt($0, 2) }.joined(separator: ", ")); parsing took \(parseTimes.map { fmt($0, 3) }.joined(separator: ", ")) s)")
    print("  peak RSS           \(fmt(peakRSSMiB(), 1)) MiB")
    print("{\"bench\":\"pipeline\",\"K\":\(set.count),\"fixes\":\(fixes),\"used\":\(used),\"quiet\":\(quiet),\"watched\":\(watched),\"events\":\(events),\"parse_s\":\(fmt(p, 4)),\"pipeline_s\":\(fmt(w, 4)),\"ratio\":\(fmt(r, 3)),\"ratio_runs\":[\(ratios.map { fmt($0, 3) }.joined(separator: ","))],\"parse_runs\":[\(parseTimes.map { fmt($0, 4) }.joined(separator: ","))]}")
}

/// A log read a slice at a time, through its own `NMEAReader`: reading (read(2) into a 1 MiB
/// buffer, as `LogFile` does) and parsing, handing each fix on.
final class SlicedReplay {
    static let sliceBytes = 4 << 20
    let fd: Int32
    var reader = NMEAReader()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: LogFile.chunkSize, alignment: 16)
    private(set) var done = false

    init(path: String) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { fail("cannot open \(path)") }
    }
    deinit {
        buffer.deallocate()
        Glibc.close(fd)
    }

    /// Reads and parses the next slice (the rest of the log when less is left).
    func next(_ onFix: (Fix) -> Void) {
        guard !done else { return }
        var left = Self.sliceBytes
        while left > 0 {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n < 0 { if errno == EINTR { continue } else { fail("reading the log: \(String(cString: strerror(errno)))") } }
            if n == 0 {
                reader.finish(onFix)
                done = true
                return
            }
            reader.read(UnsafeRawBufferPointer(rebasing: buffer[0..<n]), onFix)
            left -= n
        }
    }
}

/// The AR layout of N random POIs (uniform over a 3 km disc around the observer, all active) on
/// the reference camera (360×640, fov 60×80, box 100×40, heading 30): our layout and our stacking
/// against the literal reference stacking (HDAugmentedReality's loop, Tests/Support) on the same
/// boxes, in one process. The geodesics (Karney, PROJ) are timed apart: both need them.
func benchLayout(counts: [Int], runs: Int, referenceRuns: Int) {
    let observer = Coordinate(latitude: 45.0, longitude: 18.0)
    let camera = Camera(screenWidth: 360, screenHeight: 640, horizontalFOV: 60, verticalFOV: 80, heading: 30)
    // The last: every box its own size, as the AR view sends them (widths of names, one or two
    // lines); the wire takes 1,000, the bench sizes every box to time the walk at 10,000.
    let configurations: [(String, DistanceOffset, Bool, Bool)] = [
        ("offset none (the default)", .none, false, false), ("offset automatic", .automatic, false, false),
        ("offset automatic, --clamp", .automatic, true, false), ("own sizes, offset none", .none, false, true),
    ]
    print("layout: the reference camera (360x640, fov 60x80, box 100x40), heading 30; POIs uniform within 3 km, all active")
    print("ours: median of \(runs) runs after one warm-up; reference: median of \(referenceRuns) runs; times in ms")
    func col(_ s: String, _ width: Int) -> String { s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count) }
    print("  " + col("configuration", 28) + col("POIs", 7) + col("geodesics", 11) + col("layout", 9) + col("stacking", 10)
          + col("reference", 11) + col("ratio", 8) + col("lifts", 9) + col("top", 5) + "hidden")
    var json: [String] = []
    for (name, offset, clamp, sized) in configurations {
        for n in counts {
            var rng = SplitMix64(seed: UInt64(n))
            let pois = (0..<n).map { i in
                POI(id: "poi-\(i)", coordinate: Geodesic.wgs84.direct(from: observer, bearing: rng.uniform(0, 360),
                                                                      distance: 3000 * rng.uniform(0, 1).squareRoot()))
            }
            var options = LayoutOptions(offset: offset, maxVisible: n, clampToScreen: clamp)
            if sized {
                for p in pois { options.sizes[p.id] = BoxSize(width: rng.uniform(70, 240).rounded(), height: rng.uniform(0, 1) < 0.8 ? 45 : 64) }
            }
            let projector = StackingProjector(camera: camera, options: options)
            let s = projector.stacking
            var geodesic: [Double] = [], layout: [Double] = [], ours: [Double] = [], reference: [Double] = []
            var items: [LayoutItem] = []
            var boxes: [ScreenBox] = []
            var fast: [Placement] = []
            for run in 0...runs {
                var t = now()
                let sightings = StackingProjector.sightings(from: observer, to: pois)
                let g = now() - t
                t = now()
                items = projector.layout(pois: pois, sightings: sightings).items
                let l = now() - t
                boxes = items.map { ScreenBox(x: $0.x!, y: $0.anchorY, distance: $0.distance, id: $0.id, size: options.sizes[$0.id]) }
                t = now()
                fast = s.stack(boxes)
                let f = now() - t
                if run > 0 { geodesic.append(g); layout.append(l); ours.append(f) }
            }
            for _ in 0..<referenceRuns {
                let t = now()
                let slow = ReferenceStacking.stack(boxes, boxWidth: s.boxWidth, boxHeight: s.boxHeight, seam: s.seam, maxLevels: s.maxLevels, topLimit: s.topLimit)
                reference.append(now() - t)
                guard slow == fast else { fail("\(name), \(n) POIs: the stacking differs from the reference") }
            }
            let lifts = items.reduce(0) { $0 + $1.level }, top = items.map { $0.level }.max() ?? 0
            let hidden = items.reduce(0) { $0 + ($1.hidden ? 1 : 0) }
            let (g, l, f, r) = (median(geodesic) * 1e3, median(layout) * 1e3, median(ours) * 1e3, median(reference) * 1e3)
            print("  " + col(name, 28) + col("\(n)", 7) + col(fmt(g, 2), 11) + col(fmt(l, 2), 9) + col(fmt(f, 2), 10) + col(fmt(r, 1), 11)
                  + col(fmt(r / f, 0) + "x", 8) + col("\(lifts)", 9) + col("\(top)", 5) + "\(hidden)")
            json.append("{\"bench\":\"layout\",\"configuration\":\"\(name)\",\"pois\":\(n),\"geodesics_ms\":\(fmt(g, 3)),\"layout_ms\":\(fmt(l, 3)),\"layout_runs_ms\":[\(layout.map { fmt($0 * 1e3, 2) }.joined(separator: ","))],\"stacking_ms\":\(fmt(f, 3)),\"reference_ms\":\(fmt(r, 1)),\"ratio\":\(fmt(r / f, 1)),\"lifts\":\(lifts),\"max_level\":\(top),\"hidden\":\(hidden)}")
        }
    }
    print("  layout = choosing, projecting and stacking (no geodesics); stacking and reference on the same boxes;")
    print("  every reference run's y, level and hidden flag equal ours, box for box")
    for line in json { print(line) }
}

/// The two inputs that once took quadratic time, each at a size and at 8 times that size, parsed
/// as `treeline check` parses a regions file (read, JSON, projection, every geometry rule):
/// a FeatureCollection carrying N `{"coordinates":[{}]}` objects (coordinates that are not numbers,
/// each a failed attempt at a position array), and one valid polygon of N vertices (a star-shaped
/// ring of radius ~2 km, wiggled so that no two edges are parallel: the self-intersection check).
/// Read feature by feature, two more: N features each with a syntax error (a member given twice),
/// and a top level of N members besides its features.
/// Linear (or n log n) growth shows as a ratio near 8 (n log n: ~8.5–9); quadratic as ~64.
func benchHostile(runs: Int) {
    func brokenFeatures(_ n: Int) -> [UInt8] {
        var out = Array(#"{"type":"FeatureCollection","features":["#.utf8)
        for i in 0..<n {
            if i > 0 { out.append(contentsOf: Array(",\n".utf8)) }
            out.append(contentsOf: Array(#"{"type":"Feature","type":"Feature","properties":{"id":"f\#(i)","kind":"album"},"geometry":{"type":"Point","coordinates":[-8.24,40.1]}}"#.utf8))
        }
        out.append(contentsOf: Array("]}".utf8))
        return out
    }
    func topMembers(_ n: Int) -> [UInt8] {
        var out = Array(#"{"type":"FeatureCollection","features":[]"#.utf8)
        for i in 0..<n { out.append(contentsOf: Array(",\"m\(i)\":\(i)".utf8)) }
        out.append(UInt8(ascii: "}"))
        return out
    }
    func copies(_ n: Int) -> [UInt8] {
        var out = Array(#"{"type":"FeatureCollection","features":[],"x":["#.utf8)
        let one = Array(#"{"coordinates":[{}]}"#.utf8)
        out.reserveCapacity(out.count + n * (one.count + 1) + 2)
        for i in 0..<n {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: one)
        }
        out.append(contentsOf: Array("]}".utf8))
        return out
    }
    func ring(_ n: Int) -> [UInt8] {
        let lat0 = 40.1, lon0 = -8.24, metresPerDegree = 111_320.0
        var out = Array(#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"id":"ring","kind":"reforestation","name":"ring"},"geometry":{"type":"Polygon","coordinates":[["#.utf8)
        for i in 0...n {
            let t = 2 * Double.pi * Double(i % n) / Double(n)
            let r = 2000 * (1 + 0.1 * sin(37 * t) + 0.02 * sin(911 * t))
            let lat = lat0 + r * sin(t) / metresPerDegree
            let lon = lon0 + r * cos(t) / (metresPerDegree * cos(lat0 * Double.pi / 180))
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "["))
            JSONBytes.appendFixed(lon, decimals: 9, to: &out)
            out.append(UInt8(ascii: ","))
            JSONBytes.appendFixed(lat, decimals: 9, to: &out)
            out.append(UInt8(ascii: "]"))
        }
        out.append(contentsOf: Array("]]}}]}".utf8))
        return out
    }
    /// Median seconds of `runs` parses after one warm-up, and what the parse said.
    func time(_ bytes: [UInt8], _ name: String) -> (Double, String) {
        var times: [Double] = []
        var outcome = ""
        for run in 0...runs {
            let t0 = now()
            do {
                let regions = try RegionFile.parse(bytes, file: name, requirements: .geometryOnly)
                outcome = "\(regions.count) region(s), \(regions.first.map { "\($0.id) accepted" } ?? "none")"
            } catch {
                outcome = "refused: " + String(error.description.prefix(100))
            }
            if run > 0 { times.append(now() - t0) }
        }
        return (median(times), outcome)
    }
    print("hostile inputs, parsed as `treeline check` does; median of \(runs) runs after one warm-up")
    var json: [String] = []
    for (case_, make, small) in [("coordinates-copies", copies, 8_000), ("ring-vertices", ring, 20_000),
                                 ("broken-features", brokenFeatures, 4_000), ("top-level-members", topMembers, 5_000)] as [(String, (Int) -> [UInt8], Int)] {
        let a = make(small), b = make(8 * small)
        let (ta, oa) = time(a, "\(case_)-\(small)"), (tb, ob) = time(b, "\(case_)-\(8 * small)")
        print("  \(case_): \(small) (\(a.count) bytes) \(fmt(ta, 4)) s; \(8 * small) (\(b.count) bytes) \(fmt(tb, 4)) s; ratio \(fmt(tb / ta, 2)) for 8x the input")
        print("    \(small): \(oa)")
        print("    \(8 * small): \(ob)")
        json.append("{\"bench\":\"hostile\",\"case\":\"\(case_)\",\"n\":\(small),\"n8\":\(8 * small),\"seconds\":\(fmt(ta, 5)),\"seconds8\":\(fmt(tb, 5)),\"ratio\":\(fmt(tb / ta, 3))}")
    }
    for line in json { print(line) }
}

/// A plain buffered file writer for the pairs dump.
final class ByteSink {
    let fd: Int32
    var buffer: [UInt8] = []
    init(path: String) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if fd < 0 { fail("cannot write \(path)") }
    }
    func line(_ s: String) {
        buffer.append(contentsOf: s.utf8)
        buffer.append(0x0A)
        if buffer.count > 1 << 20 { flush() }
    }
    func flush() {
        _ = buffer.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        buffer.removeAll(keepingCapacity: true)
    }
    func close() {
        flush()
        Glibc.close(fd)
    }
}

var args = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, default value: Int, in args: inout [String], allowZero: Bool = false) -> Int {
    guard let i = args.firstIndex(of: name) else { return value }
    guard i + 1 < args.count, let v = Int(args[i + 1]), v > 0 || (allowZero && v == 0) else { fail("\(name) needs a positive number") }
    args.removeSubrange(i...(i + 1))
    return v
}
func flag(_ name: String, in args: inout [String]) -> Bool {
    guard let i = args.firstIndex(of: name) else { return false }
    args.remove(at: i)
    return true
}

func stringOption(_ name: String, in args: inout [String]) -> String? {
    guard let i = args.firstIndex(of: name) else { return nil }
    guard i + 1 < args.count else { fail("\(name) needs a value") }
    let v = args[i + 1]
    args.removeSubrange(i...(i + 1))
    return v
}
let runs = option("--runs", default: 5, in: &args)
let pointsFile = stringOption("--points-file", in: &args)
let pairsFile = stringOption("--pairs", in: &args)
let storeFolder = stringOption("--store", in: &args)
let eventsFile = stringOption("--events", in: &args)
let referenceRuns = option("--reference-runs", default: 3, in: &args)
switch args.first {
case "layout":
    guard args.count == 1 else { fail("usage: treeline-bench layout [--runs N] [--reference-runs N]") }
    benchLayout(counts: [1000, 10_000], runs: runs, referenceRuns: referenceRuns)
case "pipeline":
    guard args.count == 3 else { fail("usage: treeline-bench pipeline LOG FENCES.geojson [--runs N] [--events OUT]") }
    benchPipeline(logPath: args[1], fencesPath: args[2], runs: runs, eventsPath: eventsFile)
case "fences":
    guard args.count == 2, let pointsFile else { fail("usage: treeline-bench fences FENCES.geojson --points-file PTS.csv [--runs N] [--pairs OUT] [--store FOLDER]") }
    benchFences(path: args[1], pointsPath: pointsFile, pairsPath: pairsFile, runs: runs, storeFolder: storeFolder)
case "round":
    guard args.count == 1 else { fail("usage: treeline-bench round [--runs N]") }
    benchRound(counts: [9, 12, 60, 200, 1000], runs: runs)
case "hostile":
    guard args.count == 1 else { fail("usage: treeline-bench hostile [--runs N]") }
    benchHostile(runs: runs)
case "latency":
    let subscribers = option("--subscribers", default: 100, in: &args)
    let epochs = option("--epochs", default: 1000, in: &args)
    let rate = option("--rate", default: 10, in: &args)
    let dir = stringOption("--dir", in: &args) ?? "/dev/shm"
    let withoutGST = flag("--no-gst", in: &args)
    let regions = stringOption("--regions", in: &args)
    let reloadEvery = regions == nil ? 0 : option("--reload-every", default: 0, in: &args, allowZero: true)
    guard args.count == 1 else { fail("usage: treeline-bench latency [--subscribers N] [--epochs N] [--rate HZ] [--dir FOLDER] [--no-gst] [--regions FENCES.geojson [--reload-every S]]") }
    LatencyBench(subscribers: subscribers, epochs: epochs, rate: rate, dir: dir, regions: regions, reloadEvery: reloadEvery, gst: !withoutGST).run()
case "nmea":
    guard args.count == 2 else { fail("usage: treeline-bench nmea FILE [--runs N]") }
    benchNMEA(path: args[1], runs: runs)
default:
    print("""
    usage: treeline-bench nmea FILE [--runs N]
           treeline-bench fences FENCES.geojson --points-file PTS.csv [--runs N] [--pairs OUT]
           treeline-bench pipeline LOG FENCES.geojson [--runs N] [--events OUT]
           treeline-bench layout [--runs N] [--reference-runs N]
           treeline-bench hostile [--runs N]
           treeline-bench round [--runs N]
           treeline-bench latency [--subscribers N] [--epochs N] [--rate HZ] [--dir FOLDER] [--no-gst]
                                  [--regions FENCES.geojson [--reload-every S]]

      nmea   read and assemble a whole NMEA log (as `treeline replay` does); report lines/s,
             sentences/s, fixes/s and peak RSS. Make the 1,000,000-epoch log with
             Benchmarks/baselines/gen_nmea.py 1000000 FILE; Benchmarks/nmea.sh runs this and the
             pynmea2 baseline in one session and prints the ratios.
      fences load a fence file (gen_fences.py) and test every point of PTS (gen_points.py,
             lat,lon lines) for containment, one core; report load time, points/s, pairs and
             peak RSS. Benchmarks/fences.sh runs shapely's STRtree beside it.
      pipeline  replay LOG through the quality gate and the region monitor over FENCES, against
             reading and parsing LOG alone; the two take turns every 4 MiB of the log, so that
             both see the same machine; report both, the ratio of each run and their median.
             --events OUT first writes the events (ns time, type, region id, transit) to OUT.
      layout lay out 1,000 and 10,000 random POIs (all active) on the reference camera with offset
             none, automatic, and automatic with --clamp; report the geodesics, our layout, our
             stacking and the literal reference stacking (HDAugmentedReality's loop) on the same
             boxes, their ratio, the lifts; fails if the two stackings differ anywhere.
             --runs (default 5) for ours, --reference-runs (default 3) for the slow reference.
      round  the order to walk 9, 12, 60, 200 and 1,000 seeded stops (RoundPlanner, as the
             daemon's round command), against textbook 2-opt from nearest neighbour on the same
             stops in the same run: the time of each and the lengths (up to 12 stops the
             planner's is the optimum).
      latency   the built treelined (beside treeline-bench) fed by Debian's gpsd, which reads
             epochs from this bench at --rate Hz (default 10, --epochs 1000); --subscribers
             (100) socket subscribers with positions and one poll() thread reading them all:
             each POSITION line timed from when its epoch was written, p50/p99/max, and gpsd's
             own TPV to a plain client, timed the same way (its share). The database goes in
             --dir (default /dev/shm, a tmpfs; give a disk folder for the other figure).
             Each epoch ends with a GST (the fix goes out when its error estimate has come);
             --no-gst leaves it out, as consumer receivers do. --regions gives the daemon a
             regions file (the epochs stand at gen_fences.py's centre); --reload-every S sends
             it SIGHUP every S s and reports epochs written during a reload (SIGHUP to its
             READY=1 on NOTIFY_SOCKET) apart from the others.
      hostile   parse, as `treeline check` does, the inputs that once took quadratic time, at a size
             and 8 times that size: a FeatureCollection with 8,000 / 64,000 {"coordinates":[{}]}
             objects, and one valid polygon of 20,000 / 160,000 vertices (self-intersection check);
             report both times and their ratio (~8 linear, ~9 n log n, 64 quadratic).
    """)
    exit(args.isEmpty ? 0 : 2)
}
