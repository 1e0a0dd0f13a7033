import Foundation
import Testing

/// The repository's Data folder, found from this source file.
let dataDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Data")

@Suite struct CheckCommand {
    @Test func validFileGivesASummary() throws {
        let r = try CLI.run(["check", dataDirectory.appendingPathComponent("regions.geojson").path])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stdout.contains("6 regions, valid"))
        #expect(r.stdout.contains("plant         3"))
        #expect(r.stdout.contains("1 polygon (1 hole), 5 circles"))
        #expect(r.stdout.contains("bounding box  lat 40.09"))
    }

    @Test func nationalCRSFile() throws {
        let r = try CLI.run(["check", dataDirectory.appendingPathComponent("regions-pt-tm06.geojson").path])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stdout.contains("lon -8.24"), "transformed to WGS84 near Lousã: \(r.stdout)")
    }

    @Test func invalidFileListsEveryErrorAndExitsOne() throws {
        let bad = """
        {"type":"FeatureCollection","features":[
         {"type":"Feature","properties":{"id":"a","kind":"moss"},"geometry":{"type":"Point","coordinates":[-8.24,40.1]}},
         {"type":"Feature","properties":{"id":"a","kind":"album","radius_m":-3},"geometry":{"type":"Point","coordinates":[-8.24,40.1]}}
        ]}
        """
        let file = try CLI.tempLog(bad)
        defer { try? FileManager.default.removeItem(at: file) }
        let r = try CLI.run(["check", file.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("feature 0 (id \"a\"): unknown kind \"moss\""))
        #expect(r.stderr.contains("feature 1 (id \"a\"): radius_m must be from 1 to 1000000 metres, not -3"))
        #expect(r.stderr.contains("feature 1 (id \"a\"): duplicate id"))
        #expect(r.stderr.contains(file.path))
    }
}

@Suite struct WhereCommand {
    let regions = dataDirectory.appendingPathComponent("regions.geojson").path

    func json(_ line: Substring) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func pointInsideACircleAndAPolygon() throws {
        // 330 m east, 320 m north of the walk's start: the viewpoint album inside the area.
        let r = try CLI.run(["where", "--regions", regions, "--at", "40.1028819,-8.2361258"])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        let o = try json(Substring(r.stdout.split(separator: "\n")[0]))
        #expect(o["inside"] as? [String] == ["album-miradouro", "ref-encosta"])
        let nearest = try #require(o["nearest"] as? [String: Any])
        #expect(nearest["id"] as? String == "ref-encosta")
        #expect((nearest["distance_m"] as? Double ?? 0) > 0)
    }

    @Test func pointsFromAFile() throws {
        let points = try CLI.tempLog("lat,lon\n40.1000,-8.2400\n40.1020,-8.2365\n\n40.1041427,-8.2385912\n")
        defer { try? FileManager.default.removeItem(at: points) }
        let r = try CLI.run(["where", "--regions", regions, "--points", points.path])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(try json(lines[1])["inside"] as? [String] == [], "in the area's hole")
        #expect(try json(lines[2])["inside"] as? [String] == ["plant-carvalho"])
    }

    @Test func badInputIsAClearError() throws {
        let points = try CLI.tempLog("40.1,-8.24\nnorth,west\n")
        defer { try? FileManager.default.removeItem(at: points) }
        let r = try CLI.run(["where", "--regions", regions, "--points", points.path])
        #expect(r.status != 0)
        #expect(r.stderr.contains(":2: expected LAT,LON"))
        let neither = try CLI.run(["where", "--regions", regions])
        #expect(neither.status != 0)
        #expect(neither.stderr.contains("--at") && neither.stderr.contains("--points"))
        let missing = try CLI.run(["where", "--regions", "/nonexistent.geojson", "--at", "1,2"])
        #expect(missing.status != 0 && missing.stderr.contains("cannot open regions file '/nonexistent.geojson'"))
    }
}

