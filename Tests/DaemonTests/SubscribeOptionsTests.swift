import Foundation
import Geo
import IntegrationSupport
import Loading
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension Daemon {
    /// `subscribe`'s options, by what they carry while gpsd feeds the walk:
    /// - `timing`: each live event of a fix carries `received_ns`, the daemon's monotonic time of
    ///   receiving the fix that made it: never decreasing, before the moment the line is read and
    ///   at most 10 s before it; an event a command made has none;
    /// - `positions`: POSITION lines are fixes of the log, as replay reads them (time, lat, lon,
    ///   error, nothing else), in the log's order, to the walk's last fix; an event comes after
    ///   the positions of the fixes before its time;
    /// - `regions`: the named regions' events only, exactly replay's events of those regions
    ///   (and their announcements), in order, ended by a watering of one of them.
    @Test func subscribeOptionsCarryWhatTheyName() async throws {
        let expected = try replayed(walk, regions: sampleRegions)
        var fixes: [String: Fix] = [:]
        _ = try LogFile(path: walk.path).replay { f in if let t = f.time, f.coordinate != nil { fixes[t.iso8601] = f } }
        let named: Set<String> = ["plant-carvalho", "album-miradouro"]
        // 200 fixes a second: a reader keeps up, so no position is dropped for being behind.
        try await withGPSD(log: walk, linesPerTick: 8, tick: 0.01) { feeder, gpsd in
            feeder.pause()
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try await daemon.start()
            let (timed, _) = try daemon.client()
            #expect(json(timed.ask(#"{"cmd":"subscribe","timing":true}"#))["class"] as? String == "SUBSCRIBED")
            let (placed, _) = try daemon.client()
            #expect(json(placed.ask(#"{"cmd":"subscribe","positions":true}"#))["class"] as? String == "SUBSCRIBED")
            let (chosen, _) = try daemon.client()
            #expect(json(chosen.ask(#"{"cmd":"subscribe","since":0,"regions":["plant-carvalho","album-miradouro"],"base_regions":true}"#))["class"] as? String == "SUBSCRIBED")

            // Each read on a thread of its own, from now on, to its known end.
            let timedLines = LineBox(), placedLines = LineBox(), chosenLines = LineBox()
            let markerSeq = announcedSeqs + Int64(expected.count) + 1
            let marked = #"{"class":"EVENT","seq":\#(markerSeq),"#
            let readers = [
                Thread { while let l = timed.line(timeout: 60) { timedLines.append(l, at: monotonicNanos()); if l.hasPrefix(marked) { break } } },
                Thread { while let l = placed.line(timeout: 60) { placedLines.append(l, at: 0); if l.hasPrefix(marked) { break } } },
                Thread { while let l = chosen.line(timeout: 60) { chosenLines.append(l, at: 0); if l.contains(#""type":"watered""#) { break } } },
            ]
            for r in readers { r.start() }
            feeder.resume()
            let (c, _) = try daemon.client()
            try await waitFor(within: 60) { (json(c.ask(#"{"cmd":"state"}"#))["last_fix"] as? [String: Any])?["time"] as? String == walkLastFix }
            #expect(Self.marker(daemon.socket) == markerSeq)
            #expect(json(c.ask(#"{"cmd":"water","plant":"plant-carvalho"}"#))["type"] as? String == "watered")
            try await waitFor(within: 60) { readers.allSatisfy(\.isFinished) }

            // timing
            let t = timedLines.all
            let events = t.compactMap { withoutSeq($0.line) }
            #expect(firstDifference(events.map(\.event), expected) == nil, "the walk's events, live")
            #expect(events.map(\.seq) == seqs(expected.count))
            var problems: [String] = []
            var previous: (ns: UInt64, time: String)?
            var fixesTimed = Set<UInt64>()
            for (line, readAt) in t where withoutSeq(line) != nil {
                guard let ns = (json(line)["received_ns"] as? NSNumber)?.uint64Value else { problems.append("no received_ns: \(line.prefix(120))"); continue }
                let time = json(line)["time"] as? String ?? ""
                if ns > readAt || readAt - ns > 10_000_000_000 { problems.append("received_ns \(ns) read at \(readAt)") }
                if let p = previous, ns < p.ns { problems.append("received_ns goes back at \(time) after \(p.time)") }
                previous = (ns, time)
                fixesTimed.insert(ns)
            }
            #expect(problems.isEmpty, "\(problems.count) timing problems, the first: \(problems.first ?? "")")
            #expect(fixesTimed.count > 10, "the walk's events came from \(fixesTimed.count) fixes' receive times")
            #expect(t.last.map { (json($0.line)["seq"] as? NSNumber)?.int64Value == markerSeq && !$0.line.contains("received_ns") } == true,
                    "the marker, made by a command, has no receive time: \(t.last?.line.prefix(200) ?? "none")")

            // positions
            let p = placedLines.all.map(\.line)
            let positions = p.enumerated().filter { json($0.element)["class"] as? String == "POSITION" }
            let used = (json(c.ask(#"{"cmd":"state"}"#))["used"] as? NSNumber)?.intValue ?? 0
            #expect(positions.count >= used * 9 / 10 && positions.count <= used, "\(positions.count) positions of \(used) fixes used")
            var unlike: [String] = []
            var lastTime = ""
            for (_, line) in positions {
                let o = json(line)
                let time = o["time"] as? String ?? ""
                guard let f = fixes[time], let fc = f.coordinate, let lat = (o["lat"] as? NSNumber)?.doubleValue, let lon = (o["lon"] as? NSNumber)?.doubleValue else {
                    unlike.append("not a fix of the log: \(line)"); continue
                }
                if abs(lat - fc.latitude) > 1.01e-7 || abs(lon - fc.longitude) > 1.01e-7 { unlike.append("\(line) vs the log's \(fc)") }
                if let e = f.horizontalError, abs(((o["error_m"] as? NSNumber)?.doubleValue ?? -1) - e) > 0.0101 { unlike.append("\(line) vs the log's error \(e)") }
                if time <= lastTime { unlike.append("\(time) after \(lastTime)") }
                lastTime = time
                // The receiver's speed and course where the log's fix has them (gpsd rounds them, then the
                // daemon to 2 and 1 decimals).
                var fields: Set<String> = ["class", "time", "lat", "lon", "error_m"]
                if let v = f.speed {
                    fields.insert("speed")
                    if abs(((o["speed"] as? NSNumber)?.doubleValue ?? -1) - v) > 0.0101 { unlike.append("\(line) vs the log's speed \(v)") }
                }
                if let c = f.course {
                    fields.insert("course")
                    if abs(((o["course"] as? NSNumber)?.doubleValue ?? -1) - c) > 0.0601 { unlike.append("\(line) vs the log's course \(c)") }
                }
                if Set(o.keys) != fields { unlike.append("fields \(o.keys.sorted()), the log's fix: \(fields.sorted())") }
            }
            #expect(unlike.isEmpty, "\(unlike.count) positions unlike the log's fixes, the first: \(unlike.first ?? "")")
            #expect(positions.last.map { json($0.element)["time"] as? String } == walkLastFix)
            // An event follows the positions of the fixes before its time (the daemon sends a
            // fix's events, then its position; an event is dated at or before the fix that made it).
            for (k, line) in p.enumerated() where withoutSeq(line) != nil {
                let time = json(line)["time"] as? String ?? ""
                let late = positions.filter { $0.offset > k && (json($0.element)["time"] as? String ?? "") < time }
                #expect(late.isEmpty, "the event of \(time) came before the position of \(late.first.map { json($0.element)["time"] as? String ?? "" } ?? "")")
            }

            // regions
            let r = chosenLines.all.map { json($0.line) }
            let announced = r.filter { $0["type"] as? String == "region_added" }.compactMap { $0["region"] as? String }
            #expect(announced == ["plant-carvalho", "album-miradouro"], "the two regions' announcements, in file order: \(announced)")
            #expect(r.prefix(2).allSatisfy { ($0["seq"] as? NSNumber)?.int64Value == 1 && $0["part"] != nil }, "derived from the files' record: \(r.prefix(2))")
            let walkEvents = chosenLines.all.compactMap { withoutSeq($0.line)?.event }.filter { json($0)["type"] as? String != "watered" }
            let theirs = expected.filter { named.contains(json($0)["region"] as? String ?? "") }
            #expect(theirs.count >= 4 && firstDifference(walkEvents, theirs) == nil, "\(walkEvents.count) events for replay's \(theirs.count) of those regions: \(firstDifference(walkEvents, theirs) ?? "")")
            #expect(r.allSatisfy { named.contains($0["region"] as? String ?? "") }, "only the named regions: \(Set(r.compactMap { $0["region"] as? String }))")
            #expect(r.last?["type"] as? String == "watered" && r.last?["region"] as? String == "plant-carvalho", "ended by the watering")
            print("subscribe options: \(events.count) timed events from \(fixesTimed.count) fixes, \(positions.count) positions of \(used) fixes used, \(walkEvents.count) events of \(named.sorted())")
        }
    }
}

/// Lines a reader thread took, each with when it was read (monotonic ns).
final class LineBox: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [(line: String, readAt: UInt64)] = []
    func append(_ line: String, at: UInt64) { lock.withLock { lines.append((line, at)) } }
    var all: [(line: String, readAt: UInt64)] { lock.withLock { lines } }
}
