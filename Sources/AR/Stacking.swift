/// HDAugmentedReality's vertical stacking, with the same result box for box and bit for bit.
/// Each box has its own size (`ScreenBox.size`, else the stacking's `boxWidth`×`boxHeight`), as
/// each annotation view has its own frame in the reference.
/// When all boxes start on one row (offset none), in O(n log n · (1 + rows/64)) (see
/// `stackOnOneRow`); otherwise in O(n log n + L), L the total number of lifts (the sum of the
/// levels it reports), which for 10,000 active POIs on a narrow screen is millions.
///
/// The reference (`ARPresenter.stackAnnotationViews`): boxes in order of y descending (here:
/// priority first, then y descending, distance, id); each box is compared in turn with every box
/// placed before it and, when they overlap (strictly: touching is not overlap), moved to
/// `other.y − h − 5` (h its own height); the scan goes on from there with the new y, and when a pass has moved the box
/// it starts again from the first placed box, until a pass moves it no more. Boxes near the ends
/// of the panorama are also tested one panorama (360·hPPD) away. That costs O(n²) comparisons per
/// pass.
///
/// The general case (`walk`) finds the same climb without the scans: while a box climbs, what
/// overlaps it is some placed box whose x is within W of its own and whose y is within H (W, H the
/// widest and tallest box). Placed boxes are kept in columns W wide, each sorted by y, so the ones overlapping the current y are a
/// few entries around a cursor in three columns (six near the seam), and the cursor only moves up
/// because boxes only move up. A
/// pass of the reference hits, after the last hit at placement index i, the overlapping box with
/// the smallest index above i; when there is none the pass ends, and if it moved the box the next
/// pass hits the overlapping box with the smallest index of all. So each lift is found among a
/// handful of candidates, with the same floating-point comparisons and the same `y − h − 5` as the
/// reference, hence the same bits.
public struct Stacking: Sendable {
    public var boxWidth: Double
    public var boxHeight: Double
    /// The space the reference leaves between a box and the one it is lifted over.
    public static let gap = 5.0

    /// The linear projection's panorama: the screen's centre x and the width of 360°.
    public struct Seam: Sendable, Equatable {
        public var centerX: Double
        public var panoramaWidth: Double
        public init(centerX: Double, panoramaWidth: Double) {
            self.centerX = centerX
            self.panoramaWidth = panoramaWidth
        }
    }

    /// nil when x is not periodic (pinhole).
    public var seam: Seam?
    /// A box that would need more lifts than this is hidden. nil: no limit.
    public var maxLevels: Int?
    /// A box that would be lifted to a y above this (smaller) is hidden. nil: no limit.
    public var topLimit: Double?

    public init(boxWidth: Double, boxHeight: Double, seam: Seam? = nil, maxLevels: Int? = nil, topLimit: Double? = nil) {
        self.boxWidth = boxWidth
        self.boxHeight = boxHeight
        self.seam = seam
        self.maxLevels = maxLevels
        self.topLimit = topLimit
    }

    /// The order boxes are placed in: priority descending, then y descending (lowest on the screen
    /// first), distance ascending, id, and finally input position.
    public func order(_ boxes: [ScreenBox]) -> [Int] {
        boxes.indices.sorted { i, j in
            let a = boxes[i], b = boxes[j]
            if a.priority != b.priority { return a.priority > b.priority }
            if a.y != b.y { return a.y > b.y }
            if a.distance != b.distance { return a.distance < b.distance }
            if a.id != b.id { return a.id < b.id }
            return i < j
        }
    }

    /// A box's own size.
    @inline(__always)
    func size(_ box: ScreenBox) -> BoxSize { box.size ?? BoxSize(width: boxWidth, height: boxHeight) }

