#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// Whether a planar point may hold a tree: inside the area by at least the margin. A class, so
/// that closures and the filler share it instead of copying the region set it holds.
final class Admission {
    /// Polygons' rings (none for a circle).
    let area: PlanarArea
    /// Circles: the radius; 0 for polygons.
    let radius: Double
    let margin: Double
    let context: AreaContext

    init(area: PlanarArea, radius: Double, margin: Double, context: AreaContext) {
        self.area = area
        self.radius = radius
        self.margin = margin
        self.context = context
    }

    func admits(_ q: Planar) -> Bool {
        let tolerance = AreaContext.tolerance
        if radius > 0 {
            // A circle: the plane's distance from the centre is at most the geodesic one.
            let d = radius - (q.x * q.x + q.y * q.y).squareRoot()
            if d < margin { return false }
            if d >= margin + tolerance + radius * radius * radius / (6_000_000.0 * 6_000_000.0) { return true }
            return authority(q)
        }
        switch area.state(q) {
        case .outside: return false
        case .inside: return true
        case .mixed:
            guard area.contains(q) else { return false }
            let d = area.nearEdgeDistance(q)
            if d >= margin + tolerance { return true }
            if d < margin - tolerance { return false }
            return authority(q)
        }
    }

    /// False only where `admits` is surely false, from one cell look-up.
    func mayAdmit(_ q: Planar) -> Bool { radius > 0 || area.state(q) != .outside }

    /// The region set's own answer.
    func authority(_ q: Planar) -> Bool {
        let c = context.frame.coordinate(q)
        return context.regions.contains(context.index, c) && context.regions.signedDistance(context.index, c) >= margin
    }
}
