import Foundation
import GPSD
import Logging
import Server
import ServiceLifecycle
import UnixSignals

/// Monotonic clock, nanoseconds (the same clock in every process on the machine).
func monotonicNanos() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

/// gpsd's fixes into the engine, until shutdown.
struct FixService: Service {
    let client: GPSDClient
    let engine: Engine

    func run() async throws {
        // Graceful shutdown stops the client's reader, which hands over the fix it holds (the
        // last position before a stop is the one that matters) and ends the stream.
        let stop = GPSDStop()
        await withGracefulShutdownHandler {
            for await update in client.updates(until: stop) {
                switch update {
                case .fix(let fix): await engine.process(fix, receivedNanos: monotonicNanos())
                case .status(let s): await engine.gpsd(s)
                }
            }
        } onGracefulShutdown: {
            stop.stop()
        }
    }
}

/// The socket: serves until shutdown, then stops accepting and closes.
struct SocketService: Service {
    let server: SocketServer

    func run() async throws {
        try? await gracefulShutdown()
        await server.close()
    }
}

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

/// SIGHUP: reload the config file and the regions; on any error the old ones stay. Says `ready`
/// once SIGHUP is trapped (systemd may send it from then on).
struct ReloadService: Service {
    let ready: @Sendable () async -> Void
    let reload: @Sendable () async -> Void

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        await ready()
        for await _ in signals.cancelOnGracefulShutdown() {
            await reload()
        }
    }
}
