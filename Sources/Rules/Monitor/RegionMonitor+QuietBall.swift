import Geo

extension RegionMonitor {
    /// Measures the quiet ball around the fix just evaluated in full (`c`, `p`, with horizontal
    /// error `error`, `step` metres from the fix before): the largest radius, up to
    /// `QuietBall.reach`, at which every region's bound still keeps its state, but for the
    /// regions it leaves to `watched`.
    ///
    /// Bounds come from what evaluating left (`RegionTable.Bound`) and the fence's chord.
    /// Where a polygon's bound is what limits the ball, its distance is computed (up to
    /// `distanceBudget` of them, while the ball is smaller than `stepsWorthADistance` steps)
    /// and kept as its new bound. A region that still limits it to less than that is watched
    /// (up to `watchLimit`, the tightest first), and the ball measured without it. None while a
    /// region is new (`newRegions`).
    mutating func renewQuietBall(at c: Coordinate, _ p: ECEF, error: Double, step: Double) {
        quiet.radius = 0
        watched.removeAll(keepingCapacity: true)
        guard quietBalls, newRegions == 0, config.hysteresisMetres >= 0, config.accuracyFactor >= 0, error >= 0, step < QuietBall.maxStep else { return }
        let m = config.hysteresisMetres + config.accuracyFactor * error * QuietBall.errorShare
        var limits = takeScratch(\.ballLimits)
        defer {
            limits.removeAll(keepingCapacity: true)
            ballLimits = limits
        }
        // Inside: at least `bound − moved` inside here, so more than −m anywhere in the ball.
        // Every region we are inside was evaluated at this fix, which leaves it a bound.
        for k in insideList {
            let i = Int(k)
            let kept = table.bound[i]
            guard !kept.center.x.isNaN else { return }
            // A polygon whose distance this fix computed: that distance, as the budget below would.
            let known = searched(i, at: fixNumber)
            let room = known.map { $0 + m } ?? kept.value - QuietBall.moved(kept.center, p) + m
            if room < QuietBall.reach { limits.append(.init(region: k, room: room, exact: known != nil || regions.isCircle(i), watched: false)) }
        }
        // Outside: every region whose box comes within reach is at most `upper` inside here, so
        // less than m anywhere in the ball; the others are farther. A polygon's `upper` is the
        // least of its chord's, its stored bound's and its raster's (the clear cells around the
        // fix). For a circle, only its chord: transit's search measures circles by the chord,
        // which the geodesic behind a stored bound undercuts by chord³/24R² (a centimetre 22 km
        // from the centre).
        var near = takeScratch(\.ballRegions)
        regions.appendRegions(along: c, c, length: 0, within: QuietBall.reach + 1, cache: &nearby, to: &near)
        for k in near where !table.inside[Int(k)] {
            let i = Int(k), known = searched(i, at: fixNumber), circle = regions.isCircle(i)
            // A polygon's raster bound is already at most its chord's.
            var upper = known ?? (circle ? regions.chordUpperBound(i, p) : regions.signedDistanceUpperBound(i, p))
            let kept = table.bound[i]
            if known == nil, !circle, !kept.center.x.isNaN { upper = min(upper, kept.value + QuietBall.moved(kept.center, p)) }
            let room = m - upper - QuietBall.searchSlack
            if room < QuietBall.reach { limits.append(.init(region: k, room: room, exact: known != nil || circle, watched: false)) }
        }
        near.removeAll(keepingCapacity: true)
        ballRegions = near

        let worth = min(QuietBall.reach, QuietBall.stepsWorthADistance * step + 3)
        var budget = QuietBall.distanceBudget
        var watched = takeScratch(\.watched)
        while true {
            var least = -1, radius = QuietBall.reach
            for (k, l) in limits.enumerated() where l.room < radius && !l.watched {
                least = k
                radius = l.room
            }
            guard least >= 0, radius < worth, radius > -QuietBall.reach else { break }
            if !limits[least].exact, budget > 0 {
                // A polygon's bound limits the ball: its distance here (the plane's, as transit's).
                budget -= 1
                let i = Int(limits[least].region)
                let d = regions.approximateSignedDistance(i, p)
                noteSearched(i, d)
                setBound(i, at: p, d)
                limits[least].room = table.inside[i] ? d + m : m - d - QuietBall.searchSlack
                limits[least].exact = true
                continue
            }
            // A region whose boundary is this near: watched at every fix in the ball, so that
            // the ball can reach past it.
            guard watched.count < QuietBall.watchLimit else { break }
            limits[least].watched = true
            watched.append(limits[least].region)
        }
        var radius = QuietBall.reach
        for l in limits where !l.watched && l.room < radius { radius = l.room }
        if radius > step {
            quiet = QuietBall(center: p, radius: radius, margin: m)
            watched.sort()
        } else {
            watched.removeAll(keepingCapacity: true)
        }
        self.watched = watched
    }
}
