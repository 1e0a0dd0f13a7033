import Geo
import JSON
/// What one request may ask the daemon to build and check: rings per polygon and vertices, counted
/// on the parsed JSON before any ring is built or checked. A polygon's holes are checked against
/// each other, so a thousand holes are half a million pairs: sent in one 60 KiB line, that held
/// the engine (and every client) for seconds. A regions file read by a reload is built off the
/// engine and is not limited here; a command (`add_region`, `add_regions`) and the fleet's regions are.
public struct GeometryLimits: Sendable, Equatable {
    /// Rings of one polygon: its outer ring and its holes.
    public var ringsPerPolygon = 64
    public var verticesPerRing = 100_000
    /// Vertices of every feature of one request together.
    public var vertices = 1_000_000

    public static let standard = GeometryLimits()

    public init(ringsPerPolygon: Int = 64, verticesPerRing: Int = 100_000, vertices: Int = 1_000_000) {
        self.ringsPerPolygon = ringsPerPolygon
        self.verticesPerRing = verticesPerRing
        self.vertices = vertices
    }

    /// Why a Feature's geometry goes over a limit, nil when it does not; `counted` adds its
    /// vertices to those of the features before it in the same request.
    public func problem(feature: JSONValue, counted: inout Int) -> String? {
        guard case .coordinates(let tree)? = feature["geometry"]?["coordinates"] else { return nil }
        return problem(tree, counted: &counted)
    }

    func problem(_ tree: CoordinateTree, counted: inout Int) -> String? {
        switch tree {
        case .position:
            counted += 1
        case .positions(_, let count, _):
            // A ring's vertices, as its region keeps them: its closing position repeats the first.
            let vertices = max(count - 1, 1)
            if vertices > verticesPerRing { return "a ring of \(vertices) vertices, over the limit of \(verticesPerRing) vertices per ring" }
            counted += vertices
        case .list(let children):
            // A polygon: a list of rings (each a list of positions).
            if children.allSatisfy({ if case .positions = $0 { true } else { false } }), children.count > ringsPerPolygon {
                return "a polygon of \(children.count) rings, over the limit of \(ringsPerPolygon) rings per polygon (its outer ring and \(ringsPerPolygon - 1) holes)"
            }
            for child in children {
                if let problem = problem(child, counted: &counted) { return problem }
            }
        }
        return counted > vertices ? "over \(vertices) vertices in all" : nil
    }
}
