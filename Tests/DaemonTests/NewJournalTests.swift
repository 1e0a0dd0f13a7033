import Foundation
import IntegrationSupport
import Testing

extension Daemon {
    /// `treeline subscribe --since 0` while the board is restarted on a removed database, the
    /// new journal soon past the old one's seq: the subscriber stops and says so (it sent the
    /// journal's name with its resume), rather than reading the new journal on from the old seq
    /// as if it were the one it had printed.
    @Test func aSubscriberStopsWhenTheBoardComesBackOnAnotherJournal() async throws {
        try await withGPSD(log: walk) { feeder, gpsd in
            feeder.pause()
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try await daemon.start()
            let subscriber = try TreelineProcess(["subscribe", "--since", "0", "--socket", daemon.socket])
            #expect(await subscriber.lines(count: 1, idle: 5).count == 1, "the old journal's base_layer record")
            #expect(daemon.terminate()?.status == 0)
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: daemon.database + suffix) }
            try await daemon.start()
            let (c, _) = try daemon.client()
            for k in 0..<3 {
                let added = c.ask(#"{"cmd":"add_region","kind":"album","name":"New journal \#(k)","at":[40.1,-8.2]}"#)
                #expect(added?.contains(#""type":"region_added""#) == true, "\(added ?? "no answer")")
            }
            try await waitFor(within: 30) { !subscriber.isRunning }
            let stderr = subscriber.interrupt()
            #expect(subscriber.status != 0)
            #expect(stderr.contains("is not this board's") && stderr.contains("this journal is not the one you read before"), "\(stderr)")
            #expect(await subscriber.lines(count: 2, idle: 0.5).count == 1, "nothing of the new journal printed as the old one's")
        }
    }
}
