import Geo
import JSON
/// Reads one feature's geometry from the parsed document: positions transformed to WGS84 and
/// range-checked, rings closed and freed of repeated positions. A problem is a message naming
/// the place ("Polygon hole 2, position 7: …").
struct GeometryReader {
    let doc: JSONDocument
    let transform: CRSTransform?
    let crs: String?

    struct Problem: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// One position, transformed and range-checked. The place is worded only for a problem: a
    /// file of 100,000 fences has millions of positions, and naming each cost a string apiece.
    func point(_ index: Int, _ numbers: Int, where place: @autoclosure () -> String) throws(Problem) -> Coordinate {
        guard numbers == 2 || numbers == 3 else {
            throw Problem("\(place()): a position needs 2 or 3 numbers, this one has \(numbers)")
        }
        let (x, y) = doc.position(index)
        if let transform {
            guard let c = transform.toWGS84(x: x, y: y) else {
                throw Problem("\(place()): (\(x), \(y)) cannot be transformed from \(crs ?? "the file's CRS") to WGS84")
            }
            return c
        }
        guard abs(x) <= 180, abs(y) <= 90 else {
            throw Problem("\(place()): coordinates out of range (longitude \(x), latitude \(y); longitude comes first, within ±180, latitude within ±90)")
        }
        return Coordinate(latitude: y, longitude: x)
    }

    /// A closed ring of at least 3 distinct positions; repeated consecutive positions (common in
    /// GPS exports) are dropped, and so is the closing one.
    func ring(_ t: CoordinateTree, where place: String) throws(Problem) -> [Coordinate] {
        guard case let .positions(start, count, badPosition) = t else { throw Problem("\(place) is not an array of positions") }
        if let b = badPosition { throw Problem("\(place), position \(b): a position needs 2 or 3 numbers") }
        var pts: [Coordinate] = []
        pts.reserveCapacity(count)
        for k in 0..<count { pts.append(try point(start + k, 2, where: "\(place), position \(k + 1)")) }
        guard count >= 4 else {
            throw Problem("\(place) has \(count) positions; a ring needs at least 4 (the last repeating the first)")
        }
        let (x0, y0) = doc.position(start), (x1, y1) = doc.position(start + count - 1)
        guard x0 == x1, y0 == y1 else { throw Problem("\(place) is not closed: its last position must repeat the first") }
        var distinct: [Coordinate] = []
        distinct.reserveCapacity(pts.count)
        for c in pts where distinct.last != c { distinct.append(c) }
        while distinct.count > 1, distinct.last == distinct.first { distinct.removeLast() }
        guard distinct.count >= 3 else {
            throw Problem("\(place) has only \(distinct.count) distinct position\(distinct.count == 1 ? "" : "s"); a ring needs at least 3")
        }
        return distinct
    }

    /// The outer ring, then the holes; every ring's problem is reported, not just the first.
    func polygon(_ t: CoordinateTree, where place: String, problems: inout [String]) -> [[Coordinate]]? {
        guard case let .list(rings) = t, !rings.isEmpty else {
            problems.append("\(place) must be an array of rings (outer ring, then holes)")
            return nil
        }
        var out: [[Coordinate]] = []
        for (k, r) in rings.enumerated() {
            do { out.append(try ring(r, where: k == 0 ? "\(place) outer ring" : "\(place) hole \(k)")) } catch { problems.append(error.message) }
        }
        return out.count == rings.count ? out : nil
    }
}
