#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// Counts of the decoded sentence types, as plain stored integers for the hot path.
@usableFromInline
struct DecodedCounts {
    @usableFromInline var rmc = 0, gga = 0, gll = 0, vtg = 0, gsa = 0, gns = 0, zda = 0, gst = 0
    @usableFromInline init() {}
    var byType: [(SentenceType, Int)] {
        [(.rmc, rmc), (.gga, gga), (.gll, gll), (.vtg, vtg), (.gsa, gsa), (.gns, gns), (.zda, zda), (.gst, gst)]
    }
}
