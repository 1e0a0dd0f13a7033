#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// The distinct positions reported within one epoch, without allocating.
///
/// Sentences stamped with the same time should describe the same place, and normally agree to
/// within rounding (a later, finer one refines the earlier: the later wins, as in gpsd). Some
/// multiplexers and firmwares stamp a sentence with the wrong second; then the epoch holds
/// places metres apart. The place most sentences agree on wins; on a tie, the latest, as in gpsd.
@usableFromInline
struct Places {
    @usableFromInline var p0 = Coordinate(latitude: 0, longitude: 0), p1 = Coordinate(latitude: 0, longitude: 0)
    @usableFromInline var p2 = Coordinate(latitude: 0, longitude: 0), p3 = Coordinate(latitude: 0, longitude: 0)
    @usableFromInline var n0 = 0, n1 = 0, n2 = 0, n3 = 0
    @usableFromInline var count = 0

    @inlinable init() {}

    /// Within this many metres two reports are the same place.
    @usableFromInline static let sameness = 1.0
    @usableFromInline static let metresPerDegree = 111_320.0

    @inlinable
    static func same(_ a: Coordinate, _ b: Coordinate) -> Bool {
        if a == b { return true }  // the usual case: RMC and GGA give the same digits
        let dy = (a.latitude - b.latitude) * metresPerDegree
        var dLon = abs(a.longitude - b.longitude)
        if dLon > 180 { dLon = 360 - dLon }
        let dx = dLon * metresPerDegree * cos(a.latitude * .pi / 180)
        return dx * dx + dy * dy <= sameness * sameness
    }

    @inlinable
    mutating func add(_ c: Coordinate) {
        if count > 0, Self.same(p0, c) { p0 = c; n0 += 1; return }
        if count > 1, Self.same(p1, c) { p1 = c; n1 += 1; return }
        if count > 2, Self.same(p2, c) { p2 = c; n2 += 1; return }
        if count > 3, Self.same(p3, c) { p3 = c; n3 += 1; return }
        switch count {
        case 0: p0 = c; n0 = 1
        case 1: p1 = c; n1 = 1
        case 2: p2 = c; n2 = 1
        case 3: p3 = c; n3 = 1
        default: return  // a fifth distinct place in one epoch: ignore it
        }
        count += 1
    }

    @inlinable
    var consensus: Coordinate? {
        guard count > 0 else { return nil }
        var best = p0, n = n0
        if count > 1, n1 >= n { best = p1; n = n1 }
        if count > 2, n2 >= n { best = p2; n = n2 }
        if count > 3, n3 >= n { best = p3 }
        return best
    }
}
