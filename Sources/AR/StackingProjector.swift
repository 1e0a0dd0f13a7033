#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// Lays out points of interest on an AR screen as HDAugmentedReality does (see `Stacking` for the
/// stacking), with a pinhole projection, priorities, clamping and a level cap on top.
///
/// - Active POIs: within `maxDistance` (0: any), the first `maxVisible` by priority (descending),
///   then distance, then id — in every direction, whatever the heading.
/// - `x = screenW/2 − w/2 + Δ·screenW/hFov` (linear) or `screenW/2 − w/2 + f·tan Δ` (pinhole), Δ = bearing − heading.
/// - `y = screenH·0.55 − h/2 + offset(d) + pitch·screenH/vFov` (linear) or `+ fv·tan(pitch)` (pinhole).
/// - w×h: the POI's own box (`LayoutOptions.sizes`), else the options' box.
/// - Stacking over all active boxes with an x; then `visible` = the box intersects the screen.
///
/// Pure: no I/O. The geodesics are Karney's (PROJ) through `Geo`.
public struct StackingProjector: Sendable {
    public var camera: Camera
    public var options: LayoutOptions

    public init(camera: Camera, options: LayoutOptions = LayoutOptions()) {
        self.camera = camera
        self.options = options
    }

    /// Distance and bearing from the observer to every POI.
    public static func sightings(from observer: Coordinate, to pois: [POI]) -> [Sighting] {
        let g = Geodesic.wgs84
        return pois.indices.map { i in
            let r = g.inverse(observer, pois[i].coordinate)
            return Sighting(poi: i, distance: r.distance, bearing: r.initialBearing)
        }
    }

    public func layout(observer: Coordinate, pois: [POI]) -> Layout {
        layout(pois: pois, sightings: Self.sightings(from: observer, to: pois))
    }

    /// The stacking rules this camera and these options give.
    public var stacking: Stacking {
        let seam = camera.projection == .linear
            ? Stacking.Seam(centerX: camera.screenWidth / 2, panoramaWidth: 360 * camera.horizontalPixelsPerDegree) : nil
        return Stacking(boxWidth: options.boxWidth, boxHeight: options.boxHeight, seam: seam, maxLevels: options.maxLevels,
                        topLimit: options.clampToScreen ? 0 : nil)
    }

    /// The active POIs' sightings, in the order of choice.
    public func active(pois: [POI], sightings: [Sighting]) -> (active: [Sighting], beyondMaxDistance: Int) {
        let limit = options.maxDistance
        var candidates = sightings.filter { limit == 0 || $0.distance <= limit }
        let beyond = sightings.count - candidates.count
        candidates.sort { a, b in
            let pa = pois[a.poi].priority, pb = pois[b.poi].priority
            if pa != pb { return pa > pb }
            if a.distance != b.distance { return a.distance < b.distance }
            let ia = pois[a.poi].id, ib = pois[b.poi].id
            if ia != ib { return ia < ib }
            return a.poi < b.poi
        }
        if candidates.count > options.maxVisible { candidates.removeSubrange(options.maxVisible...) }
        return (candidates, beyond)
    }

    /// Δ wrapped into (−180, 180].
    public static func delta(bearing: Double, heading: Double) -> Double {
        var d = (bearing - heading).truncatingRemainder(dividingBy: 360)
        if d < 0 { d += 360 }
        return d > 180 ? d - 360 : d
    }

    /// The left edge of a box `width` wide (the options' box by default) for a direction Δ degrees
    /// right of the heading.
    public func x(delta: Double, width: Double? = nil) -> Double? {
        let w = width ?? options.boxWidth
        return camera.horizontalOffset(delta: delta).map { camera.screenWidth / 2 - w / 2 + $0 }
    }

    /// The offset function for a set of active distances.
    public func offset(distances: [Double]) -> (Double) -> Double {
        switch options.offset {
        case .none:
            return { _ in 0 }
        case let .manual(t, m):
            return { d in d > t ? -(d - t) * m : 0 }
        case .automatic:
            guard let dmin = distances.min(), let dmax = distances.max() else { return { _ in 0 } }
            let available = camera.screenHeight * 0.55 - 30
            let m = dmax - dmin > 0 ? available / (dmax - dmin) : 0
            return { d in d > dmin ? -(d - dmin) * m : 0 }
        }
    }

    /// The top edge of a box `height` tall (the options' box by default) before stacking, without
    /// clamping.
    public func anchorY(offset: Double, height: Double? = nil) -> Double {
        camera.screenHeight * 0.55 - (height ?? options.boxHeight) / 2 + offset + camera.pitchOffset
    }

    public func layout(pois: [POI], sightings: [Sighting]) -> Layout {
        let (chosen, beyond) = active(pois: pois, sightings: sightings)
        let offsetOf = offset(distances: chosen.map(\.distance))
        let screenW = camera.screenWidth, screenH = camera.screenHeight
        var items: [LayoutItem] = []
        items.reserveCapacity(chosen.count)
        var boxes: [ScreenBox] = []
        var boxItem: [Int] = []
        boxes.reserveCapacity(chosen.count)
        boxItem.reserveCapacity(chosen.count)
        for s in chosen {
            let poi = pois[s.poi]
            let own = options.sizes[poi.id]
            let w = own?.width ?? options.boxWidth, h = own?.height ?? options.boxHeight
            let d = Self.delta(bearing: s.bearing, heading: camera.heading)
            var y = anchorY(offset: offsetOf(s.distance), height: h)
            if options.clampToScreen { y = max(0, min(y, screenH - h)) }
            let x = x(delta: d, width: w)
            if let x {
                boxItem.append(items.count)
                boxes.append(ScreenBox(x: x, y: y, distance: s.distance, id: poi.id, priority: poi.priority, size: own))
            }
            items.append(LayoutItem(poi: s.poi, id: poi.id, distance: s.distance, bearing: s.bearing, delta: d, x: x, anchorY: y,
                                    y: y, width: w, height: h, level: 0, inNearView: abs(d) < camera.horizontalFOV, visible: false,
                                    hidden: false))
        }
        for (k, p) in stacking.stack(boxes).enumerated() {
            let i = boxItem[k]
            items[i].y = p.y
            items[i].level = p.level
            items[i].hidden = p.hidden
            let x = boxes[k].x, w = items[i].width, h = items[i].height
            items[i].visible = !p.hidden && x < screenW && x + w > 0 && p.y < screenH && p.y + h > 0
        }
        return Layout(items: items, poiCount: pois.count, beyondMaxDistance: beyond,
                      beyondMaxVisible: sightings.count - beyond - chosen.count)
    }
}
