import ArgumentParser
import Geo
import NMEA
import Config
import Loading
import Rules
import Map
import TreelineVersion

extension Treeline {
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

            --config FILE reads the monitor: section of a Treeline config (YAML); the options below
            override it.

            --regions FILE (repeatable) runs the region monitor over the fixes instead and prints its
            events, one JSON object per line: time (the fix's, never the wall clock), type (enter, exit,
            dwell, water_due, capture_allowed, capture_locked, planting_allowed, planting_forbidden),
            region, kind, name, lat, lon, distance_m (signed, positive inside), error_m, and initial,
            transit, species where they apply. A summary goes to standard error: fixes used and dropped
            by reason, events by type.

            --svg FILE (with --regions) also draws a map: the fences coloured by kind with their names,
            the track of the fixes used (dashed across gaps of more than 10 s), the events with their
            times, a scale bar and a north arrow. Open it in a web browser.

            --gpx FILE (with --regions) also writes the track of the fixes the monitor used as GPX 1.1,
            thinned as the daemon records it: the first fix, then one whenever the receiver has moved
            2 m or 30 s have passed since the last one kept. One trkpt (lat, lon, time) per point; the
            track and the file are named after the log. GPS software and OpenStreetMap editors open it.

            Examples:
              treeline replay Data/walk.nmea --fixes | head
              cat Data/walk.nmea | treeline replay - --stats
              treeline replay Data/walk.nmea --regions Data/regions.geojson --regions Data/regions-pt-tm06.geojson
              treeline replay Data/walk.nmea --regions Data/regions.geojson --svg walk.svg
              treeline replay Data/walk.nmea --regions Data/regions.geojson --gpx walk.gpx
            """
        )

        @Argument(help: "The NMEA log to read, or '-' for standard input.")
        var file: String

        @Flag(help: "Print one JSON line per fix.")
        var fixes = false

        @Flag(help: "Print the counts of what the log held.")
        var stats = false

        @Option(help: "A regions file (GeoJSON); repeat for several. Prints the monitor's events.")
        var regions: [String] = []

        @Option(help: ArgumentHelp("With --regions: write a map (SVG) of the fences, the track and the events to this file.", valueName: "file"))
        var svg: String?

        @Option(help: ArgumentHelp("With --regions: write the track of the fixes used (GPX 1.1), thinned as the daemon records it, to this file.", valueName: "file"))
        var gpx: String?

        @Option(help: "The CRS of the regions' coordinates when a file does not say (e.g. EPSG:3763).")
        var crs: String?

        @Option(help: "A config file (YAML, as the daemon's); its monitor: section sets the defaults that options override.")
        var config: String?

        @OptionGroup(title: "Monitor (with --regions)")
        var monitor: MonitorOptions

        @OptionGroup var prepared: StoreOptions

        func validate() throws {
            if !regions.isEmpty && fixes { throw ValidationError("--fixes and --regions print different things: give one") }
            if svg != nil && regions.isEmpty { throw ValidationError("--svg draws the monitor's events: give --regions too") }
            if gpx != nil && regions.isEmpty { throw ValidationError("--gpx records the fixes the monitor used: give --regions too") }
        }

        func run() throws {
            if !regions.isEmpty { return try runMonitor() }
            // LogFile's error names the file and what to do; ArgumentParser prints it
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
}

extension Treeline.Replay {
    func runMonitor() throws {
        // The log is read on a thread of its own from the start, while the fences load and then
        // while the monitor works: parsing and the monitor take a core each. A log that cannot
        // be opened is reported after the regions' problems, as when it was opened after them.
        let opened = Result { () throws(LogFileError) in try LogFile(path: file) }
        let size = (try? opened.get())?.size
        let ahead = (try? opened.get()).map { ReadAhead($0) }
        let set = try Loader.regions(regions, crs: crs, store: prepared.store)
        _ = try opened.get()
        let out = ByteWriter(fd: 1)
        let base = try config.map(Loader.config)?.monitor ?? MonitorConfig()
        var monitor = RegionMonitor(regions: set, config: monitor.applied(to: base))
        var byType: [String: Int] = [:]
        var map: SVGMap? = svg.map { _ in
            var m = SVGMap(regions: set.regions)
            m.title = file == "-" ? "standard input" : file
            return m
        }
        var lastUsed: UTCTime?
        // The GPX track: the fixes the monitor used, as the daemon records them. A fix was used
        // when the monitor's last fix is a new one (a later time: a dropped jump changes only its
        // pending jump), and it is kept when the thinner admits it.
        let recording = gpx != nil
        var thinner = TrackThinner()
        var track: [TrackPoint] = []
        let bar = ProgressBar(total: size, label: file)
        defer { bar.finish() }
        var shownRead = 0
        // swift-format-ignore: ReplaceForEachWithForLoop
        // ReadAhead's own forEach, which returns the reader's counts.
        let counts = try ahead!.forEach { fix, bytesRead in
            if bytesRead != shownRead {
                bar.update(bytesRead)
                shownRead = bytesRead
            }
            let used = monitor.gate.accepted
            let lastTime = recording ? monitor.lastFix?.time : nil
            monitor.process(fix) { event in
                byType[event.type.rawValue, default: 0] += 1
                map?.addEvent(event)
                out.write { buf in
                    event.appendJSON(to: &buf, regions: set)
                    buf.append(0x0A)
                }
            }
            // The map's track: the fixes the monitor used, broken where they stop for over 10 s.
            if map != nil, monitor.gate.accepted > used, let c = fix.coordinate, let t = fix.time {
                if let last = lastUsed, t.seconds(since: last) > 10 { map?.breakTrack() }
                map?.addTrack(c)
                lastUsed = t
            }
            if recording, let last = monitor.lastFix, last.time != lastTime {
                let p = TrackPoint(time: last.time, coordinate: last.coordinate, error: last.error)
                if thinner.admit(p) { track.append(p) }
            }
        }
        out.flush()
        bar.finish()
        if let map, let svg { try WholeFile.write(map.render(), to: svg, what: "map") }
        if let gpx {
            let name = file == "-" ? "standard input" : file
            let bytes = TrackWriter.gpx(track, name: name, creator: "Treeline \(treelineVersion)")
            try WholeFile.write(String(decoding: bytes, as: UTF8.self), to: gpx, what: "track")
        }
        var summary = "\(file): \(counts.fixes) fixes, \(monitor.gate.accepted) used"
        let dropped = DropReason.allCases.compactMap { r in monitor.gate.dropped[r].map { "\(r.rawValue) \($0)" } }
        summary += dropped.isEmpty ? ", none dropped\n" : ", dropped: " + dropped.joined(separator: ", ") + "\n"
        let events = byType.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        summary += "events: " + (events.isEmpty ? "none" : events.joined(separator: ", ")) + "\n"
        let err = ByteWriter(fd: 2)
        err.write(summary)
        err.flush()
        if stats {
            err.write(StatsReport.text(counts, source: file))
            err.flush()
        }
    }
}