    /// The x at which a box `width` wide (the stacking's box by default) near an end of the
    /// panorama is tested too: its right edge within `reach` of the right border, or its left edge
    /// within `reach` of the left border. The reference (one size for all) takes the box's width
    /// for `reach`; with boxes of their own size it is the widest box's, so that a narrow box near
    /// one end meets a wide one wrapping past the other whichever is placed first (with its own
    /// width, a narrow box placed second would not look across the seam, and the two would
    /// overlap on the screen at a heading where the seam is in view).
    public func alternateX(_ x: Double, width: Double? = nil, reach: Double? = nil) -> Double? {
        guard let seam else { return nil }
        let w = width ?? boxWidth, r = reach ?? w
        let rightBorder = seam.centerX + seam.panoramaWidth / 2
        let leftBorder = seam.centerX - seam.panoramaWidth / 2
        if x + w > rightBorder - r { return x - seam.panoramaWidth }
        if x < leftBorder + r { return x + seam.panoramaWidth }
        return nil
    }

    /// The placements, in the boxes' order.
    public func stack(_ boxes: [ScreenBox]) -> [Placement] {
        guard let first = boxes.first else { return [] }
        let y0 = first.y, size0 = size(first)
        if boxes.allSatisfy({ $0.y == y0 && size($0) == size0 }) {
            var same = self
            same.boxWidth = size0.width
            same.boxHeight = size0.height
            return same.stackOnOneRow(boxes)
        }
        return walk(boxes)
    }

    /// The general case: each box's climb, lift by lift, as the reference's passes would make it.
    func walk(_ boxes: [ScreenBox]) -> [Placement] {
        let n = boxes.count
        var result = [Placement](repeating: Placement(y: 0, level: 0, hidden: false), count: n)
        guard n > 0 else { return result }
        let gap = Stacking.gap
        let order = self.order(boxes)
        var widest = 0.0, tallest = 0.0
        for b in boxes {
            let s = size(b)
            widest = max(widest, s.width)
            tallest = max(tallest, s.height)
        }

        // Columns as wide as the widest box, each holding its placed boxes sorted by y descending.
        let columns = ColumnSet(boxes, width: widest)
        defer { columns.deallocate() }

        // Per box: the columns that can hold an overlapping box, and a cursor in each.
        var queried: [Int] = []
        var cursors: [Int] = []
        queried.reserveCapacity(8)
        cursors.reserveCapacity(8)

        for (rank, index) in order.enumerated() {
            let box = boxes[index]
            let own = size(box), w = own.width, h = own.height
            let x = box.x, alt = alternateX(x, width: w, reach: widest)
            var y = box.y

            queried.removeAll(keepingCapacity: true)
            columns.addColumns(around: x, to: &queried)
            if let alt { columns.addColumns(around: alt, to: &queried) }
            cursors.removeAll(keepingCapacity: true)
            let startSlack = (abs(y) + h) * 1e-12 + 1e-9
            // The first entry that can overlap now or later: y' < y + h.
            for col in queried { cursors.append(columns[col].firstBelow(y + h + startSlack)) }

            var level = 0
            var hidden = false
            var pointer: Int32 = 0  // the pass goes on from this placement rank
            var movedInPass = false
            climb: while true {
                let slack = (abs(y) + tallest) * 1e-12 + 1e-9
                // What overlaps the box starts above its bottom and ends below its top: its top is
                // within the tallest box's height above.
                let upper = y + h + slack, lower = y - tallest - slack
                var (next, nextY, first, firstY) = columns.hits(queried, &cursors, x: x, alternate: alt, y: y, w: w, h: h,
                                                                 upper: upper, lower: lower, pointer: pointer)
                let hitY: Double
                if next != Int32.max {
                    hitY = nextY
                } else if movedInPass && first != Int32.max {
                    // The pass ended after a move: the next one starts from the first placed box.
                    next = first
                    hitY = firstY
                } else {
                    break climb
                }
                let lifted = hitY - h - gap
                if let maxLevels, level >= maxLevels { hidden = true; break climb }
                // Each lift passes one placed box and never meets it again, so a box is lifted at
                // most once per box placed before it; numbers that would make it climb for ever
                // (a lift that rounds to no move) end here, hidden.
                if level >= rank || !(lifted < y) { hidden = true; break climb }
                if let topLimit, lifted < topLimit { hidden = true; break climb }
                y = lifted
                level += 1
                pointer = next + 1
                movedInPass = true
            }
            result[index] = Placement(y: y, level: level, hidden: hidden)
            if !hidden { columns.insert(Column.Entry(y: y, x: x, width: w, height: h, rank: Int32(rank))) }
        }
        return result
    }
}

