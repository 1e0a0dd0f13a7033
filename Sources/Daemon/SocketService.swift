import Foundation
import GPSD
import Logging
import Server
import ServiceLifecycle
import UnixSignals

/// The socket: serves until shutdown, then stops accepting and closes.
struct SocketService: Service {
    let server: SocketServer

    func run() async throws {
        try? await gracefulShutdown()
        await server.close()
    }
}
