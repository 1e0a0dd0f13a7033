import Engine
import Foundation
import GPSD
import Logging
import Server
import ServiceLifecycle
import UnixSignals

/// systemd: WATCHDOG=1 with a fresh STATUS= while the engine answers; STOPPING=1 at shutdown.
struct SystemdService: Service {
    let notifier: SystemdNotifier
    let engine: Engine

    func run() async throws {
        guard let interval = notifier.watchdogInterval else {
            try? await gracefulShutdown()
            notifier.notify("STOPPING=1")
            return
        }
        while !Task.isShuttingDownGracefully {
            // Pinged only when the engine (an actor) answers: a stuck engine gets the service
            // restarted by systemd.
            // STATUS= goes with each ping, so `systemctl status` shows the counts of now, not
            // of the last reload or gpsd change.
            let status = await engine.heartbeat()
            notifier.notify("WATCHDOG=1\n" + SystemdNotifier.status(status))
            _ = try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
        notifier.notify("STOPPING=1")
    }
}
