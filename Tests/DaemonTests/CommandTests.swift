import Foundation
import IntegrationSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension Daemon {
    /// `treeline water`, `state` and `subscribe` against the daemon; a watering survives a restart,
    /// and the seq goes on from where it was.
    @Test func waterAndStateFromTheCommandLineSurviveARestart() async throws {
        try await withGPSD(log: walk) { feeder, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try await daemon.start()
            try await waitFor(within: 30) { feeder.served >= feeder.count }
            let (c, _) = try daemon.client()
            try await waitFor(within: 20) { (json(c.ask(#"{"cmd":"state"}"#))["seq"] as? NSNumber)?.int64Value == announcedSeqs + 28 }
            let state = try TreelineProcess.run(["state", "--socket", daemon.socket])
            let s = json(state.stdout.trimmingCharacters(in: .newlines))
            #expect(state.status == 0 && s["class"] as? String == "STATE", "\(state.stdout)")
            #expect((s["used"] as? NSNumber)?.intValue ?? 0 > 1000)
            #expect((s["last_fix"] as? [String: Any])?["time"] as? String == "2026-05-01T09:22:19.000Z", "\(s)")

            let watered = try TreelineProcess.run(["water", "plant-carvalho", "--socket", daemon.socket])
            let w = json(watered.stdout.trimmingCharacters(in: .newlines))
            #expect(watered.status == 0 && w["type"] as? String == "watered" && (w["seq"] as? NSNumber)?.int64Value == announcedSeqs + 29, "\(watered.stdout)")
            #expect(w["time"] as? String == "2026-05-01T09:22:19.000Z", "the time of the last fix")
            let album = try TreelineProcess.run(["water", "album-miradouro", "--socket", daemon.socket])
            #expect(album.status != 0)

            #expect(daemon.terminate()?.status == 0)
            try await daemon.start()
            let (again, hello) = try daemon.client()
            #expect((hello["seq"] as? NSNumber)?.int64Value == announcedSeqs + 29, "the seq goes on: \(hello)")
            let plant = (json(again.ask(#"{"cmd":"regions"}"#))["regions"] as? [[String: Any]] ?? []).first { $0["id"] as? String == "plant-carvalho" }
            #expect(plant?["last_watered"] as? String == "2026-05-01T09:22:19.000Z", "\(plant ?? [:])")
            let subscribed = try TreelineProcess(["subscribe", "--since", "\(announcedSeqs + 28)", "--count", "1", "--socket", daemon.socket])
            let lines = await subscribed.lines(count: 1, idle: 10)
            #expect(lines.count == 1 && json(lines.first)["type"] as? String == "watered")

            // Watered by mistake: taken back, the plant's watering from its file (20 April) is in
            // force again, and it is due, after a restart too; a second time is refused.
            let undone = try treeline(["water", "plant-carvalho", "--undo", "--socket", daemon.socket])
            let u = json(undone.stdout.trimmingCharacters(in: .newlines))
            #expect(undone.status == 0 && u["type"] as? String == "water_undone" && u["undone"] as? String == "2026-05-01T09:22:19.000Z", "\(undone.stdout) \(undone.stderr)")
            #expect(u["last_watered"] as? String == "2026-04-20T08:00:00.000Z", "\(u)")
            #expect(daemon.terminate()?.status == 0)
            try await daemon.start()
            let (after, _) = try daemon.client()
            let due = (json(after.ask(#"{"cmd":"regions"}"#))["regions"] as? [[String: Any]] ?? []).first { $0["id"] as? String == "plant-carvalho" }
            #expect(due?["due"] as? Bool == true && due?["last_watered"] as? String == "2026-04-20T08:00:00.000Z", "\(due ?? [:])")
            let twice = try treeline(["water", "plant-carvalho", "--undo", "--socket", daemon.socket])
            #expect(twice.status != 0 && twice.stderr.contains("was taken back already"), "\(twice.stderr)")

            // A plant added, watered, removed by mistake, restored: its id, name and watering come
            // back, after a restart too; restoring it again (it is in force) is refused.
            #expect(json(after.ask(#"{"cmd":"add_region","kind":"plant","id":"basil","name":"Basil","interval_days":3,"at":[40.1,-8.24]}"#))["type"] as? String == "region_added")
            let wateredBasil = json(after.ask(#"{"cmd":"water","plant":"basil"}"#))["time"] as? String
            #expect(try treeline(["regions", "remove", "basil", "--socket", daemon.socket]).status == 0)
            let restored = try treeline(["regions", "restore", "basil", "--socket", daemon.socket])
            #expect(restored.status == 0 && restored.stdout.hasPrefix("restored basil"), "\(restored.stdout) \(restored.stderr)")
            #expect(daemon.terminate()?.status == 0)
            try await daemon.start()
            let (back, _) = try daemon.client()
            let basil = (json(back.ask(#"{"cmd":"regions"}"#))["regions"] as? [[String: Any]] ?? []).first { $0["id"] as? String == "basil" }
            #expect(basil?["name"] as? String == "Basil" && basil?["last_watered"] as? String == wateredBasil && basil?["layer"] as? String == "user", "\(basil ?? [:])")
            #expect((json(back.ask(#"{"cmd":"restore_region","region":"basil"}"#))["message"] as? String)?.contains("is in force") == true)
        }
    }

    /// A second daemon on the same socket is refused while the first lives; after the first is
    /// SIGKILLed (its socket file left behind) the next one takes the path over.
    @Test func oneDaemonPerSocketAndAStaleFileIsReplaced() async throws {
        try await withGPSD(log: walk) { _, gpsd in
            let first = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { first.finish() }
            try await first.start()
            let second = Process()
            second.executableURL = TreelineProcess.daemon
            second.arguments = ["--config", first.config.path]
            let err = Pipe()
            second.standardError = err
            try second.run()
            second.waitUntilExit()
            let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(second.terminationStatus == 1)
            #expect(message.contains("another treelined is listening on \(first.socket)"), "\(message)")
            first.kill9()
            #expect(FileManager.default.fileExists(atPath: first.socket), "SIGKILL leaves the file")
            try await first.start()
            #expect(json(try first.client().0.ask(#"{"cmd":"state"}"#))["class"] as? String == "STATE")
        }
    }
}
