import Geo
import JSON
import Regions

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

    /// Why a message is refused before its regions are built, if it is: its features and their
    /// geometry counted on the parsed JSON (a 100,001-vertex ring was built and checked, 2.5 s of
    /// the bridge's loop, before it was refused). A message that is not JSON is left to the
    /// regions file's reader, which says where.
    func problem(document payload: [UInt8]) -> String? {
        guard let doc = try? JSONDocument.parse(payload), case .array(let list)? = doc.root["features"] else { return nil }
        if list.count > features { return "\(list.count) features, over the limit of \(features)" }
        let geometry = GeometryLimits(ringsPerPolygon: ringsPerPolygon, verticesPerRing: verticesPerRing, vertices: vertices)
        var counted = 0
        for (k, feature) in list.enumerated() {
            if let problem = geometry.problem(feature: feature, counted: &counted) {
                return "feature \(k)\(feature["properties"]?["id"]?.string.map { " (region \(TextExcerpt.short($0)))" } ?? ""): \(problem)"
            }
        }
        return nil
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
