import Geo

/// What a fleet's regions (`treeline/fleet/regions`) may hold: every board parses the message and
/// keeps what it holds, so a client that may publish there must not be able to make a board
/// parse or keep without bound. A message over a limit is refused with the limit named, and the
/// fleet's regions in force stay.
struct FleetRegionLimits: Equatable {
    /// The message, in bytes (checked before it is parsed).
    var bytes = 8 << 20
    var features = 10_000
    /// Rings of one polygon (its outer ring and its holes), vertices per ring and in all: as a
    /// command's (`GeometryLimits`).
    var ringsPerPolygon = GeometryLimits.standard.ringsPerPolygon
    var verticesPerRing = GeometryLimits.standard.verticesPerRing
    var vertices = GeometryLimits.standard.vertices

    static let standard = FleetRegionLimits()

    /// Why a message of `count` bytes is refused, if it is.
    func problem(bytes count: Int) -> String? {
        count > bytes ? "the message is \(count) bytes, over the limit of \(bytes) bytes (\(bytes >> 20) MiB)" : nil
    }

    /// Why these regions are refused, if they are: the first limit they go over.
    func problem(_ regions: [Region]) -> String? {
        if regions.count > features { return "\(regions.count) features, over the limit of \(features)" }
        var total = 0
        for r in regions {
            guard case .polygons(let polygons) = r.shape else { continue }
            for polygon in polygons {
                if polygon.count > ringsPerPolygon {
                    return "region \(TextExcerpt.short(r.id)): a polygon of \(polygon.count) rings, over the limit of \(ringsPerPolygon) rings per polygon"
                }
                for ring in polygon {
                    if ring.count > verticesPerRing {
                        return "region \(TextExcerpt.short(r.id)): a ring of \(ring.count) vertices, over the limit of \(verticesPerRing) vertices per ring"
                    }
                    total += ring.count
                }
            }
            if total > vertices { return "over \(vertices) vertices in all, the limit for the fleet's regions" }
        }
        return nil
    }
}