@Suite struct ReplayWithRegions {
    /// The sample walk (Data/tools/make_walk.py) against the sample regions (make_regions.py), at
    /// the defaults (margin 5 m + the fix's error): every event, in order.
    static let expected: [(time: String, type: String, region: String, transit: Bool)] = [
        // Into the reforestation area (polygon with a hole) and a minute's dwell in it.
        ("09:04:46.000", "enter", "ref-encosta", false),
        ("09:04:46.000", "planting_allowed", "ref-encosta", false),
        ("09:05:46.000", "dwell", "ref-encosta", false),
        // The viewpoint album, inside the area: the long stop.
        ("09:07:13.000", "enter", "album-miradouro", false),
        ("09:07:13.000", "capture_allowed", "album-miradouro", false),
        ("09:08:13.000", "dwell", "album-miradouro", false),
        ("09:11:25.000", "exit", "album-miradouro", false),
        ("09:11:25.000", "capture_locked", "album-miradouro", false),
        ("09:11:27.000", "exit", "ref-encosta", false),
        ("09:11:27.000", "planting_forbidden", "ref-encosta", false),
        // The 35 s outage ends at 09:12:15 inside the strawberry tree's circle: not due, no alert.
        ("09:12:15.000", "enter", "plant-medronheiro", false),
        ("09:12:26.000", "exit", "plant-medronheiro", false),
        // The young oak is due (7 days, last watered 04-20): one alert.
        ("09:13:39.000", "enter", "plant-carvalho", false),
        ("09:13:39.000", "water_due", "plant-carvalho", false),
        ("09:13:53.000", "exit", "plant-carvalho", false),
        // The dash at 6 m/s through the seedling's 9 m circle: each fix only 6 m in, the path 9 m.
        ("09:13:57.000", "enter", "plant-sobreiro", true),
        ("09:13:57.000", "water_due", "plant-sobreiro", true),
        ("09:13:58.000", "exit", "plant-sobreiro", true),
        // The area drawn in EPSG:3763, and the stream album overlapping it.
        ("09:15:18.000", "enter", "ref-vale", false),
        ("09:15:18.000", "planting_allowed", "ref-vale", false),
        ("09:16:18.000", "dwell", "ref-vale", false),
        ("09:17:01.000", "enter", "album-ribeira", false),
        ("09:17:01.000", "capture_allowed", "album-ribeira", false),
        ("09:18:01.000", "dwell", "album-ribeira", false),
        ("09:18:41.000", "exit", "ref-vale", false),
        ("09:18:41.000", "planting_forbidden", "ref-vale", false),
        ("09:21:13.000", "exit", "album-ribeira", false),
        ("09:21:13.000", "capture_locked", "album-ribeira", false),
    ]

    @Test func eventsOfTheSampleWalk() throws {
        let r = try CLI.run(["replay", dataDirectory.appendingPathComponent("walk.nmea").path,
                             "--regions", dataDirectory.appendingPathComponent("regions.geojson").path,
                             "--regions", dataDirectory.appendingPathComponent("regions-pt-tm06.geojson").path])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        let events = try r.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let got = events.map { e in
            let time = (e["time"] as? String ?? "?")
            return "\(time.hasPrefix("2026-05-01T") ? String(time.dropFirst(11).prefix(12)) : time) \(e["type"] as? String ?? "?") \(e["region"] as? String ?? "?")\(e["transit"] as? Bool == true ? " transit" : "")"
        }
        let want = Self.expected.map { "\($0.time) \($0.type) \($0.region)\($0.transit ? " transit" : "")" }
        #expect(got == want)
        // Plain enters and exits carry their evidence: |distance| at least 5 m + the fix's error.
        for e in events where !(e["transit"] as? Bool ?? false) {
            guard let type = e["type"] as? String, type == "enter" || type == "exit",
                  let d = e["distance_m"] as? Double, let err = e["error_m"] as? Double else { continue }
            #expect(type == "enter" ? d >= 5 + err - 0.01 : d <= -(5 + err) + 0.01, "\(e)")
        }
        // The pass: both ends inside the circle by less than the margin, the path deeper.
        let pass = events.filter { $0["region"] as? String == "plant-sobreiro" }
        for e in pass {
            let d = try #require(e["distance_m"] as? Double), err = try #require(e["error_m"] as? Double)
            #expect(d > 0 && d < 5 + err && 9 >= 5 + err, "\(e)")
        }
        #expect(r.stderr.contains("1340 fixes, 1305 used, dropped: no_fix 35"))
        #expect(r.stderr.contains("enter 7, exit 7"))
    }

