import Geo

/// The order to walk a set of stops: an open walk from a start through each stop once, as short
/// as can be found. Pure: coordinates in, an order out.
///
/// Up to `exactLimit` stops the order is the shortest there is (Held–Karp's dynamic programme
/// over subsets, O(n²·2ⁿ)). Beyond, nearest neighbour improved by 2-opt and or-opt to a local
/// optimum, then an iterated local search (a seeded double-bridge kick, the local search again,
/// kept when shorter) for a budget of moves that keeps 200 stops well under a second on a small
/// board. The result is deterministic: the same stops give the same order.
///
/// Distances are geodesic (WGS84, Karney), computed once into a matrix; the walk is asymmetric
/// only in that it starts at `start` and ends wherever is shortest.
public struct RoundPlanner: Sendable {
    /// Up to this many stops, the order found is the shortest (Held–Karp).
    public static let exactLimit = 12
    /// The most stops one round takes (the matrix is n²; the search about n² a pass).
    public static let maxStops = 1000

    /// The distances between the start (index 0) and the stops (1…n), metres, row by row.
    let distances: [Double]
    /// The number of points: the start and the stops.
    let size: Int

    /// A planner for an open walk from `start` through `stops`.
    public init(start: Coordinate, stops: [Coordinate]) {
        let points = [start] + stops
        size = points.count
        var d = [Double](repeating: 0, count: size * size)
        for i in 0..<size {
            for j in (i + 1)..<max(i + 1, size) {
                let m = Geodesic.wgs84.distance(points[i], points[j])
                d[i * size + j] = m
                d[j * size + i] = m
            }
        }
        distances = d
    }

    /// A planner over a given distance matrix (`size`×`size`, row by row; row 0 is the start).
    init(distances: [Double], size: Int) {
        precondition(distances.count == size * size)
        self.distances = distances
        self.size = size
    }

    @inline(__always) func d(_ i: Int32, _ j: Int32) -> Double { distances[Int(i) * size + Int(j)] }

    /// The order of the stops (indices into `stops`), its length in metres, and whether it is
    /// proven the shortest.
    public func plan() -> (order: [Int], length: Double, exact: Bool) {
        let n = size - 1
        if n == 0 { return ([], 0, true) }
        if n <= Self.exactLimit {
            let path = exactPath()
            return (path.map { Int($0) - 1 }, length(path), true)
        }
        let path = improvedPath()
        return (path.map { Int($0) - 1 }, length(path), false)
    }

    /// The length of the walk from the start through `path` (point indices, the start left out).
    func length(_ path: [Int32]) -> Double {
        var total = 0.0, previous: Int32 = 0
        for p in path {
            total += d(previous, p)
            previous = p
        }
        return total
    }

    // MARK: exact

    /// Held–Karp: best[mask][j] is the shortest walk from the start through the stops of `mask`
    /// ending at stop j. Ties go to the lower index, so the answer is deterministic.
    func exactPath() -> [Int32] {
        let n = size - 1
        let full = (1 << n) - 1
        var best = [Double](repeating: .infinity, count: (full + 1) * n)
        var from = [Int8](repeating: -1, count: (full + 1) * n)
        for j in 0..<n { best[(1 << j) * n + j] = d(0, Int32(j + 1)) }
        for mask in 1...full {
            for j in 0..<n where mask & (1 << j) != 0 {
                let here = best[mask * n + j]
                guard here < .infinity else { continue }
                for k in 0..<n where mask & (1 << k) == 0 {
                    let next = mask | (1 << k)
                    let candidate = here + d(Int32(j + 1), Int32(k + 1))
                    if candidate < best[next * n + k] {
                        best[next * n + k] = candidate
                        from[next * n + k] = Int8(j)
                    }
                }
            }
        }
        var end = 0
        for j in 1..<n where best[full * n + j] < best[full * n + end] { end = j }
        var path: [Int32] = []
        var mask = full, j = end
        while j >= 0 {
            path.append(Int32(j + 1))
            let previous = Int(from[mask * n + j])
            mask &= ~(1 << j)
            j = previous
        }
        return path.reversed()
    }

    // MARK: heuristic

    /// Nearest neighbour from the start (ties to the lower index).
    func nearestNeighbourPath() -> [Int32] {
        var left = Array(Int32(1)..<Int32(size))
        var path: [Int32] = []
        path.reserveCapacity(left.count)
        var here: Int32 = 0
        while !left.isEmpty {
            var best = 0
            for k in 1..<left.count where d(here, left[k]) < d(here, left[best]) { best = k }
            here = left.remove(at: best)
            path.append(here)
        }
        return path
    }

    /// The iterated local search's budget, in moves evaluated (2-opt and or-opt alike): it
    /// bounds the time whatever the size, and, counted rather than timed, keeps the answer the
    /// same on every machine. The first descent always runs to its local optimum.
    public static let evaluationBudget = 30_000_000
    /// This planner's budget (`evaluationBudget` unless a test asks for less: with less, the
    /// search makes the same kicks in the same order and stops sooner, so it can only be longer).
    var budget = RoundPlanner.evaluationBudget

