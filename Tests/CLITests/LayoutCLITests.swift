import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Geo
import Testing
import Regions

/// A GeoJSON POI file from (id, name, lat, lon) rows.
func poiFile(_ rows: [(String, String, Double, Double)], priority: [String: Double] = [:]) throws -> URL {
    let features = rows.map { id, name, lat, lon in
        let p = priority[id].map { ",\"priority\":\($0)" } ?? ""
        return "{\"type\":\"Feature\",\"properties\":{\"id\":\"\(id)\",\"name\":\"\(name)\"\(p)},\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(lon),\(lat)]}}"
    }
    return try CLI.tempLog("{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n") + "\n]}")
}

/// The issue's camera: observer 45.0, 18.0, screen 360×640, fov 60,80 (box 100×40 by default).
let issueCamera = ["--at", "45.0,18.0", "--fov", "60,80", "--screen", "360x640"]

/// Runs `treeline layout` and reads its JSON lines by id.
func layoutLines(_ arguments: [String]) throws -> (items: [String: [String: Any]], ordered: [String], stderr: String) {
    let r = try CLI.run(["layout"] + arguments)
    #expect(r.status == 0, "stderr: \(r.stderr)")
    var items: [String: [String: Any]] = [:], ordered: [String] = []
    for line in r.stdout.split(separator: "\n") {
        let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let id = try #require(o["id"] as? String)
        items[id] = o
        ordered.append(id)
    }
    return (items, ordered, r.stderr)
}

func number(_ o: [String: Any]?, _ key: String) -> Double { (o?[key] as? NSNumber)?.doubleValue ?? .nan }

@Suite struct LayoutCommand {
    let scenario1POIs = [("A", "Oak stand", 45.003597, 18.0), ("B", "Spring album", 45.00507, 18.00261), ("C", "Old chestnut", 45.006761, 17.99652),
                     ("E", "Ridge planting", 45.006359, 18.008994), ("D", "East gate", 45.0, 18.006359), ("F", "Nursery", 44.997302, 18.0)]