    @Test func theMapOfTheSampleWalk() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("treeline-map-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let svg = dir.appendingPathComponent("walk.svg")
        let r = try CLI.run(["replay", dataDirectory.appendingPathComponent("walk.nmea").path,
                             "--regions", dataDirectory.appendingPathComponent("regions.geojson").path,
                             "--regions", dataDirectory.appendingPathComponent("regions-pt-tm06.geojson").path,
                             "--svg", svg.path])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        let text = try String(contentsOf: svg, encoding: .utf8)
        #expect(text.hasPrefix("<?xml") || text.hasPrefix("<svg"))
        #expect(text.hasSuffix("</svg>\n") || text.hasSuffix("</svg>"))
        for name in ["Encosta do Castelo", "Vale da Ribeira (PT-TM06)", "Cork oak seedling", "Viewpoint", "100 m"] {
            #expect(text.contains(name), "\(name) on the map")
        }
        #expect(text.contains("09:13:57 enter Cork oak seedling"), "the pass is labelled with its time")
        #expect(text.contains("id=\"track-gaps\""), "the outage is drawn as a gap")
        // Nothing left behind but the map; a map without --regions, or into a missing directory, is refused.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["walk.svg"])
        let alone = try CLI.run(["replay", dataDirectory.appendingPathComponent("walk.nmea").path, "--svg", svg.path])
        #expect(alone.status != 0 && alone.stderr.contains("give --regions too"))
        let nowhere = try CLI.run(["replay", dataDirectory.appendingPathComponent("walk.nmea").path,
                                   "--regions", dataDirectory.appendingPathComponent("regions.geojson").path,
                                   "--svg", "/nonexistent/dir/walk.svg"])
        #expect(nowhere.status != 0 && nowhere.stderr.contains("cannot write the map to /nonexistent/dir/walk.svg"))
    }

    @Test func monitorOptionsOverrideTheDefaults() throws {
        let walk = dataDirectory.appendingPathComponent("walk.nmea").path
        let regions = dataDirectory.appendingPathComponent("regions.geojson").path
        let noDwell = try CLI.run(["replay", walk, "--regions", regions, "--dwell-s", "0"])
        #expect(noDwell.status == 0 && !noDwell.stdout.contains("\"dwell\""))
        let initial = try CLI.run(["replay", walk, "--regions", regions, "--initial-enter", "--max-error-m", "1"])
        #expect(initial.stderr.contains("inaccurate"), "a 1 m limit drops every fix of this walk")
        let both = try CLI.run(["replay", walk, "--regions", regions, "--fixes"])
        #expect(both.status != 0 && both.stderr.contains("give one"))
    }
}

@Suite struct ReplayWithConfig {
    @Test func theConfigsMonitorSectionAppliesAndOptionsOverrideIt() throws {
        let walk = dataDirectory.appendingPathComponent("walk.nmea").path
        let regions = dataDirectory.appendingPathComponent("regions.geojson").path
        let config = try CLI.tempLog("monitor:\n  dwell_s: 0\n")
        defer { try? FileManager.default.removeItem(at: config) }
        let quiet = try CLI.run(["replay", walk, "--regions", regions, "--config", config.path])
        #expect(quiet.status == 0 && !quiet.stdout.contains("\"dwell\""), "dwell_s: 0 from the file")
        let again = try CLI.run(["replay", walk, "--regions", regions, "--config", config.path, "--dwell-s", "60"])
        #expect(again.stdout.contains("\"dwell\""), "the option overrides the file")
        let typo = try CLI.tempLog("monitor:\n  dwel_s: 0\n")
        defer { try? FileManager.default.removeItem(at: typo) }
        let bad = try CLI.run(["replay", walk, "--regions", regions, "--config", typo.path])
        #expect(bad.status != 0 && bad.stderr.contains("did you mean dwell_s?"))
    }
}

@Suite struct ProgressBarOnlyOnATerminal {
    @Test func aBigLogThroughAPipeGetsNoProgressBar() throws {
        let walk = try Data(contentsOf: dataDirectory.appendingPathComponent("walk.nmea"))
        var big = Data()
        while big.count < 9 << 20 { big.append(walk) }  // over the bar's 8 MiB threshold
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("treeline-big-\(UUID().uuidString).nmea")
        try big.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let r = try CLI.run(["replay", file.path, "--regions", dataDirectory.appendingPathComponent("regions.geojson").path])
        #expect(r.status == 0)
        #expect(!r.stderr.contains("\r") && !r.stderr.contains("[#"), "stderr is a pipe here, not a terminal")
        #expect(r.stderr.contains(" fixes, "))
    }
}
