import Geo
import Regions

/// `regions`: a regions file parsed (as geometry only, then in full); when it parses, a RegionSet
/// is built and queried at points drawn from the input's hash: near its fences' vertices and
/// centres, on the poles and the antimeridian, and anywhere. No trap, and what RegionSet's
/// documentation promises:
/// - `containing(c)` lists exactly the regions `contains(i, c)` accepts (index vs direct test);
/// - `signedDistance` is never NaN;
/// - `forEachNear(c, within: m)` visits each region at most once, with its signed distance, and
///   leaves out none whose boundary is nearer than `m`;
/// - `nearestBoundary(c)` is at least as near as every region's boundary.
public enum RegionsFuzz {
    public static func check(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        _ = try? RegionFile.parse(bytes, file: "fuzz.geojson", requirements: .geometryOnly)
        guard let regions = try? RegionFile.parse(bytes, file: "fuzz.geojson") else { return }
        query(RegionSet(regions), seed: fnv1a(input))
    }

    /// Queries `set` at points drawn from `seed`; shared with the monitor target.
    static func query(_ set: RegionSet, seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var points = [Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 90, longitude: 180),
                      Coordinate(latitude: -90, longitude: -180), Coordinate(latitude: 12.5, longitude: 180)]
        for region in set.regions.prefix(8) {
            let anchors: [Coordinate]
            switch region.shape {
            case let .circle(center, _): anchors = [center]
            case let .polygons(parts): anchors = Array(parts.joined().joined().prefix(6))
            }
            guard let a = anchors.isEmpty ? nil : anchors[random.below(anchors.count)] else { continue }
            points.append(a)
            let d = [1e-6, 1e-4, 1e-2, 1.0][random.below(4)]
            points.append(clamped(a.latitude + random.double(-d, d), a.longitude + random.double(-d, d)))
        }
        points.append(clamped(random.double(-90, 90), random.double(-180, 180)))
        let n = min(set.count, 32)  // the brute-force comparisons are O(regions) a point
        for c in points {
            let inside = set.containing(c)
            if set.count <= 32 {
                let direct = (0..<n).filter { set.contains($0, c) }
                if inside != direct { fuzzFailure("containing(\(c)) = \(inside), contains(i, c) holds for \(direct)") }
            }
            var distances: [Double] = []
            for i in 0..<n {
                let d = set.signedDistance(i, c)
                if d.isNaN { fuzzFailure("signedDistance(\(i), \(c)) is NaN") }
                distances.append(d)
            }
            for metres in [0.0, 25, 5_000, 2_000_000] {
                var seen = Set<Int>()
                set.forEachNear(c, within: metres) { i, d in
                    guard seen.insert(i).inserted else { fuzzFailure("forEachNear(\(c), \(metres)) visits region \(i) twice") }
                    if i < n, !(d == distances[i] || abs(d - distances[i]) <= 1e-6 * max(1, abs(d))) {
                        fuzzFailure("forEachNear(\(c), \(metres)) gives region \(i) distance \(d), signedDistance \(distances[i])")
                    }
                }
                if set.count <= 32 {
                    for (i, d) in distances.enumerated() where abs(d) < metres * (1 - 1e-9) - 1e-3 && !seen.contains(i) {
                        fuzzFailure("forEachNear(\(c), within: \(metres)) leaves out region \(i) at \(d) m")
                    }
                }
            }
            if let nearest = set.nearestBoundary(c) {
                guard (0..<set.count).contains(nearest.index), !nearest.signedDistance.isNaN else {
                    fuzzFailure("nearestBoundary(\(c)) = \(nearest)")
                }
                if set.count <= 32, let best = distances.map(abs).min(), abs(nearest.signedDistance) > best * (1 + 1e-9) + 1e-3 {
                    fuzzFailure("nearestBoundary(\(c)) = \(nearest), but a boundary is \(best) m away")
                }
            } else if set.count > 0 {
                fuzzFailure("nearestBoundary(\(c)) = nil with \(set.count) regions")
            }
        }
    }

    static func clamped(_ lat: Double, _ lon: Double) -> Coordinate {
        var lon = lon
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return Coordinate(latitude: max(-90, min(90, lat)), longitude: max(-180, min(180, lon)))
    }
}
