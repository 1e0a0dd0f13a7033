@testable import GPSD
import IntegrationSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The libgps this package links against is the one the client is written for (gpsd 3.22, Debian 12).
@Suite struct LibGPSLinkage {
    @Test func apiVersionIsGpsd322s() {
        #expect(LibGPS.apiMajor == 11, "gpsd 3.22 (Debian 12) has GPSD_API_MAJOR_VERSION 11")
    }

    @Test func gpsDataSizeIsWhatTheClientAllocates() {
        #expect(LibGPS.dataSize == 24_496)
    }

    @Test func errorStringsComeFromLibgps() {
        // gps_open reports failures as negative codes; -1 is NL_NOSERVICE ("can't get service entry").
        let message = LibGPS.errorString(-1)
        #expect(!message.isEmpty)
        #expect(message != LibGPS.errorString(-2))
    }
}

/// libgps writes to gpsd with write(2); a gpsd that has just gone raises SIGPIPE, which would end
/// the process (the daemon, `treeline watch`). Once a session has tried to connect, the process
/// ignores SIGPIPE.
@Suite struct BrokenPipe {
    @Test func aSessionLeavesSIGPIPEIgnored() {
        let session = GPSDSession()
        #expect(throws: GPSDError.self) { try session.open(host: "127.0.0.1", port: NMEAFeeder.freePort()) }
        var current = sigaction()
        sigaction(SIGPIPE, nil, &current)
        #expect(unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self))
    }
}
