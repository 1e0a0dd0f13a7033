import Foundation
import IntegrationSupport
import Testing

/// Finding the way on the map (Tests/Browser/mapnav.py), in Debian's chromium while gpsd is fed
/// the walk at 5 fixes a second from the moment the script is ready until it has arrived at the
/// plant (but at 25 from the AR view's check to half a minute of the walk before the plant, and at
/// 50 after the arrival, to the walk's end, where the shortcuts are checked): the map follows the
/// position (its centre on the last fix), stops after a drag by hand and follows again after ◎;
/// the position's arrow shows the course while walking and the compass once one reports (sent as
/// the phone's `deviceorientationabsolute` events); "Go there" on a plant's card leads to it
/// (REGIONS' distance to its edge, the arrow along the geodesic minus the heading) until the
/// monitor's enter says "Arrived"; "Next due plant" and "Nearest album" pick what REGIONS says;
/// region names from zoom 16 on never overlap; the AR view frames the target. axe-core on the
/// map with the bar open; screenshots at 390×844, 320×568 (both themes) and 844×390 in
/// out/web/mapnav-*.png.
extension InBrowser {
    @Test func theMapFollowsTheWalkerAndGuidesToAnyTarget() async throws {
        let arguments: @Sendable (Int) -> [String] = { ["--gpsd-port", String($0), "--shots", Self.artefacts.path, "--last-fix", walkLastFix] }
        // Between the AR view's check and half a minute of the walk before the plant (entered at
        // 09:13:39) no check needs the walker's pace: 25 fixes a second there.
        let beforeThePlant = try walkLine(at: "091309")
        let faster = [PaceChange(line: "FAST", linesPerTick: 10, until: beforeThePlant), PaceChange(line: "ARRIVED", linesPerTick: 20)]
        try await walkWith("mapnav", linesPerTick: 2, tick: 0.1, timeout: 600, arguments: arguments, faster: faster) { r, daemon in
            #expect(r.results["follow_centre_error_m"].map { ($0 as? Double ?? 99) < 3 } == true)
            #expect(r.results["drag_stopped_following"] as? Bool == true)
            #expect(r.results["centre_moved_after_drag_m"].map { ($0 as? Double ?? 99) < 0.5 } == true)
            #expect(r.results["follow_again_error_m"].map { ($0 as? Double ?? 99) < 3 } == true)
            #expect((r.results["course_samples"] as? Int ?? 0) >= 20)
            #expect((r.results["course_arrow_error_max_deg"] as? Double ?? 99) <= 1)
            #expect((r.results["course_vs_walk_rmc_max_deg"] as? Double ?? 99) <= 1, "the arrow is gpsd's course, from the board's POSITION")
            #expect((r.results["compass_arrow_error_max_deg"] as? Double ?? 99) <= 1)
            #expect((r.results["target_distance_samples"] as? Int ?? 0) >= 5)
            #expect((r.results["target_distance_error_max_m"] as? Double ?? 99) <= 1)
            #expect((r.results["target_arrow_error_max_deg"] as? Double ?? 99) <= 1)
            #expect(r.results["arrived"] as? Bool == true)
            #expect(r.results["next_due_plant_matches"] as? Bool == true)
            #expect(r.results["nearest_album_matches"] as? Bool == true)
            #expect(r.results["label_overlaps"] as? Int == 0)
            #expect((r.results["labels_at_16"] as? Int ?? 0) >= 4)
            #expect(r.results["labels_below_threshold"] as? Int == 0)
            #expect(r.results["ar_target_framed"] as? Bool == true)
            #expect(r.results["axe_serious_or_critical"] as? Int == 0)
            #expect(r.results["console_errors"] as? Int == 0)
            let shots = [
                "bar-390x844", "bar-320x568", "bar-320x568-sun", "bar-844x390", "bar-844x390-sun", "labels-16", "labels-bright", "labels-dark",
                "spot-390x844", "arrived-390x844", "ar-target", "ar-target-framed",
            ]
            for name in shots {
                let file = Self.artefacts.appendingPathComponent("mapnav-\(name).png")
                #expect(FileManager.default.fileExists(atPath: file.path), "no screenshot \(file.lastPathComponent)")
            }
            #expect(daemon.isRunning)
        }
    }
}