    /// The issue's scenario 1 through the real binary: the JSON fields and the summary.
    @Test func scenario1() throws {
        let file = try poiFile(scenario1POIs)
        defer { try? FileManager.default.removeItem(at: file) }
        let (items, ordered, stderr) = try layoutLines(issueCamera + ["--heading", "0", "--pois", file.path])
        #expect(ordered == ["F", "A", "D", "B", "C", "E"], "nearest first")
        for (id, x) in [("A", 130.0), ("B", 250), ("C", 10), ("E", 400)] {
            #expect(abs(number(items[id], "x") - x) <= 1, "\(id) x \(number(items[id], "x"))")
            #expect(abs(number(items[id], "y") - 332) <= 1)
            #expect(items[id]?["level"] as? Int == 0)
        }
        for id in ["A", "B", "C"] { #expect(items[id]?["visible"] as? Bool == true && items[id]?["near"] as? Bool == true) }
        #expect(items["E"]?["visible"] as? Bool == false && items["E"]?["near"] as? Bool == true)
        for id in ["D", "F"] { #expect(items[id]?["near"] as? Bool == false && items[id]?["visible"] as? Bool == false) }
        #expect(abs(number(items["A"], "distance") - 399.74) < 0.01 && abs(number(items["B"], "bearing") - 20.0625) < 0.001)
        #expect(Set(items["A"]!.keys) == ["id", "distance", "bearing", "x", "y", "level", "visible", "near", "hidden"])
        #expect(stderr.contains("6 POIs, 6 active; 3 on screen, 4 in the near view, 0 hidden"))
    }

    /// Scenario 2: the manual offset and stacking; heading and pitch shift every box.
    @Test func scenario2ManualOffset() throws {
        let file = try poiFile([("N1", "n1", 45.008993, 18.0), ("N2", "n2", 45.001799, 18.0), ("N3", "n3", 45.012591, 18.0), ("N4", "n4", 45.005396, 18.0)])
        defer { try? FileManager.default.removeItem(at: file) }
        let straight = try layoutLines(issueCamera + ["--heading", "0", "--offset", "manual:0:0.05", "--pois", file.path]).items
        let turned = try layoutLines(issueCamera + ["--heading", "10", "--pitch", "10", "--offset", "manual:0:0.05", "--pois", file.path]).items
        for (id, y) in [("N2", 322.0), ("N4", 277), ("N1", 232), ("N3", 187)] {
            #expect(abs(number(straight[id], "y") - y) <= 1, "\(id) y \(number(straight[id], "y"))")
            #expect(abs(number(turned[id], "y") - (y + 80)) <= 1)
            #expect(abs(number(turned[id], "x") - 70) <= 1)
        }
    }

    /// Regions: a circle gives its centre, a polygon its area centroid, with the file's names.
    @Test func regionsAsPOIs() throws {
        let path = dataDirectory.appendingPathComponent("regions.geojson").path
        let observer = Coordinate(latitude: 40.1005, longitude: -8.2405)
        let (items, _, stderr) = try layoutLines(["--at", "40.1005,-8.2405", "--heading", "45", "--fov", "60,45", "--screen", "1280x720",
                                                   "--regions", path])
        let regions = try RegionFile.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))), file: path)
        #expect(Set(items.keys) == Set(regions.map(\.id)))
        for r in regions {
            let expected = Geodesic.wgs84.distance(observer, r.shape.centroid)
            #expect(abs(number(items[r.id], "distance") - expected) < 0.006, "\(r.id)")
        }
        #expect(regions.contains { if case .polygons = $0.shape { return true } else { return false } }, "the file has a polygon")
        #expect(stderr.contains("6 POIs, 6 active"))
    }

    @Test func priorityCapsAndClamping() throws {
        // Five POIs straight ahead; the farthest has priority.
        let rows = (0..<5).map { ("p\($0)", "p\($0)", 45.001 + Double($0) * 0.0005, 18.0) }
        let file = try poiFile(rows, priority: ["p4": 1])
        defer { try? FileManager.default.removeItem(at: file) }
        let capped = try layoutLines(issueCamera + ["--heading", "0", "--max-levels", "1", "--pois", file.path])
        #expect(capped.ordered.first == "p4", "priority before distance")
        #expect(capped.items["p4"]?["level"] as? Int == 0, "placed first, so not lifted")
        #expect(capped.items["p0"]?["level"] as? Int == 1)
        #expect(capped.items.values.filter { $0["hidden"] as? Bool == true }.count == 3)
        #expect(capped.stderr.contains("3 hidden"))
        let one = try layoutLines(issueCamera + ["--heading", "0", "--max-visible", "1", "--pois", file.path])
        #expect(one.ordered == ["p4"] && one.stderr.contains("4 beyond --max-visible"))
        // Looking far down, the boxes would start below the screen; clamped they start on it.
        let low = try layoutLines(issueCamera + ["--heading", "0", "--pitch", "45", "--clamp", "--max-levels", "0", "--pois", file.path])
        #expect(abs(number(low.items["p4"], "y") - 600) < 1e-6 && low.items["p4"]?["visible"] as? Bool == true)
    }

    @Test func pinholeGivesNoPlaceBehind() throws {
        let file = try poiFile(scenario1POIs)
        defer { try? FileManager.default.removeItem(at: file) }
        let r = try CLI.run(["layout"] + issueCamera + ["--heading", "0", "--projection", "pinhole", "--pois", file.path])
        #expect(r.status == 0)
        #expect(r.stdout.contains("{\"id\":\"F\",\"distance\":299.83,\"bearing\":180.0000,\"x\":null,"))
        let items = try layoutLines(issueCamera + ["--heading", "0", "--projection", "pinhole", "--pois", file.path]).items
        let bearing = number(items["B"], "bearing") * Double.pi / 180
        #expect(abs(number(items["B"], "x") - (130 + 180 / tan(Double.pi / 6) * tan(bearing))) < 0.006, "a real camera's tangent")
        #expect(abs(number(items["B"], "x") - 243.87) < 0.01)
    }

    @Test func svgPictureIsWritten() throws {
        let file = try poiFile(scenario1POIs)
        let svg = FileManager.default.temporaryDirectory.appendingPathComponent("treeline-layout-\(UUID().uuidString).svg")
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: svg)
        }
        let r = try CLI.run(["layout"] + issueCamera + ["--heading", "0", "--pois", file.path, "--svg", svg.path])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        let data = try Data(contentsOf: svg)
        #expect(XMLParser(data: data).parse(), "well-formed")
        let text = String(decoding: data, as: UTF8.self)
        for s in ["Oak stand", "400 m", "Spring album", "600 m", "Old chestnut", "800 m", "Ridge planting 1 km"] {
            #expect(text.contains(s), "\(s)")
        }
        #expect(!text.contains("Nursery"), "behind the observer: not drawn")
        let bad = try CLI.run(["layout"] + issueCamera + ["--heading", "0", "--pois", file.path, "--svg", "/nonexistent-dir/x.svg"])
        #expect(bad.status == 1 && bad.stderr.contains("cannot write the picture to /nonexistent-dir/x.svg"))
    }

    @Test func badInputIsAClearError() throws {
        let file = try poiFile(scenario1POIs)
        defer { try? FileManager.default.removeItem(at: file) }
        let base = ["--at", "45.0,18.0", "--screen", "360x640", "--heading", "0"]
        let cases: [([String], String)] = [
            (["--fov", "60", "--pois", file.path], "--fov takes H,V"),
            (["--fov", "60,80", "--pois", file.path, "--offset", "manual:5"], "--offset is none, automatic or manual:T:M"),
            (["--fov", "60,80", "--pois", file.path, "--projection", "fisheye"], "--projection is linear or pinhole"),
            (["--fov", "60,80", "--pois", file.path, "--max-visible", "0"], "--max-visible: the number of active POIs must be 1 to 10000"),
            (["--fov", "60,80", "--pois", file.path, "--max-visible", "10001"], "--max-visible: the number of active POIs must be 1 to 10000"),
            (["--fov", "1e-300,80", "--pois", file.path], "--fov: each field of view must be 1 to 179 degrees"),
            (["--fov", "60,80", "--pois", file.path, "--pitch", "95"], "--pitch: the pitch must be between -90 and 90"),
            (["--fov", "60,80"], "exactly one of --pois FILE"),
            (["--fov", "60,80", "--pois", file.path, "--regions", file.path], "exactly one of --pois FILE"),
            (["--fov", "60,80", "--pois", "/nonexistent.geojson"], "cannot open POI file '/nonexistent.geojson'"),
        ]
        for (arguments, message) in cases {
            let r = try CLI.run(["layout"] + base + arguments)
            #expect(r.status != 0 && r.stderr.contains(message), "\(arguments): \(r.stderr)")
        }
        let bad = try CLI.tempLog("""
        {"type":"FeatureCollection","features":[
         {"type":"Feature","properties":{"id":"a"},"geometry":{"type":"LineString","coordinates":[[18,45],[18.1,45]]}},
         {"type":"Feature","properties":{"id":"a","priority":"high"},"geometry":{"type":"Point","coordinates":[18,95]}}
        ]}
        """)
        defer { try? FileManager.default.removeItem(at: bad) }
        let r = try CLI.run(["layout"] + issueCamera + ["--heading", "0", "--pois", bad.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("\(bad.path): feature 0 (id \"a\"): geometry type LineString is not a POI"))
        #expect(r.stderr.contains("feature 1 (id \"a\"): duplicate id"))
        #expect(r.stderr.contains("feature 1 (id \"a\"): properties.priority must be a number"))
        #expect(r.stderr.contains("feature 1 (id \"a\"): coordinates out of range"))
    }

    @Test func helpExplainsTheOptions() throws {
        let r = try CLI.run(["layout", "--help"])
        #expect(r.status == 0)
        for s in ["--at <lat,lon>", "--heading", "--pitch", "--fov <h,v>", "--screen <wxh>", "--box", "--pois", "--regions", "--offset",
                  "manual:T:M", "--max-distance", "--max-visible", "--max-levels", "--clamp", "--projection", "pinhole", "--svg",
                  "priority", "\"level\""] {
            #expect(r.stdout.contains(s), "\(s)")
        }
        let top = try CLI.run(["--help"])
        #expect(top.stdout.contains("layout"))
    }
}
