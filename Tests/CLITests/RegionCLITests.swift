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
        #expect(r.stderr.contains("feature 1 (id \"a\"): radius_m must be more than 0"))
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
    @Test func eventsOfTheSampleWalk() throws {
        let r = try CLI.run(["replay", dataDirectory.appendingPathComponent("walk.nmea").path,
                             "--regions", dataDirectory.appendingPathComponent("regions.geojson").path,
                             "--regions", dataDirectory.appendingPathComponent("regions-pt-tm06.geojson").path])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        let events = try r.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let types = events.map { "\($0["type"] as? String ?? "?") \($0["region"] as? String ?? "?")" }
        // Each kind entered and left, the due oak alerting once, the strawberry tree (not due) never.
        #expect(types.contains("planting_allowed ref-encosta") && types.contains("planting_forbidden ref-encosta"))
        #expect(types.contains("planting_allowed ref-vale"), "the area drawn in EPSG:3763")
        #expect(types.contains("capture_allowed album-miradouro") && types.contains("capture_locked album-miradouro"))
        #expect(types.filter { $0 == "water_due plant-carvalho" }.count == 1)
        #expect(!types.contains("water_due plant-medronheiro") && types.contains("enter plant-medronheiro"))
        #expect(types.contains("dwell album-miradouro"))
        // Times are the fixes' own, in order.
        let times = events.compactMap { $0["time"] as? String }
        #expect(times == times.sorted() && times.first?.hasPrefix("2026-05-01T09:") == true)
        #expect(r.stderr.contains("1357 fixes, 1322 used, dropped: no_fix 35"))
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
