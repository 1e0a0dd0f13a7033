#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// Candidates for `plan` once random attempts fail: grid points over the disc and points on
/// spacing circles, nearest the first tree first (circle points before grid points). A candidate
/// found taken is dropped for good: trees are only ever added.
struct FallbackScan {
    struct Candidate {
        var onCircle: Bool
        var distance2: Double
        var order: Int32
        var q: Planar
    }

    let center: Planar
    let reach: Double
    let step: Double
    let ringRadius: Double
    private var heap = MinHeap<Candidate> { a, b in
        (a.onCircle ? 0 : 1, a.distance2, a.order) < (b.onCircle ? 0 : 1, b.distance2, b.order)
    }
    private var order: Int32 = 0

    init(center: Planar, reach: Double, step: Double, ringRadius: Double) {
        self.center = center
        self.reach = reach
        self.step = step
        self.ringRadius = ringRadius
    }

    private mutating func push(_ q: Planar, onCircle: Bool) {
        let dx = q.x - center.x, dy = q.y - center.y
        heap.push(Candidate(onCircle: onCircle, distance2: dx * dx + dy * dy, order: order, q: q))
        order &+= 1
    }

    mutating func addGrid(admits: (Planar) -> Bool) {
        let n = Int((reach / step).rounded(.down))
        for j in -n...n {
            for i in -n...n {
                let q = Planar(x: center.x + Double(i) * step, y: center.y + Double(j) * step)
                if admits(q) { push(q, onCircle: false) }
            }
        }
    }

    mutating func addRing(around p: Planar, admits: (Planar) -> Bool) {
        let dx = p.x - center.x, dy = p.y - center.y
        guard (dx * dx + dy * dy).squareRoot() <= reach + ringRadius else { return }
        let m = max(8, Int((2 * Double.pi * ringRadius / step).rounded(.up)))
        for k in 0..<m {
            let a = 2 * Double.pi * Double(k) / Double(m)
            let q = Planar(x: p.x + ringRadius * cos(a), y: p.y + ringRadius * sin(a))
            if admits(q) { push(q, onCircle: true) }
        }
    }

    /// The best candidate still free.
    mutating func next(isFree: (Planar) -> Bool) -> Planar? {
        while let c = heap.pop() {
            if isFree(c.q) { return c.q }
        }
        return nil
    }
}
