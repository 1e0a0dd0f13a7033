/// Greedy label placement: each new label takes the first candidate position around its anchor
/// (nearest first) that overlaps no earlier label or obstacle and stays inside `bounds`; when
/// every candidate collides it takes the one with the least overlap. Obstacles are bucketed in a
/// grid so many labels stay cheap. Deterministic: candidates and obstacles are visited in a fixed
/// order, and the grid dictionary is only looked up, never iterated.
struct LabelPlacer {
    let bounds: Rect
    private(set) var rects: [Rect] = []
    private var grid: [Int64: [Int]] = [:]
    private let cell = 64.0

    init(bounds: Rect) { self.bounds = bounds }

    private func cells(_ r: Rect) -> [Int64] {
        let x0 = Int64((r.x / cell).rounded(.down)), x1 = Int64((r.maxX / cell).rounded(.down))
        let y0 = Int64((r.y / cell).rounded(.down)), y1 = Int64((r.maxY / cell).rounded(.down))
        guard x1 - x0 < 4096, y1 - y0 < 4096 else { return [] }
        var out: [Int64] = []
        for cx in x0...x1 {
            for cy in y0...y1 { out.append(cx &* 1_000_003 &+ cy) }
        }
        return out
    }

    /// Records `r` as taken.
    mutating func add(_ r: Rect) {
        let i = rects.count
        rects.append(r)
        for k in cells(r) { grid[k, default: []].append(i) }
    }

    /// Total area `r` shares with the recorded boxes.
    func overlap(_ r: Rect) -> Double {
        var ids: [Int] = []
        for k in cells(r) { if let list = grid[k] { ids.append(contentsOf: list) } }
        ids.sort()
        var total = 0.0
        var last = -1
        for i in ids where i != last {
            last = i
            total += rects[i].overlap(r)
        }
        return total
    }

    /// Candidate boxes of size w×h around (ax, ay), nearest first.
    static func candidates(ax: Double, ay: Double, w: Double, h: Double) -> [Rect] {
        var out: [Rect] = []
        for d in [9.0, 22, 40, 64, 96, 140] {
            let k = d * 0.8
            out.append(Rect(x: ax + d, y: ay - h / 2, w: w, h: h))           // east
            out.append(Rect(x: ax - d - w, y: ay - h / 2, w: w, h: h))       // west
            out.append(Rect(x: ax + k, y: ay - k - h, w: w, h: h))           // north-east
            out.append(Rect(x: ax + k, y: ay + k, w: w, h: h))               // south-east
            out.append(Rect(x: ax - k - w, y: ay - k - h, w: w, h: h))       // north-west
            out.append(Rect(x: ax - k - w, y: ay + k, w: w, h: h))           // south-west
            out.append(Rect(x: ax - w / 2, y: ay - d - h, w: w, h: h))       // north
            out.append(Rect(x: ax - w / 2, y: ay + d, w: w, h: h))           // south
        }
        return out
    }

    /// Chooses a box among `candidates` (tried in order), records it and returns it.
    mutating func place(_ candidates: [Rect]) -> Rect {
        var best: Rect?
        var bestScore = Double.infinity
        for c in candidates where bounds.contains(c) {
            let o = overlap(c)
            if o == 0 { best = c; break }
            if o < bestScore { bestScore = o; best = c }
        }
        // Nothing fits inside: pull the first candidate into the bounds.
        let chosen = best ?? clamped(candidates.first ?? Rect(x: bounds.x, y: bounds.y, w: 0, h: 0))
        add(chosen)
        return chosen
    }

    /// The first of `candidates` inside the bounds that overlaps nothing, recorded; nil when
    /// there is none (nothing is recorded then).
    mutating func placeIfFree(_ candidates: [Rect]) -> Rect? {
        for c in candidates where bounds.contains(c) && overlap(c) == 0 {
            add(c)
            return c
        }
        return nil
    }

    func clamped(_ r: Rect) -> Rect {
        var r = r
        r.x = max(bounds.x, min(r.x, bounds.maxX - r.w))
        r.y = max(bounds.y, min(r.y, bounds.maxY - r.h))
        return r
    }
}
