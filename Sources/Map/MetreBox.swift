import Geo

/// A box in local metres (x east, y north).
struct MetreBox: Sendable, Equatable {
    var minX = Double.infinity, minY = Double.infinity
    var maxX = -Double.infinity, maxY = -Double.infinity

    var isEmpty: Bool { !(minX <= maxX && minY <= maxY) }
    var width: Double { isEmpty ? 0 : maxX - minX }
    var height: Double { isEmpty ? 0 : maxY - minY }

    mutating func add(_ x: Double, _ y: Double) {
        guard x.isFinite, y.isFinite else { return }
        minX = min(minX, x); maxX = max(maxX, x)
        minY = min(minY, y); maxY = max(maxY, y)
    }

    mutating func add(_ p: Planar) { add(p.x, p.y) }

    mutating func add(_ b: MetreBox) {
        guard !b.isEmpty else { return }
        add(b.minX, b.minY)
        add(b.maxX, b.maxY)
    }

    func expanded(by m: Double) -> MetreBox {
        isEmpty ? self : MetreBox(minX: minX - m, minY: minY - m, maxX: maxX + m, maxY: maxY + m)
    }

    func intersects(_ o: MetreBox) -> Bool {
        !isEmpty && !o.isEmpty && minX <= o.maxX && o.minX <= maxX && minY <= o.maxY && o.minY <= maxY
    }

    func intersection(_ o: MetreBox) -> MetreBox {
        let b = MetreBox(minX: max(minX, o.minX), minY: max(minY, o.minY), maxX: min(maxX, o.maxX), maxY: min(maxY, o.maxY))
        return b.isEmpty ? MetreBox() : b
    }
}
