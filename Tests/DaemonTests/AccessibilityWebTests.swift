import Foundation
import IntegrationSupport
import Testing

/// The web app against WCAG 2.2 AA (Tests/Browser/a11y.py): axe-core 4.9 (selenium-axe-python's
/// bundle) on every view (Map, Plants, Albums, Planting, Events) and on the AR view with its
/// boxes drawn, at 360×740, 320×568 and 844×390, in the normal and the sun theme, while gpsd is
/// fed the walk: no serious or critical violation, every visible interactive element at least
/// 44×44 px, no text cut by its box nor out of the screen, AR boxes whole at three headings, the
/// stale-position banner, a lost session, Water's and Remove's undo, the plant form's species.
/// Screenshots in out/web/a11y-<view>-<size>[-sun].png.
extension InBrowser {
    @Test func theAccessibilityWebAuditFindsNothingAtAnySizeOrTheme() async throws {
        let arguments: @Sendable (Int) -> [String] = { ["--gpsd-port", String($0), "--shots", Self.artefacts.path, "--last-fix", walkLastFix] }
        try await walkWith("a11y", linesPerTick: 10, tick: 0.1, timeout: 900, arguments: arguments) { r, daemon in
            #expect(r.results["axe_serious_or_critical"] as? Int == 0)
            #expect((r.results["axe_pages"] as? Int ?? 0) == 38)
            #expect(r.results["small_targets"] as? Int == 0)
            #expect(r.results["overflowing_text"] as? Int == 0)
            #expect(r.results["ar_boxes_cut"] as? Int == 0)
            #expect((r.results["ar_boxes_checked"] as? Int ?? 0) >= 6)
            #expect(r.results["console_errors"] as? Int == 0)
            #expect(r.results["water_undone"] as? String != nil, "Water's undo from the page")
            #expect(r.results["remove_undone"] as? String != nil, "Remove's undo from the page")
            #expect((r.results["species_offered"] as? Int ?? 0) > 0, "the plant form's species pick-list")
            #expect(r.results["thumbnail"] as? String != nil, "an album's thumbnail loaded")
            for view in ["map", "plants", "albums", "planting", "events", "ar"] {
                for size in ["360x740", "320x568", "844x390"] {
                    for theme in ["", "-sun"] {
                        let file = Self.artefacts.appendingPathComponent("a11y-\(view)-\(size)\(theme).png")
                        #expect(FileManager.default.fileExists(atPath: file.path), "no screenshot \(file.lastPathComponent)")
                    }
                }
            }
            #expect(daemon.isRunning)
        }
    }
}
