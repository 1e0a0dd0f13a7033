import Foundation
import GPSD
import Logging
import Server
import ServiceLifecycle
import UnixSignals

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
