import Engine
import Foundation
import GPSD
import Logging
import Server
import ServiceLifecycle
import UnixSignals

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
