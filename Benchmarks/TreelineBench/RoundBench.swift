import Geo
import TestSupport
import Walks

/// `treeline-bench round`: the planner on seeded random stops, against the named baseline
/// measured in the same run: textbook 2-opt from nearest neighbour (first improvement, until no
/// reversal shortens the walk) over its own geodesic distance table. Reports the time of each
/// (the planner's includes its distance table) and the lengths; up to `exactLimit` stops the
/// planner's length is the optimum.
func benchRound(counts: [Int], runs: Int) {
    print("round: stops seeded uniformly over 2 km × 2 km, start at a corner; median of \(runs) runs")
    print("| stops | planner (ms) | planner length (m) | exact | 2-opt from NN (ms) | 2-opt length (m) | 2-opt / planner length |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for n in counts {
        var random = SplitMix64(seed: UInt64(n) * 7919)
        let start = Coordinate(latitude: 38.70, longitude: -9.15)
        let stops = (0..<n).map { _ in
            Coordinate(latitude: 38.70 + random.uniform(0, 0.018), longitude: -9.15 + random.uniform(0, 0.023))
        }
        var plannerTimes: [Double] = [], baselineTimes: [Double] = []
        var planned = (order: [Int](), length: 0.0, exact: false), baseline = 0.0
        for _ in 0..<runs {
            let t0 = now()
            planned = RoundPlanner(start: start, stops: stops).plan()
            plannerTimes.append(now() - t0)
            let t1 = now()
            baseline = twoOptFromNearestNeighbour(start, stops)
            baselineTimes.append(now() - t1)
        }
        guard planned.order.sorted() == Array(0..<n) else { fail("round of \(n): not every stop once") }
        print("| \(n) | \(fmt(median(plannerTimes) * 1000, 1)) | \(fmt(planned.length, 1)) | \(planned.exact ? "yes" : "no") | \(fmt(median(baselineTimes) * 1000, 1)) | \(fmt(baseline, 1)) | \(fmt(baseline / max(planned.length, 1e-9), 4)) |")
    }
}

/// The baseline: nearest neighbour from the start, then any 2-opt reversal that shortens the
/// open walk, until none does.
func twoOptFromNearestNeighbour(_ start: Coordinate, _ stops: [Coordinate]) -> Double {
    let points = [start] + stops
    let n = points.count
    var d = [Double](repeating: 0, count: n * n)
    for i in 0..<n { for j in 0..<n where i != j { d[i * n + j] = Geodesic.wgs84.distance(points[i], points[j]) } }
    var left = Array(1..<n), path: [Int] = [], here = 0
    while !left.isEmpty {
        var best = 0
        for k in 1..<left.count where d[here * n + left[k]] < d[here * n + left[best]] { best = k }
        here = left.remove(at: best)
        path.append(here)
    }
    var improved = true
    while improved {
        improved = false
        for i in 0..<path.count {
            let a = i == 0 ? 0 : path[i - 1]
            for j in (i + 1)..<path.count {
                let tail = j + 1 < path.count
                let gain = d[a * n + path[i]] + (tail ? d[path[j] * n + path[j + 1]] : 0) - d[a * n + path[j]] - (tail ? d[path[i] * n + path[j + 1]] : 0)
                if gain > 1e-9 {
                    path[i...j].reverse()
                    improved = true
                }
            }
        }
    }
    var total = 0.0, previous = 0
    for p in path {
        total += d[previous * n + p]
        previous = p
    }
    return total
}
