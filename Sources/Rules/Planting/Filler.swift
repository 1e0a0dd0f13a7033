#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// One group of parts being filled.
struct Filler {
    let admission: Admission
    let box: PlanarBox
    let minDistance: Double
    let ringRadius: Double
    let step: Double
    var grid: TreeGrid
    /// Trees placed, in order.
    private(set) var placed: [Planar] = []
    /// Indices in the grid's points whose circles are still to be walked.
    private var queue: [Int] = []
    /// Recorded trees in the grid.
    private var recorded = 0
    /// The tree that last ruled a candidate out: the next candidate, beside it, is often ruled
    /// out by the same one, which is one distance to check instead of a search.
    private var lastBlocker = -1

    init(admission: Admission, box: PlanarBox, minDistance: Double, step: Double) {
        self.admission = admission
        self.box = box
        self.minDistance = minDistance
        ringRadius = PlantingPlanner.ringRadius(minDistance)
        self.step = step
        grid = TreeGrid(box: box.grown(minDistance), minDistance: minDistance)
    }

    mutating func record(_ q: Planar) {
        queue.append(grid.insert(q))
        recorded += 1
    }

    @discardableResult
    mutating func place(_ q: Planar) -> Bool {
        guard box.contains(q), admission.mayAdmit(q) else { return false }
        if lastBlocker >= 0, grid.blocks(lastBlocker, q) { return false }
        let b = grid.blocker(q)
        if b >= 0 {
            lastBlocker = b
            return false
        }
        guard admission.admits(q) else { return false }
        insert(q)
        return true
    }

    private mutating func insert(_ q: Planar) {
        queue.append(grid.insert(q))
        placed.append(q)
    }

    /// The triangular lattice (of the 12 tried) with the most points that fit.
    mutating func lattice(edgeAngle: Double, rng: inout PlannerRandom) {
        let side = ringRadius
        var best: (count: Int, angle: Double, origin: Planar)?
        let admission = admission, grid = grid, anyRecorded = recorded > 0
        for trial in 0..<12 {
            let angle = edgeAngle + Double(trial % 4) * .pi / 12
            let origin = Planar(x: box.minX + rng.unit() * side, y: box.minY + rng.unit() * side)
            var n = 0
            Self.forEachLatticePoint(origin: origin, angle: angle, side: side, box: box) { q in
                if admission.mayAdmit(q), !anyRecorded || grid.isFree(q), admission.admits(q) { n += 1 }
            }
            if best == nil || n > best!.count { best = (n, angle, origin) }
        }
        guard let best else { return }
        var points: [Planar] = []
        Self.forEachLatticePoint(origin: best.origin, angle: best.angle, side: side, box: box) { points.append($0) }
        for q in points {
            // Lattice points are `side` apart, more than `minDistance`: only recorded trees can be in the way.
            if recorded == 0 {
                if admission.mayAdmit(q), admission.admits(q) { insert(q) }
            } else {
                place(q)
            }
        }
    }

    static func forEachLatticePoint(origin o: Planar, angle: Double, side: Double, box: PlanarBox, _ body: (Planar) -> Void) {
        let ux = side * cos(angle), uy = side * sin(angle)
        let vx = side * cos(angle + .pi / 3), vy = side * sin(angle + .pi / 3)
        let det = ux * vy - uy * vx
        var imin = Double.infinity, imax = -Double.infinity, jmin = Double.infinity, jmax = -Double.infinity
        for c in [Planar(x: box.minX, y: box.minY), Planar(x: box.maxX, y: box.minY),
                  Planar(x: box.minX, y: box.maxY), Planar(x: box.maxX, y: box.maxY)] {
            let dx = c.x - o.x, dy = c.y - o.y
            let i = (dx * vy - dy * vx) / det, j = (ux * dy - uy * dx) / det
            imin = min(imin, i)
            imax = max(imax, i)
            jmin = min(jmin, j)
            jmax = max(jmax, j)
        }
        for j in Int(jmin.rounded(.down))...Int(jmax.rounded(.up)) {
            // The row o + j·v + t·u meets the box for t in [lo, hi].
            let rx = o.x + Double(j) * vx, ry = o.y + Double(j) * vy
            var lo = imin, hi = imax
            for (start, u, minV, maxV) in [(rx, ux, box.minX, box.maxX), (ry, uy, box.minY, box.maxY)] where u != 0 {
                let t1 = (minV - start) / u, t2 = (maxV - start) / u
                lo = max(lo, min(t1, t2))
                hi = min(hi, max(t1, t2))
            }
            guard lo <= hi + 1 else { continue }
            for i in Int(lo.rounded(.down))...Int(hi.rounded(.up)) {
                let q = Planar(x: rx + Double(i) * ux, y: ry + Double(i) * uy)
                if box.contains(q) { body(q) }
            }
        }
    }

    /// Bridson's Poisson-disk sampling: from a random point that fits, 30 tries in the annulus
    /// between one and two spacings around a random active tree.
    mutating func bridson(rng: inout PlannerRandom) {
        var active: [Planar] = []
        for _ in 0..<64 {
            let q = Planar(x: box.minX + rng.unit() * box.width, y: box.minY + rng.unit() * box.height)
            if place(q) {
                active.append(q)
                break
            }
        }
        let r2 = ringRadius * ringRadius
        while !active.isEmpty {
            let k = Int(rng.next() % UInt64(active.count))
            let p = active[k]
            var found = false
            for _ in 0..<30 {
                let r = (r2 * (1 + 3 * rng.unit())).squareRoot(), a = 2 * Double.pi * rng.unit()
                let q = Planar(x: p.x + r * cos(a), y: p.y + r * sin(a))
                if place(q) {
                    active.append(q)
                    found = true
                    break
                }
            }
            if !found {
                active.swapAt(k, active.count - 1)
                active.removeLast()
            }
        }
    }

    /// Walks every tree's spacing circle, then every point of a grid of step at most `step`,
    /// placing whatever fits (and walking the new trees' circles at once).
    mutating func fillGaps(rng: inout PlannerRandom) {
        let m = max(8, Int((2 * Double.pi * ringRadius / step).rounded(.up)))
        var cosines: [Double] = [], sines: [Double] = []
        for k in 0..<m {
            let a = 2 * Double.pi * Double(k) / Double(m)
            cosines.append(cos(a))
            sines.append(sin(a))
        }
        var head = 0
        func drain(_ filler: inout Filler) {
            while head < filler.queue.count {
                let p = filler.grid.points[filler.queue[head]]
                head += 1
                let start = Int(rng.next() % UInt64(m))
                for t in 0..<m {
                    let k = (start + t) % m
                    filler.place(Planar(x: p.x + filler.ringRadius * cosines[k], y: p.y + filler.ringRadius * sines[k]))
                }
            }
        }
        drain(&self)
        // The fine grid: `per` points a side in each grid cell; cells holding a tree are full.
        let per = max(1, Int((grid.cell / step).rounded(.up)))
        let h = grid.cell / Double(per)
        for cy in 0..<grid.ny {
            for cx in 0..<grid.nx where !grid.isOccupied(cx, cy) {
                search: for b in 0..<per {
                    for a in 0..<per {
                        let q = Planar(x: grid.x0 + Double(cx) * grid.cell + (Double(a) + 0.5) * h,
                                       y: grid.y0 + Double(cy) * grid.cell + (Double(b) + 0.5) * h)
                        if place(q) {
                            drain(&self)
                            break search
                        }
                    }
                }
            }
        }
    }
}