extension Stacking {
    /// When every box starts at the same y (offset none, or everything within a manual
    /// threshold) and has the same size (the stacking's box), the reference's walk does not depend on its scan order, and its climb is found
    /// in one query instead of lift by lift.
    ///
    /// Why: a lift goes to `other.y − h − 5`, so every placed box lies on the lattice
    /// r₀ = y, rₖ₊₁ = rₖ − h − 5 (with the reference's own rounding). Boxes on different rows are
    /// at least h + 5 apart and never overlap; boxes on one row overlap vertically. So a box on row
    /// k overlaps exactly the placed boxes of row k that overlap it in x, and whichever of them the
    /// scan meets first, the box lands on row k + 1. It stops on the first row where no placed box
    /// is within the x-window (x − w, x + w) (or the alternate frame's): its level is that row's
    /// number. With a cap, it is hidden on the last row it may reach.
    ///
    /// The query: boxes sorted by x in buckets of 16, a segment tree over the buckets, each node
    /// holding the set of rows its placed boxes occupy as a bitset; the x-window is O(log n) nodes
    /// and two partial buckets, and the first row missing from the OR of their bitsets is the
    /// answer, found 64 rows at a time. O(n log n · (1 + rows/64)).
    func stackOnOneRow(_ boxes: [ScreenBox]) -> [Placement] {
        let n = boxes.count
        let w = boxWidth, h = boxHeight, gap = Stacking.gap
        let order = self.order(boxes)

        // The rows, extended as the stacks grow; and how high a box may go under the caps.
        var rows = [boxes[0].y]
        func row(_ k: Int) -> Double {
            while rows.count <= k { rows.append(rows[rows.count - 1] - h - gap) }
            return rows[k]
        }
        // A box climbs at most one row per box placed before it: the rows to look at are bounded
        // by the boxes, whatever the caps.
        var cap = min(maxLevels ?? Int.max, n)
        if let topLimit {
            var r = 0
            while r < cap, row(r + 1) >= topLimit { r += 1 }
            cap = r
        }

        // Boxes by x, and the rows taken over ranges of them.
        let byX = boxes.indices.sorted { boxes[$0].x < boxes[$1].x }
        let xs = byX.map { boxes[$0].x }
        var positionOf = [Int](repeating: 0, count: n)
        for (p, i) in byX.enumerated() { positionOf[i] = p }
        var occupancy = RowOccupancy(count: n)

        var nodes: [Int] = []
        var loose: [Int] = []  // rows of placed boxes in partial buckets
        var result = [Placement](repeating: Placement(y: 0, level: 0, hidden: false), count: n)
        for index in order {
            let x = boxes[index].x
            nodes.removeAll(keepingCapacity: true)
            loose.removeAll(keepingCapacity: true)
            occupancy.cover(Self.overlapping(xs, c: x, w: w), nodes: &nodes, loose: &loose)
            if let alt = alternateX(x) { occupancy.cover(Self.overlapping(xs, c: alt, w: w), nodes: &nodes, loose: &loose) }
            loose.sort()
            let free = occupancy.firstFree(nodes: nodes, loose: loose)
            if free > cap {
                result[index] = Placement(y: row(cap), level: cap, hidden: true)
            } else {
                result[index] = Placement(y: row(free), level: free, hidden: false)
                occupancy.place(row: free, position: positionOf[index])
            }
        }
        return result
    }

    /// The positions in `xs` (sorted) whose box the reference's x-test finds overlapping a frame
    /// at `c`: both halves of the test are monotone in x', so they form one range.
    static func overlapping(_ xs: [Double], c: Double, w: Double) -> Range<Int> {
        let n = xs.count
        var lo = 0, hi = n
        while lo < hi {
            let mid = (lo + hi) / 2
            if c < xs[mid] + w { hi = mid } else { lo = mid + 1 }
        }
        let start = lo
        hi = n
        while lo < hi {
            let mid = (lo + hi) / 2
            if xs[mid] < c + w { lo = mid + 1 } else { hi = mid }
        }
        return start..<max(start, lo)
    }
}
