import Foundation
import IntegrationSupport
import Testing

/// Rounds and trails in the web app (Tests/Browser/trail.py), in Debian's chromium while gpsd is
/// fed the walk at 10 fixes a second from the moment the script is ready (25 from the guidance's
/// first sample to half a minute before the first checkpoint): the Round button's
/// list is the daemon's `round` order and is saved as a trail; a trail started from the page
/// (refused before the first fix) is guided to checkpoint after checkpoint by an arrow along the
/// geodesic (within 5° of Vincenty's bearing from the page's position), says each checkpoint
/// reached, the one out of order and the completion, and is drawn on the map and framed in the
/// AR view; a locked trail unlocks; Remove asks first; a plan's spots are put in walking order.
/// Screenshots at 390×844 and 320×568 in out/web/trail-*.png.
extension InBrowser {
    @Test func theTrailWebViewsGuideTheWalkerThroughARoundAndATrail() async throws {
        let arguments: @Sendable (Int) -> [String] = { ["--gpsd-port", String($0), "--shots", Self.artefacts.path, "--last-fix", walkLastFix] }
        // From the first sample of the guidance to half a minute of the walk before the first
        // checkpoint (entered at 09:13:39), 25 fixes a second: the samples need no pace there.
        let beforeTheFirst = try walkLine(at: "091309")
        let faster = [PaceChange(line: "FAST", linesPerTick: 10, until: beforeTheFirst)]
        try await walkWith("trail", linesPerTick: 4, tick: 0.1, timeout: 420, arguments: arguments, faster: faster) { r, daemon in
            #expect(r.results["round_order_matches"] as? Bool == true)
            #expect(r.results["round_stops"] as? Int == 5)
            #expect(r.results["checkpoints_reached"] as? Int == 4)
            #expect((r.results["bearing_samples"] as? Int ?? 0) >= 50)
            #expect((r.results["bearing_error_max_deg"] as? Double ?? 99) <= 5)
            #expect((r.results["map_centre_error_m"] as? Double ?? 99) < 1)
            #expect(r.results["console_errors"] as? Int == 0)
            for name in ["round", "ar", "map", "trails", "completed", "events", "plan", "remove"] {
                for width in [390, 320] {
                    let file = Self.artefacts.appendingPathComponent("trail-\(name)-\(width).png")
                    #expect(FileManager.default.fileExists(atPath: file.path), "no screenshot \(file.lastPathComponent)")
                }
            }
            #expect(daemon.isRunning)
        }
    }
}
