#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Polygon rings thinned for a map at one zoom (Douglas–Peucker): a vertex is kept when leaving
/// it out would move the outline by more than `tolerance` pixels of a Web Mercator map (256 px
/// tiles) at that zoom. What comes out is still a ring: open (the closing vertex not repeated,
/// as `Shape` keeps rings), at least three vertices, only vertices of the ring given, in their
/// order. Longitudes are unwrapped along the ring, so a ring across the antimeridian is thinned
/// as the map draws it.
///
/// Pure, and allocation-light: one scratch buffer per call, reused across rings by `Scratch`.
public enum RingSimplifier {
    /// The highest zoom thinned for (a pixel is then about a centimetre at the equator).
    public static let maxZoom = 24

    /// The world's width in pixels at `zoom`.
    @inlinable
    public static func worldPixels(zoom: Int) -> Double { 256 * Double(1 << min(max(zoom, 0), maxZoom)) }

    /// The decimals of a degree that tell apart a tenth of a pixel at `zoom` (1 at zoom 0, 9
    /// at 24): more would be bytes the map cannot show.
    public static func decimals(zoom: Int) -> Int {
        let degreesPerTenth = 360 / worldPixels(zoom: zoom) / 10
        return min(9, max(1, Int((-log10(degreesPerTenth)).rounded(.up))))
    }

    /// Web Mercator x and y in pixels at `zoom`: x east, y north (the sign does not matter for
    /// distances). Latitudes are clamped to the projection's ±85.0511°.
    @inlinable
    static func project(lat: Double, lon: Double, scale: Double) -> (x: Double, y: Double) {
        let phi = min(max(lat, -85.0511287798), 85.0511287798) * Double.pi / 180
        return (lon / 360 * scale, log(tan(Double.pi / 4 + phi / 2)) / (2 * Double.pi) * scale)
    }

    /// Buffers kept between rings (projected points, the kept flags, the work stack).
    public struct Scratch {
        var xs: [Double] = []
        var ys: [Double] = []
        var keep: [Bool] = []
        var stack: [(Int32, Int32)] = []
        public init() {}
    }

    /// `ring` (open) thinned to `tolerance` pixels at `zoom`. A ring of three vertices or fewer
    /// comes back as it is.
    public static func simplify(_ ring: [Coordinate], zoom: Int, tolerance: Double = 1, scratch: inout Scratch) -> [Coordinate] {
        let n = ring.count
        guard n > 3, tolerance > 0, tolerance.isFinite else { return ring }
        let scale = worldPixels(zoom: zoom)
        scratch.xs.removeAll(keepingCapacity: true)
        scratch.ys.removeAll(keepingCapacity: true)
        var lastLon = ring[0].longitude, shift = 0.0
        for c in ring {
            // Unwrap: each longitude within 180° of the one before.
            var lon = c.longitude + shift
            while lon - lastLon > 180 { lon -= 360; shift -= 360 }
            while lon - lastLon < -180 { lon += 360; shift += 360 }
            lastLon = lon
            let p = project(lat: c.latitude, lon: lon, scale: scale)
            scratch.xs.append(p.x)
            scratch.ys.append(p.y)
        }
        // The ring closed by its first vertex again at index n; the farthest vertex from the
        // first splits it into two chains, each thinned on its own.
        scratch.xs.append(scratch.xs[0])
        scratch.ys.append(scratch.ys[0])
        scratch.keep.removeAll(keepingCapacity: true)
        scratch.keep.append(contentsOf: repeatElement(false, count: n + 1))
        var far = 1, farD = -1.0
        for i in 1..<n {
            let dx = scratch.xs[i] - scratch.xs[0], dy = scratch.ys[i] - scratch.ys[0]
            let d = dx * dx + dy * dy
            if d > farD { (far, farD) = (i, d) }
        }
        scratch.keep[0] = true
        scratch.keep[far] = true
        scratch.stack.removeAll(keepingCapacity: true)
        scratch.stack.append((0, Int32(far)))
        scratch.stack.append((Int32(far), Int32(n)))
        let t2 = tolerance * tolerance
        while let (a, b) = scratch.stack.popLast() {
            let (i, d2) = farthest(scratch.xs, scratch.ys, Int(a), Int(b))
            guard i >= 0, d2 > t2 else { continue }
            scratch.keep[i] = true
            scratch.stack.append((a, Int32(i)))
            scratch.stack.append((Int32(i), b))
        }
        var kept = 0
        for i in 0..<n where scratch.keep[i] { kept += 1 }
        if kept < 3 {
            // Thinner than a pixel: the triangle of the first vertex, the farthest, and the
            // vertex farthest from the line through them, so the ring stays a ring.
            var best = -1, bestD = -1.0
            for i in 1..<n where i != far {
                let d = lineDistance2(scratch.xs, scratch.ys, i, 0, far)
                if d > bestD { (best, bestD) = (i, d) }
            }
            if best >= 0 { scratch.keep[best] = true }
        }
        var out: [Coordinate] = []
        out.reserveCapacity(max(kept, 3))
        for i in 0..<n where scratch.keep[i] { out.append(ring[i]) }
        return out
    }

    /// Every ring of `shape` thinned for `zoom`; a circle as it is.
    public static func simplify(_ shape: Shape, zoom: Int, tolerance: Double = 1, scratch: inout Scratch) -> Shape {
        guard case let .polygons(parts) = shape else { return shape }
        var out: [[[Coordinate]]] = []
        out.reserveCapacity(parts.count)
        for rings in parts {
            var thinned: [[Coordinate]] = []
            thinned.reserveCapacity(rings.count)
            for ring in rings { thinned.append(simplify(Array(ring), zoom: zoom, tolerance: tolerance, scratch: &scratch)) }
            out.append(thinned)
        }
        return .polygons(Polygons(out))
    }

    /// The vertex strictly between `a` and `b` farthest from the segment a–b, and its squared
    /// distance; (-1, 0) when there is none.
    static func farthest(_ xs: [Double], _ ys: [Double], _ a: Int, _ b: Int) -> (Int, Double) {
        var best = -1, bestD = 0.0
        var i = a + 1
        while i < b {
            let d = segmentDistance2(xs, ys, i, a, b)
            if d > bestD { (best, bestD) = (i, d) }
            i += 1
        }
        return (best, bestD)
    }

    /// Squared distance from point `p` to the segment a–b.
    static func segmentDistance2(_ xs: [Double], _ ys: [Double], _ p: Int, _ a: Int, _ b: Int) -> Double {
        let ax = xs[a], ay = ys[a], dx = xs[b] - ax, dy = ys[b] - ay
        let px = xs[p] - ax, py = ys[p] - ay
        let len2 = dx * dx + dy * dy
        var t = len2 > 0 ? (px * dx + py * dy) / len2 : 0
        t = min(max(t, 0), 1)
        let ex = px - t * dx, ey = py - t * dy
        return ex * ex + ey * ey
    }

    /// Squared distance from point `p` to the line through a and b (a itself when they coincide).
    static func lineDistance2(_ xs: [Double], _ ys: [Double], _ p: Int, _ a: Int, _ b: Int) -> Double {
        let ax = xs[a], ay = ys[a], dx = xs[b] - ax, dy = ys[b] - ay
        let px = xs[p] - ax, py = ys[p] - ay
        let len2 = dx * dx + dy * dy
        guard len2 > 0 else { return px * px + py * py }
        let cross = px * dy - py * dx
        return cross * cross / len2
    }
}
