import Foundation
import IntegrationSupport
import Testing

/// The page with the board out of reach (Tests/Browser/offline.py), in Debian's chromium while
/// gpsd is fed the walk (fast up to the album, then at the page's pace): its service worker registers and chromium finds it installable; with
/// treelined stopped (inside an album and an area) the page loads from the cache with the regions
/// it last got, and Water, Add plant here, Capture with a photo and Plant here wait in its queue;
/// once treelined is started again each is recorded exactly once (one `watered`, one
/// `region_added`, one capture with its photo, one tree), the plant where the board last was;
/// sent again with the same Idempotency-Key each gets its first answer and nothing is recorded.
/// Screenshots in out/web/offline-*.png.
extension InBrowser {
    @Test func actionsDoneOutOfReachAreRecordedOnceWhenTheBoardAnswers() async throws {
        try await withGPSD(log: walk, linesPerTick: 2, tick: 0.1) { feeder, gpsd in
            feeder.pause()
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            let port = try serveWeb(daemon)
            try await daemon.start()
            let script = try BrowserScript("offline", arguments: webArguments(daemon, port: port) + ["--shots", Self.artefacts.path])
            #expect(await script.waitFor("READY", timeout: 120))
            // What the page needs of the walk starts in the album (entered at 09:07:13, left at
            // 09:11:25): fed at 400 lines a second to 10 fixes inside, at the page's pace from
            // there, and held 10 fixes before the exit: whenever the script says PAUSE, the board
            // is inside (START's resume lifts the hold).
            let lines = try NMEAFeeder.servedLines(walk)
            let entered = try #require(lines.firstIndex { $0.hasPrefix("$GPRMC,090713") }, "the walk enters the album at 09:07:13")
            let left = try #require(lines.firstIndex { $0.hasPrefix("$GPRMC,091125") }, "the walk leaves the album at 09:11:25")
            let inside = entered + 40
            feeder.pace(linesPerTick: 40)
            feeder.resume(until: inside)
            let deadline = ContinuousClock.now + .seconds(60)
            while feeder.served < inside, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            try #require(feeder.served == inside, "the walk fed to the album")
            feeder.pace(linesPerTick: 2)
            feeder.resume(until: left - 40)
            // The board's last fix stays put from PAUSE to START: "here" is where it stopped.
            // Started again, it needs fixes to tell its time (an action's ago_s waits for one).
            if await script.waitFor("PAUSE", timeout: 400) { feeder.pause() }
            if await script.waitFor("STOP", timeout: 60) {
                #expect(daemon.terminate()?.status == 0)
                if await script.waitFor("START", timeout: 240) {
                    try await daemon.start()
                    feeder.resume()
                }
            }
            let r = await script.finish(timeout: 600)
            report("offline", r)
            #expect(r.status == 0, "\(r.stderr)\nlog: \(daemon.logText.suffix(3000))")
            #expect(r.results["service_worker"] as? String == "ready")
            #expect(r.results["installability_errors"] as? Int == 0)
            #expect((r.results["regions_drawn_offline"] as? Int ?? 0) >= (r.results["regions_drawn_online"] as? Int ?? 1))
            #expect(r.results["queued_shown"] as? Int == 4)
            #expect(r.results["waterings_recorded"] as? Int == 1)
            #expect(r.results["plants_added"] as? Int == 1)
            #expect(r.results["captures_recorded"] as? Int == 1)
            #expect(r.results["trees_planted"] as? Int == 1)
            #expect((r.results["placed_off_m"] as? Double ?? 99) <= 1)
            #expect(r.results["repeats_equal"] as? Int == 4)
            #expect(r.results["journal_grew_on_repeat"] as? Int == 0)
            #expect(r.results["race_waterings"] as? Int == 1)
            #expect(r.results["key_on_another_request"] as? String == "plant-medronheiro", "the same key on another request runs it")
            #expect(r.results["axe_serious_or_critical"] as? Int == 0)
            #expect(r.results["console_errors"] as? Int == 0)
            #expect(daemon.isRunning)
        }
    }
}
