#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// The layout of the whole circle around the observer, stacked once, for a live view that
/// turns: HDAugmentedReality stacks only on a full relayout and, when only the heading or the
/// pitch changes, shifts every box by the turn and keeps the lifts. `place` is that shift.
///
/// With the linear projection (HDAugmentedReality's) stacking does not depend on the heading:
/// a box's x moves by the same amount for every box, and the two ends of the panorama see each
/// other, so the overlaps are those of the circle. Nor, without clamping, on the pitch: it moves
/// every box down by the same amount. So the panorama is the projector's layout at heading 0
/// and pitch 0, and `placed(heading:pitch:)` equals `StackingProjector.layout` at that heading
/// and pitch, box for box (x to the bit, y to rounding).
///
/// Two options are evaluated once for the panorama rather than at every heading and pitch:
/// - a pinhole camera is stacked on a linear strip with the pinhole's pixels per degree at the
///   centre (`f·π/180`), then drawn through the tangent. The tangent only spreads boxes apart
///   away from the centre (its slope is at least 1), so boxes that do not overlap on the strip
///   do not overlap on the screen;
/// - `clampToScreen` keeps the boxes on the screen at pitch 0; tilting moves them all with the
///   world.
public struct Panorama: Sendable {
    /// The screen camera (its heading and pitch are not used).
    public var camera: Camera
    public var options: LayoutOptions
    /// The stacked layout at heading 0, pitch 0, on `stackingCamera`.
    public var layout: Layout

    /// The linear camera the panorama is stacked on: the screen's own for a linear camera; for a
    /// pinhole, the strip with its centre's pixels per degree.
    public static func stackingCamera(for camera: Camera) -> Camera {
        var c = camera
        c.heading = 0
        c.pitch = 0
        if camera.projection == .pinhole {
            c.projection = .linear
            c.horizontalFOV = camera.screenWidth * 180 / (.pi * camera.focalLength)
        }
        return c
    }

    /// Pixels per degree across the panorama.
    public var pixelsPerDegree: Double { Self.stackingCamera(for: camera).horizontalPixelsPerDegree }

    public init(camera: Camera, options: LayoutOptions, pois: [POI], sightings: [Sighting]) {
        self.camera = camera
        self.options = options
        self.layout = StackingProjector(camera: Self.stackingCamera(for: camera), options: options).layout(pois: pois, sightings: sightings)
    }

    public init(camera: Camera, options: LayoutOptions, observer: Coordinate, pois: [POI]) {
        self.init(camera: camera, options: options, pois: pois, sightings: StackingProjector.sightings(from: observer, to: pois))
    }

    /// The screen at this heading and pitch: each box shifted by the turn, its lift kept.
    public func placed(heading: Double, pitch: Double) -> Layout {
        var screen = camera
        screen.heading = heading
        screen.pitch = pitch
        let projector = StackingProjector(camera: screen, options: options)
        let screenW = camera.screenWidth, screenH = camera.screenHeight
        let down = screen.pitchOffset
        var out = layout
        for i in out.items.indices {
            let d = StackingProjector.delta(bearing: out.items[i].bearing, heading: heading)
            let w = out.items[i].width, h = out.items[i].height
            let x = projector.x(delta: d, width: w)
            let y = out.items[i].y + down
            out.items[i].delta = d
            out.items[i].x = x
            out.items[i].anchorY += down
            out.items[i].y = y
            out.items[i].inNearView = abs(d) < camera.horizontalFOV
            out.items[i].visible = x.map { !out.items[i].hidden && $0 < screenW && $0 + w > 0 && y < screenH && y + h > 0 } ?? false
        }
        return out
    }
}
