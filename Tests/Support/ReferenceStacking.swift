import AR

/// The literal reference: HDAugmentedReality's `ARPresenter.stackAnnotationViews` (2017), written
/// again over plain frames, as the oracle that the projector's stacking must equal, result for
/// result. O(n²) comparisons per pass; kept simple on purpose.
///
/// Only two things are added to the reference's loop, both off unless asked for: a box that would
/// be lifted more than `maxLevels` times, or to a y above `topLimit`, is hidden (left where it was
/// given up), and hidden boxes are not compared with. The order is the reference's (y descending;
/// ties by distance, then id) with priority (descending) in front.
public enum ReferenceStacking {
    struct Frame {
        var x, y, width, height: Double
        var maxX: Double { x + width }
        var maxY: Double { y + height }
        /// CGRect.intersects, strict: touching edges do not intersect.
        func intersects(_ o: Frame) -> Bool { x < o.maxX && o.x < maxX && y < o.maxY && o.y < maxY }
    }

    final class View {
        let input: Int
        var frame: Frame
        var alternateFrame = Frame(x: 0, y: 0, width: 0, height: 0)
        var level = 0
        var hidden = false
        init(input: Int, frame: Frame) {
            self.input = input
            self.frame = frame
        }
    }

    public static func stack(_ boxes: [ScreenBox], boxWidth: Double, boxHeight: Double, seam: Stacking.Seam?,
                             maxLevels: Int? = nil, topLimit: Double? = nil) -> [Placement] {
        // Each view its own frame: the box's own size where it has one.
        let views = boxes.indices.map { i in
            View(input: i, frame: Frame(x: boxes[i].x, y: boxes[i].y, width: boxes[i].size?.width ?? boxWidth,
                                        height: boxes[i].size?.height ?? boxHeight))
        }
        let sortedViews = views.sorted { v1, v2 in
            let a = boxes[v1.input], b = boxes[v2.input]
            if a.priority != b.priority { return a.priority > b.priority }
            if v1.frame.y != v2.frame.y { return v1.frame.y > v2.frame.y }
            if a.distance != b.distance { return a.distance < b.distance }
            if a.id != b.id { return a.id < b.id }
            return v1.input < v2.input
        }
        // With boxes of their own size, a box is tested across the seam when it is within the
        // widest box's width of an end (HDAugmentedReality, one size for all, takes its own).
        let widest = views.map(\.frame.width).max() ?? boxWidth
        let centerX = seam?.centerX ?? 0
        let totalWidth = seam?.panoramaWidth ?? 0
        let rightBorder = centerX + totalWidth / 2
        let leftBorder = centerX - totalWidth / 2

        for view1 in sortedViews {
            // Alternate frame: a view near one end of the panorama is also tested at the other end.
            var hasAlternateFrame = false
            let left = view1.frame.x
            let right = left + view1.frame.width
            if seam != nil {
                if right > rightBorder - widest {
                    view1.alternateFrame = view1.frame
                    view1.alternateFrame.x = view1.frame.x - totalWidth
                    hasAlternateFrame = true
                } else if left < leftBorder + widest {
                    view1.alternateFrame = view1.frame
                    view1.alternateFrame.x = view1.frame.x + totalWidth
                    hasAlternateFrame = true
                }
            }

            // Collisions with every view before this one; after a pass that moved it, again.
            var hasCollision = false
            var i = 0
            while i < sortedViews.count {
                let view2 = sortedViews[i]
                if view1 === view2 {
                    if hasCollision {
                        hasCollision = false
                        i = 0
                        continue
                    }
                    break
                }
                if view2.hidden {
                    i += 1
                    continue
                }
                /// Moves view1 above view2; false when the extensions hide it instead.
                func moveAbove() -> Bool {
                    let lifted = view2.frame.y - view1.frame.height - 5
                    if let maxLevels, view1.level >= maxLevels { return false }
                    if let topLimit, lifted < topLimit { return false }
                    view1.frame.y = lifted
                    view1.alternateFrame.y = view1.frame.y
                    view1.level += 1
                    return true
                }
                let collision = view1.frame.intersects(view2.frame)
                if collision {
                    guard moveAbove() else { view1.hidden = true; break }
                    hasCollision = true
                } else if hasAlternateFrame && view1.alternateFrame.intersects(view2.frame) {
                    guard moveAbove() else { view1.hidden = true; break }
                    hasCollision = true
                }
                i += 1
            }
        }
        return views.map { Placement(y: $0.frame.y, level: $0.level, hidden: $0.hidden) }
    }
}
