/// An axis-aligned box in SVG pixels (y down).
struct Rect: Sendable, Equatable {
    var x: Double
    var y: Double
    var w: Double
    var h: Double

    var maxX: Double { x + w }
    var maxY: Double { y + h }

    /// Area shared with `o`, 0 when they only touch.
    func overlap(_ o: Rect) -> Double {
        let dx = min(maxX, o.maxX) - max(x, o.x)
        let dy = min(maxY, o.maxY) - max(y, o.y)
        return dx > 0 && dy > 0 ? dx * dy : 0
    }

    func contains(_ o: Rect) -> Bool { o.x >= x && o.y >= y && o.maxX <= maxX && o.maxY <= maxY }

    /// The point of the box nearest to (px, py).
    func nearest(_ px: Double, _ py: Double) -> (x: Double, y: Double) {
        (min(max(px, x), maxX), min(max(py, y), maxY))
    }
}
