#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// Axis-aligned planar box.
struct PlanarBox {
    var minX, minY, maxX, maxY: Double

    static let empty = PlanarBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)

    var isEmpty: Bool { !(minX <= maxX && minY <= maxY) }

    mutating func add(_ p: Planar) {
        minX = min(minX, p.x)
        minY = min(minY, p.y)
        maxX = max(maxX, p.x)
        maxY = max(maxY, p.y)
    }

    func grown(_ d: Double) -> PlanarBox { PlanarBox(minX: minX - d, minY: minY - d, maxX: maxX + d, maxY: maxY + d) }

    func union(_ o: PlanarBox) -> PlanarBox {
        PlanarBox(minX: min(minX, o.minX), minY: min(minY, o.minY), maxX: max(maxX, o.maxX), maxY: max(maxY, o.maxY))
    }

    func intersection(_ o: PlanarBox) -> PlanarBox {
        PlanarBox(minX: max(minX, o.minX), minY: max(minY, o.minY), maxX: min(maxX, o.maxX), maxY: min(maxY, o.maxY))
    }

    func intersects(_ o: PlanarBox) -> Bool { minX <= o.maxX && o.minX <= maxX && minY <= o.maxY && o.minY <= maxY }

    func contains(_ p: Planar) -> Bool { p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY }

    var width: Double { maxX - minX }
    var height: Double { maxY - minY }
}
