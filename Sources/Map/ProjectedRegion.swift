#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo
import Rules

/// A fence projected to local metres.
struct ProjectedRegion {
    enum Geometry {
        case circle(center: Planar, radius: Double)
        /// Polygons, each an outer ring followed by holes.
        case polygons([[[Planar]]])
    }

    var index: Int
    var geometry: Geometry
    var box: MetreBox
    /// Area in m² (outer rings less holes), used to draw large fences below small ones.
    var area: Double
}
