import AR
import ArgumentParser
import Geo
import Map
import Loading

extension Treeline {
    struct LayoutCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "layout",
            abstract: "Lay out points of interest on an AR screen: where each box goes so that none hides another.",
            discussion: """
            Given where you stand (--at), where the camera looks (--heading, --pitch)
            and the camera (--fov, --screen), prints one JSON line per active POI:
              {"id":…,"distance":…,"bearing":…,"x":…,"y":…,"level":…,
               "visible":…,"near":…,"hidden":…}
            distance (m) and bearing (°) are geodesic, from the observer; x, y the
            box's top-left corner in pixels after stacking (x is null where a pinhole
            camera cannot see); level how many times stacking lifted the box; visible
            whether the box intersects the screen; near whether the POI is within the
            horizontal field of view of the heading; hidden whether --max-levels or
            --clamp gave up on it. A summary with the counts goes to standard error.

            By default the layout is HDAugmentedReality's:
            - active POIs: the nearest --max-visible within --max-distance, in every
              direction;
            - x = W/2 - w/2 + (bearing - heading)·W/hFov,
              y = 0.55·H - h/2 + offset + pitch·H/vFov;
            - --offset none (all on one row), manual:T:M (-(d - T)·M px for POIs
              farther than T metres) or automatic (T the nearest, M so that the
              farthest is 30 px from the top);
            - stacking: boxes in order of y descending (ties: distance, then id),
              each moved 5 px above any box placed before it that it overlaps, until
              it overlaps none; the two ends of the 360° panorama see each other.
            Beyond it: --projection pinhole (a real camera's tangent mapping, for
            drawing over video), properties.priority (higher first, before distance),
            --clamp (boxes start on the screen; one that would be lifted over its top
            is hidden) and --max-levels (one that would be lifted more often is
            hidden).

            POIs come from --pois, a GeoJSON FeatureCollection of Points with
            properties.id (unique) and optionally name and priority, or from
            --regions, a regions file (circles give their centre, polygons their
            area centroid).

            --svg FILE draws the screen: boxes with names and distances, lines from
            lifted boxes down to where they stood, the horizon, a compass strip, and
            arrows for POIs in the near view but off screen.

            Examples:
              treeline layout --at 45.0,18.0 --heading 0 --fov 60,80 \\
                  --screen 360x640 --pois Data/pois.geojson --svg screen.svg
              treeline layout --at 40.1005,-8.2405 --heading 45 --fov 60,45 \\
                  --screen 1280x720 --regions Data/regions.geojson --offset automatic
            """
        )

        @Option(parsing: .unconditional, help: ArgumentHelp("Where the observer stands, in decimal degrees (WGS84).", valueName: "lat,lon"))
        var at: LatLon

        @Option(parsing: .unconditional, help: ArgumentHelp("Where the camera looks, degrees clockwise from true north.", valueName: "degrees"))
        var heading: Double

        @Option(parsing: .unconditional, help: ArgumentHelp("Degrees the camera looks up (positive: boxes move down the screen).", valueName: "degrees"))
        var pitch: Double = 0

        @Option(help: ArgumentHelp("The camera's field of view across and down, degrees, e.g. 60,45.", valueName: "h,v"))
        var fov: String

        @Option(help: ArgumentHelp("The screen in pixels, e.g. 1280x720.", valueName: "wxh"))
        var screen: String

        @Option(help: ArgumentHelp("The annotation box in pixels.", valueName: "wxh"))
        var box: String = "100x40"

        @Option(help: ArgumentHelp("A GeoJSON file of Point POIs (properties.id, name, priority).", valueName: "file"))
        var pois: String?

        @Option(help: ArgumentHelp("A regions file: its circles' centres and polygons' centroids as POIs.", valueName: "file"))
        var regions: String?

        @Option(help: "With --regions: the CRS of its coordinates when the file does not say (e.g. EPSG:3763).")
        var crs: String?

        @Option(help: ArgumentHelp("Vertical offset by distance: none, manual:T:M (T metres, M px per metre) or automatic.", valueName: "mode"))
        var offset: String = "none"

        @Option(name: .customLong("max-distance"), help: ArgumentHelp("Only POIs within this many metres are active (0: no limit).", valueName: "metres"))
        var maxDistance: Double = 0

        @Option(name: .customLong("max-visible"), help: ArgumentHelp("How many POIs are active: the first by priority, then the nearest.", valueName: "n"))
        var maxVisible: Int = 100

        @Option(name: .customLong("max-levels"), help: ArgumentHelp("Hide a box that would be lifted more than this many times (default: no limit).", valueName: "n"))
        var maxLevels: Int?

        @Flag(help: "Keep boxes on the screen: start them within it, hide one that would be lifted over the top.")
        var clamp = false

        @Option(help: ArgumentHelp("linear (HDAugmentedReality's pixels per degree) or pinhole (a real camera's tangent).", valueName: "mapping"))
        var projection: String = "linear"

        @Option(help: ArgumentHelp("Also draw the screen as an SVG picture to this file.", valueName: "file"))
        var svg: String?

        /// "A,B" or "AxB" as two positive numbers.
        static func pair(_ s: String, separator: Character) -> (Double, Double)? {
            let parts = Substring(s).split(separator: separator, omittingEmptySubsequences: false)
            guard parts.count == 2, let a = Double(parts[0].trimmingWhitespace()), let b = Double(parts[1].trimmingWhitespace()) else { return nil }
            return (a, b)
        }

        /// The camera and options, or every problem with the arguments.
        func settings() throws -> (Camera, LayoutOptions) {
            var problems: [String] = []
            let f = Self.pair(fov, separator: ",")
            if f == nil { problems.append("--fov takes H,V in degrees, e.g. 60,45 (got '\(fov)')") }
            let s = Self.pair(screen.lowercased(), separator: "x")
            if s == nil { problems.append("--screen takes WxH in pixels, e.g. 1280x720 (got '\(screen)')") }
            let b = Self.pair(box.lowercased(), separator: "x")
            if b == nil { problems.append("--box takes WxH in pixels, e.g. 100x40 (got '\(box)')") }
            let o = DistanceOffset(written: offset)
            if o == nil { problems.append("--offset is \(DistanceOffset.writtenForms), e.g. manual:50:0.2 (got '\(offset)')") }
            let p = Projection(rawValue: projection)
            if p == nil { problems.append("--projection is linear or pinhole (got '\(projection)')") }
            let camera = Camera(screenWidth: s?.0 ?? 1, screenHeight: s?.1 ?? 1, horizontalFOV: f?.0 ?? 60, verticalFOV: f?.1 ?? 45,
                                heading: heading, pitch: pitch, projection: p ?? .linear)
            let options = LayoutOptions(boxWidth: b?.0 ?? 100, boxHeight: b?.1 ?? 40, offset: o ?? .none, maxDistance: maxDistance,
                                        maxVisible: maxVisible, maxLevels: maxLevels, clampToScreen: clamp)
            // Range problems only for what parsed, so each mistake is named once.
            for problem in camera.problems + options.problems {
                let option: String
                switch problem.setting {
                case .screen: guard s != nil else { continue }; option = "--screen"
                case .fieldOfView: guard f != nil else { continue }; option = "--fov"
                case .heading: option = "--heading"
                case .pitch: option = "--pitch"
                case .box: guard b != nil else { continue }; option = "--box"
                case .sizes: continue  // boxes of their own size come only from a view, over the socket or HTTP
                case .offset: option = "--offset"
                case .maxDistance: option = "--max-distance"
                case .maxVisible: option = "--max-visible"
                case .maxLevels: option = "--max-levels"
                }
                problems.append("\(option): \(problem.message)")
            }
            if !problems.isEmpty { throw ValidationError(problems.joined(separator: "\n")) }
            return (camera, options)
        }

        func validate() throws {
            if (pois == nil) == (regions == nil) {
                throw ValidationError("give the POIs with exactly one of --pois FILE (GeoJSON Points) or --regions FILE (a regions file)")
            }
            if crs != nil && regions == nil { throw ValidationError("--crs is for --regions files; a POI file is WGS84") }
            _ = try settings()
        }

        func loadPOIs() throws -> [POI] {
            if let regions {
                return try Loader.regions(regions, crs: crs, requirements: .geometryOnly).regions.map(POI.init(region:))
            }
            let path = pois!
            let bytes = try Loader.bytes(path, what: "POI file")
            return try POIFile.parse(bytes, file: path)
        }

        func run() throws {
            let (camera, options) = try settings()
            let pois = try loadPOIs()
            let layout = StackingProjector(camera: camera, options: options).layout(observer: at.coordinate, pois: pois)
            let out = ByteWriter(fd: 1)
            for item in layout.items {
                out.write { Self.line(item, into: &$0) }
            }
            out.flush()
            if let svg {
                let source = regions ?? self.pois ?? ""
                let picture = LayoutPicture(camera: camera, options: options, layout: layout, pois: pois,
                                            title: "\(source == "-" ? "standard input" : source) from \(fixed(at.coordinate.latitude, 6)),\(fixed(at.coordinate.longitude, 6))")
                try WholeFile.write(picture.render(), to: svg, what: "picture")
            }
            var summary = "layout: \(layout.poiCount) POI\(layout.poiCount == 1 ? "" : "s"), \(layout.items.count) active"
            var left: [String] = []
            if layout.beyondMaxDistance > 0 { left.append("\(layout.beyondMaxDistance) beyond --max-distance") }
            if layout.beyondMaxVisible > 0 { left.append("\(layout.beyondMaxVisible) beyond --max-visible") }
            if !left.isEmpty { summary += " (" + left.joined(separator: ", ") + ")" }
            summary += "; \(layout.visibleCount) on screen, \(layout.nearViewCount) in the near view, \(layout.hiddenCount) hidden"
            let levels = layout.items.map(\.level).max() ?? 0
            summary += ", highest level \(levels)\n"
            let err = ByteWriter(fd: 2)
            err.write(summary)
            err.flush()
        }

        static func line(_ item: LayoutItem, into out: inout [UInt8]) {
            item.appendJSON(to: &out)
            out.append(0x0A)
        }
    }
}
