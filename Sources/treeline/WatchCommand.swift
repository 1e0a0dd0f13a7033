import ArgumentParser
import Config
import Dispatch
import Geo
import GPSD
import Loading
import Rules
#if canImport(Glibc)
import Glibc
import Regions
#endif

extension Treeline {
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read live fixes from gpsd: print them, or the region monitor's events, until Ctrl-C.",
            discussion: """
            Connects to gpsd through libgps and prints one JSON line per fix, the same as
            `treeline replay --fixes` prints for a log (--fixes, the default), or runs the region
            monitor over the fixes and prints its events, the same as `treeline replay --regions`
            (--regions FILE, repeatable; --config and the monitor options as for replay).

            gpsd may be absent at start, die or go silent: the client keeps trying, waiting 0.1 s, then
            twice as long each time, at most 10 s. Changes of state (connected, receiver, no fix,
            disconnected and why) go to standard error, once each. Ctrl-C (or SIGTERM) stops; with
            --regions a summary follows on standard error.

            Examples:
              treeline watch
              treeline watch --host 192.168.1.20 --regions Data/regions.geojson --config /etc/treeline/treeline.yaml
            """
        )

        @Option(help: "gpsd's host (default 127.0.0.1, or the config's gpsd: host).")
        var host: String?

        @Option(help: "gpsd's port (default 2947, or the config's gpsd: port).")
        var port: Int?

        @Flag(help: "Print one JSON line per fix (the default without --regions).")
        var fixes = false

        @Option(help: "A regions file (GeoJSON); repeat for several. Prints the monitor's events.")
        var regions: [String] = []

        @Option(help: "The CRS of the regions' coordinates when a file does not say (e.g. EPSG:3763).")
        var crs: String?

        @Option(help: "A config file (YAML, as the daemon's): its gpsd: and monitor: sections; options override them.")
        var config: String?

        @Option(name: .customLong("silence-s"), help: "Seconds without a word from gpsd before reconnecting (default 10).")
        var silence: Double = 10

        @OptionGroup(title: "Monitor (with --regions)")
        var monitor: MonitorOptions

        func validate() throws {
            if fixes && !regions.isEmpty { throw ValidationError("--fixes and --regions print different things: give one") }
            if let port, !(1...65_535).contains(port) { throw ValidationError("--port must be 1 to 65535") }
            if !(silence > 0) || !silence.isFinite { throw ValidationError("--silence-s must be a number above 0") }
        }

        func run() async throws {
            let file = try config.map(Loader.config) ?? TreelineConfig()
            let client = GPSDClient(host: host ?? file.gpsdHost, port: port ?? file.gpsdPort, silence: silence)
            var monitor: RegionMonitor?
            var set: RegionSet?
            if !regions.isEmpty {
                set = try Loader.regions(regions, crs: crs)
                monitor = RegionMonitor(regions: set!, config: self.monitor.applied(to: file.monitor))
            }

            let gpsdStop = GPSDStop()
            let updates = client.updates(until: gpsdStop)
            let stopping = StopOnSignals()
            let task = Task {
                let out = ByteWriter(fd: 1), err = ByteWriter(fd: 2)
                var fixCount = 0
                var byType: [String: Int] = [:]
                for await update in updates {
                    switch update {
                    case .status(let s):
                        err.write("treeline watch: \(s)\n")
                        err.flush()
                    case .fix(let fix):
                        fixCount += 1
                        if monitor == nil {
                            out.write { buf in
                                fix.appendJSON(to: &buf)
                                buf.append(0x0A)
                            }
                        } else if let regions = set {
                            monitor!.process(fix) { event in
                                byType[event.type.rawValue, default: 0] += 1
                                out.write { buf in
                                    event.appendJSON(to: &buf, regions: regions)
                                    buf.append(0x0A)
                                }
                            }
                        }
                        out.flush()  // live: every line as it comes
                    }
                }
                if let monitor {
                    var summary = "gpsd: \(fixCount) fixes, \(monitor.gate.accepted) used"
                    let dropped = DropReason.allCases.compactMap { r in monitor.gate.dropped[r].map { "\(r.rawValue) \($0)" } }
                    summary += dropped.isEmpty ? ", none dropped\n" : ", dropped: " + dropped.joined(separator: ", ") + "\n"
                    let events = byType.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                    summary += "events: " + (events.isEmpty ? "none" : events.joined(separator: ", ")) + "\n"
                    err.write(summary)
                    err.flush()
                }
            }
            await stopping.wait()
            // The reader hands over the fix it holds, then ends the stream: nothing gpsd sent is lost.
            gpsdStop.stop()
            await task.value
        }
    }
}

/// Waits for SIGINT or SIGTERM (which no longer kill the process, so that output is complete).
final class StopOnSignals {
    private let sources: [DispatchSourceSignal]
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream<Void>.makeStream()
        let continuation = self.continuation
        sources = [SIGINT, SIGTERM].map { sig in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.resume()
            return source
        }
    }

    func wait() async {
        for await _ in stream { return }
    }
}
