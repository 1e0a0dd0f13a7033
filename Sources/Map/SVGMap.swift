#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo
import Rules
import Regions

/// A map of a replay as one SVG document: fences coloured by kind with their names, the track
/// with its GPS gaps, start and end, event markers with time/type/fence labels, a legend, a scale
/// bar and a north arrow. Pure: no I/O, no Foundation; the same input gives byte-identical output.
///
/// What is shown (the extent): the box around the track and the events, plus every fence whose
/// box comes within 500 m of it, but never more than max(600 m, the track box's larger side)
/// beyond the track box on any side, so one far-off or huge fence cannot shrink the walk to a
/// speck (fences reaching past that are cut at the map's edge). With no track and no events the
/// map shows every fence. See `MapFrame` for the margin, minimum size and aspect ratio.
///
/// Events within a few pixels of each other share one marker and one label box (a line per
/// event: "12:03:41 enter Oak stand"). Labels are placed greedily around their marker without
/// overlapping each other, fence names, markers, the scale bar or the north arrow; an event
/// whose label finds no free room gets a numbered tag on the map instead and is listed under
/// the legend (at most 300 lines), so a dense replay stays readable.
///
/// Usage: `addTrack` each accepted fix in time order, `breakTrack` at a GPS outage (the next
/// fix starts a new line; the gap is drawn dashed), `addEvent` each event, then `render`.
public struct SVGMap: Sendable {
    public var regions: [Region]
    /// The page width in pixels (at least 320); the height follows from the area shown.
    public var width: Double
    /// An optional heading above the map, e.g. the log's name.
    public var title: String?

    /// The track's polylines, split where `breakTrack` was called.
    private(set) var segments: [[Coordinate]] = []
    private var gapPending = false
    private(set) var events: [RegionEvent] = []

    public init(regions: [Region], width: Double = 1200) {
        self.regions = regions
        self.width = width.isFinite ? max(320, width) : 1200
    }

    /// Appends an accepted fix to the track (invalid coordinates are ignored).
    public mutating func addTrack(_ c: Coordinate) {
        guard c.isValid else { return }
        if segments.isEmpty || gapPending {
            segments.append([c])
            gapPending = false
        } else {
            segments[segments.count - 1].append(c)
        }
    }

    /// Ends the current polyline: the next fix starts a new one (a GPS outage or a time gap).
    public mutating func breakTrack() {
        if !segments.isEmpty { gapPending = true }
    }

    /// Adds an event marker (events with an invalid coordinate are ignored).
    public mutating func addEvent(_ e: RegionEvent) {
        guard e.coordinate.isValid else { return }
        events.append(e)
    }

    /// The whole SVG document.
    public func render() -> String {
        var r = MapRenderer(map: self)
        return r.render()
    }
}

// MARK: - Rendering
