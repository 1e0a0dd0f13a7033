import GPSD
import Testing

/// The libgps this package links against is the one PITFALLS.md and the client assume.
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