    /// Nearest neighbour, 2-opt and or-opt to a local optimum, then kicks while the budget lasts.
    func improvedPath() -> [Int32] {
        var walk = Walk(planner: self, path: nearestNeighbourPath())
        walk.descend()
        var best = walk.path, bestLength = length(best)
        var random = SplitMix(seed: 0x7265_6c61_7473)
        var rounds = 0
        while walk.evaluations < budget, rounds < 5000, size > 8 {
            rounds += 1
            walk.path = best
            walk.kick(&random)
            walk.descend()
            let l = length(walk.path)
            if l < bestLength - 1e-9 {
                best = walk.path
                bestLength = l
            }
        }
        return best
    }
}

/// A walk being improved: the stops' order with the start fixed before it.
struct Walk {
    let planner: RoundPlanner
    var path: [Int32]
    /// Moves evaluated so far (the search's budget is counted in them).
    var evaluations = 0

    @inline(__always) func d(_ i: Int32, _ j: Int32) -> Double { planner.d(i, j) }
    /// The point before position k (the start before the first).
    @inline(__always) func before(_ k: Int) -> Int32 { k == 0 ? 0 : path[k - 1] }

    /// 2-opt and or-opt until neither finds a shorter walk (bounded: each pass must gain).
    mutating func descend() {
        var passes = 0
        while passes < 10_000 {
            passes += 1
            let a = twoOpt(), b = orOpt()
            if !a && !b { return }
        }
    }

    /// One pass of 2-opt: reverses path[i...j] where that shortens the walk (the end is free,
    /// so reversing a tail costs only its first edge). True when something improved.
    mutating func twoOpt() -> Bool {
        let n = path.count
        var improved = false
        for i in 0..<(n - 1) {
            let a = before(i), b = path[i]
            let ab = d(a, b)
            evaluations += n - i - 1
            for j in (i + 1)..<n {
                let c = path[j]
                let gain: Double
                if j == n - 1 {
                    gain = ab - d(a, c)
                } else {
                    let e = path[j + 1]
                    gain = ab + d(c, e) - d(a, c) - d(b, e)
                }
                if gain > 1e-9 {
                    path[i...j].reverse()
                    improved = true
                    break
                }
            }
        }
        return improved
    }

    /// One pass of or-opt: moves a run of 1 to 3 stops, as it is or reversed, to where it
    /// shortens the walk most. True when something improved.
    mutating func orOpt() -> Bool {
        let n = path.count
        var improved = false
        for length in 1...3 where length < n {
            var i = 0
            while i + length <= n {
                if moveRun(at: i, length: length) { improved = true }
                i += 1
            }
        }
        return improved
    }

    /// Moves path[i..<i+length] to its best place, if any shortens the walk.
    mutating func moveRun(at i: Int, length: Int) -> Bool {
        let n = path.count
        let first = path[i], last = path[i + length - 1]
        let p = before(i)
        let hasNext = i + length < n
        let q: Int32 = hasNext ? path[i + length] : -1
        // What taking the run out saves.
        let removed = d(p, first) + (hasNext ? d(last, q) - d(p, q) : 0)
        evaluations += n + 1
        var bestGain = 1e-9, bestAt = -1, bestReversed = false
        // Insert between position t-1 and t of the path without the run (t = 0: right after the start).
        for t in 0...n where t < i || t > i + length {
            let u = before(t)
            let hasV = t < n
            let v: Int32 = hasV ? path[t] : -1
            let open = hasV ? d(u, v) : 0
            let forward = d(u, first) + (hasV ? d(last, v) : 0) - open
            let backward = d(u, last) + (hasV ? d(first, v) : 0) - open
            if removed - forward > bestGain { bestGain = removed - forward; bestAt = t; bestReversed = false }
            if length > 1, removed - backward > bestGain { bestGain = removed - backward; bestAt = t; bestReversed = true }
        }
        guard bestAt >= 0 else { return false }
        var run = Array(path[i..<(i + length)])
        if bestReversed { run.reverse() }
        path.removeSubrange(i..<(i + length))
        let at = bestAt > i ? bestAt - length : bestAt
        path.insert(contentsOf: run, at: at)
        return true
    }

    /// A double bridge: the path cut in four at random and joined A C B D, which 2-opt cannot
    /// undo in one move.
    mutating func kick(_ random: inout SplitMix) {
        let n = path.count
        guard n >= 8 else { return }
        var cuts = [1 + random.below(n - 1), 1 + random.below(n - 1), 1 + random.below(n - 1)].sorted()
        if cuts[0] == cuts[1] || cuts[1] == cuts[2] { cuts = [n / 4, n / 2, 3 * n / 4] }
        let a = path[0..<cuts[0]], b = path[cuts[0]..<cuts[1]], c = path[cuts[1]..<cuts[2]], e = path[cuts[2]...]
        path = Array(a) + Array(c) + Array(b) + Array(e)
    }
}

/// A small seeded generator (SplitMix64): the same stops give the same round.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A whole number in 0..<n (n > 0).
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
