import ArgumentParser
import Geo
import Loading
import JSON
import Regions

/// `LAT,LON` in decimal degrees.
struct LatLon: ExpressibleByArgument {
    var coordinate: Coordinate

    init?(argument: String) {
        guard let c = Self.parse(Substring(argument)) else { return nil }
        coordinate = c
    }

    static func parse(_ s: Substring) -> Coordinate? {
        let parts = s.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let lat = Double(parts[0].trimmingWhitespace()), let lon = Double(parts[1].trimmingWhitespace()),
              abs(lat) <= 90, abs(lon) <= 180 else { return nil }
        return Coordinate(latitude: lat, longitude: lon)
    }

    static var defaultValueDescription: String { "LAT,LON" }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s.removeLast() }
        return s
    }
}


extension Treeline {
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a regions file: a summary when it is valid, every error when not.",
            discussion: """
            A regions file is a GeoJSON FeatureCollection of fences: Polygon, MultiPolygon, or Point
            with properties.radius_m; each with properties.id (unique), kind (reforestation, plant,
            album) and name. Plants need interval_days (1-365) and last_watered (ISO 8601); reforestation
            areas a species list; albums without radius_m get 150 m, plants 30 m. A top-level
            "crs": "EPSG:3763" (or --crs) has PROJ transform the coordinates to WGS84.

            Prints the counts by kind and the bounding box, exit 0; or every problem, each naming the
            file, the feature's index and id and the reason, exit 1.
            """
        )

        @Argument(help: "The regions file (GeoJSON), or '-' for standard input.")
        var file: String

        @Option(help: "The CRS of the coordinates when the file does not say (e.g. EPSG:3763).")
        var crs: String?

        func run() throws {
            let set = try Loader.regions(file, crs: crs)
            var byKind: [RegionKind: Int] = [:]
            var circles = 0, polygons = 0, holes = 0
            var minLat = 90.0, maxLat = -90.0, minLon = 180.0, maxLon = -180.0
            for (r, regionBoxes) in zip(set.regions, set.boxes) {
                byKind[r.kind, default: 0] += 1
                switch r.shape {
                case .circle: circles += 1
                case let .polygons(parts):
                    polygons += 1
                    holes += parts.reduce(0) { $0 + $1.count - 1 }
                }
                for b in regionBoxes {
                    minLat = min(minLat, b.minLat); maxLat = max(maxLat, b.maxLat)
                    minLon = min(minLon, b.minLon); maxLon = max(maxLon, b.maxLon)
                }
            }
            var out = "\(file): \(set.count) region\(set.count == 1 ? "" : "s"), valid\n"
            for kind in RegionKind.allCases {
                out += "  \(kind.rawValue.padding(14))\(byKind[kind] ?? 0)\n"
            }
            out += "  shapes        \(polygons) polygon\(polygons == 1 ? "" : "s") (\(holes) hole\(holes == 1 ? "" : "s")), \(circles) circle\(circles == 1 ? "" : "s")\n"
            if set.count > 0 {
                out += "  bounding box  lat \(fixed(minLat, 6))…\(fixed(maxLat, 6)), lon \(fixed(minLon, 6))…\(fixed(maxLon, 6))\n"
            }
            print(out, terminator: "")
        }
    }
}

extension Treeline {
    struct Where: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Which regions contain a point, and the nearest region boundary.",
            discussion: """
            One JSON line per point:
              {"lat":…,"lon":…,"inside":[ids, sorted],"nearest":{"id":…,"distance_m":…}}
            nearest is the region whose boundary is closest; distance_m is the signed geodesic
            distance to that boundary in metres, positive inside the region, negative outside.

            Examples:
              treeline where --regions Data/regions.geojson --at 40.1012,-8.2391
              treeline where --regions Data/regions.geojson --points points.csv
            """
        )

        @Option(help: "The regions file (GeoJSON).")
        var regions: String

        @Option(help: "The CRS of the regions' coordinates when the file does not say (e.g. EPSG:3763).")
        var crs: String?

        @Option(help: "One point, LAT,LON in decimal degrees (WGS84).")
        var at: LatLon?

        @Option(help: "A file of LAT,LON lines, or '-' for standard input.")
        var points: String?

        @OptionGroup var prepared: StoreOptions

        func validate() throws {
            if (at == nil) == (points == nil) { throw ValidationError("give exactly one of --at LAT,LON or --points FILE") }
        }

        func run() throws {
            if let at {
                // One point needs each fence once: the file is read a block of fences at a time,
                // each block asked and let go (`PointQuery`); nothing is written unless the whole
                // file is valid.
                var query = PointQuery(at.coordinate)
                try Loader.forEachRegionBlock(regions, crs: crs) { query.add($0) }
                let out = ByteWriter(fd: 1)
                defer { out.flush() }
                out.write { Self.line(query.point, inside: query.inside, nearest: query.nearest, into: &$0) }
                return
            }
            let set = try Loader.regions([regions], crs: crs, store: prepared.store)
            let out = ByteWriter(fd: 1)
            defer { out.flush() }
            let bytes = try Loader.bytes(points!, what: "points file")
            var lineNumber = 0
            for raw in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
                lineNumber += 1
                let text = Substring(decoding: raw, as: UTF8.self).trimmingWhitespace()
                if text.isEmpty || text.hasPrefix("#") { continue }
                guard let c = LatLon.parse(text) else {
                    if lineNumber == 1, text.lowercased().hasPrefix("lat") { continue }  // a header line
                    out.flush()
                    throw UserError("\(points!):\(lineNumber): expected LAT,LON in decimal degrees, found \"\(text)\"")
                }
                out.write { Self.line(set, c, into: &$0) }
            }
        }

        static func line(_ set: RegionSet, _ c: Coordinate, into out: inout [UInt8]) {
            let nearest = set.nearestBoundary(c).map { (id: set.regions[$0.index].id, signedDistance: $0.signedDistance) }
            line(c, inside: set.containing(c).map { set.regions[$0].id }, nearest: nearest, into: &out)
        }

        static func line(_ c: Coordinate, inside: [String], nearest: (id: String, signedDistance: Double)?, into out: inout [UInt8]) {
            out.append(contentsOf: "{\"lat\":".utf8)
            JSONBytes.appendFixed(c.latitude, decimals: 7, to: &out)
            out.append(contentsOf: ",\"lon\":".utf8)
            JSONBytes.appendFixed(c.longitude, decimals: 7, to: &out)
            out.append(contentsOf: ",\"inside\":[".utf8)
            for (k, id) in inside.sorted().enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                JSONBytes.appendString(id, to: &out)
            }
            out.append(contentsOf: "],\"nearest\":".utf8)
            if let n = nearest {
                out.append(contentsOf: "{\"id\":".utf8)
                JSONBytes.appendString(n.id, to: &out)
                out.append(contentsOf: ",\"distance_m\":".utf8)
                JSONBytes.appendFixed(n.signedDistance, decimals: 2, to: &out)
                out.append(UInt8(ascii: "}"))
            } else {
                out.append(contentsOf: "null".utf8)
            }
            out.append(contentsOf: "}\n".utf8)
        }
    }
}

/// `v` with exactly `decimals` decimals, as the daemon writes it: `NumberText.fixed`.
func fixed(_ v: Double, _ decimals: Int) -> String { NumberText.fixed(v, decimals: decimals) }

extension String {
    func padding(_ width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
}
