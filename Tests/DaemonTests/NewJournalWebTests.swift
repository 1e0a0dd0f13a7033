import Foundation
import IntegrationSupport
import Testing

/// Both pages when the board comes back on a new journal (Tests/Browser/new_journal.py): each
/// time the script says RESTART (1 to 5), treelined is stopped, its database removed, and
/// started again. The map page's Events list becomes the new journal's, event for event, both
/// when the new journal's last seq is below what the page read and when it is already past it
/// (only the journal's name tells those apart), also for a page opened while STATE failed, which
/// takes its stream's name, and for that page reloaded while STATE fails, which starts on the list
/// and name it kept; a region added after that is drawn on the map,
/// and a plant is known to the AR view, each from its event.
extension InBrowser {
    @Test func aNewJournalsRegionEventsReachBothPages() async throws {
        try await withGPSD(log: walk) { feeder, gpsd in
            feeder.pause()  // no fix: the journals hold only what the script adds
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            let port = try serveWeb(daemon)
            try await daemon.start()
            let script = try BrowserScript("new_journal", arguments: webArguments(daemon, port: port))
            var restarts = 0
            for k in 1...5 {
                guard await script.waitFor("RESTART \(k)", timeout: 120) else { break }
                #expect(daemon.terminate()?.status == 0)
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: daemon.database + suffix) }
                try await daemon.start()
                restarts += 1
            }
            let r = await script.finish(timeout: 120)
            report("new_journal", r)
            #expect(r.status == 0, "\(r.stderr)\nlog: \(daemon.logText.suffix(3000))")
            #expect(restarts == 5)
            #expect(r.results["below_album_drawn"] as? Bool == true)
            #expect(r.results["past_album_drawn"] as? Bool == true)
            #expect(r.results["unnamed_album_drawn"] as? Bool == true)
            #expect(r.results["reloaded_album_drawn"] as? Bool == true)
            #expect(r.results["ar_plant_known"] as? Bool == true)
        }
    }
}
