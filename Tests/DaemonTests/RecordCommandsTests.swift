import Foundation
import IntegrationSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension Daemon {
    /// Each new command given bad input: it fails (exit status not 0) with a message that says
    /// what is wrong, and nothing is half-applied: the journal's seq, the regions, the trees and
    /// the captures are as before.
    @Test func badInputForEachNewCommandIsAClearErrorAndChangesNothing() async throws {
        let daemon = try DaemonProcess(gpsdPort: NMEAFeeder.freePort(), regions: sampleRegions)
        defer { daemon.finish() }
        try await daemon.start()
        let socket = ["--socket", daemon.socket]
        // Something to act on: a plant and an album of the user layer, no fix yet.
        #expect(try treeline(["plants", "add", "Basil", "--every", "3d", "--at", "40.1012,-8.2391"] + socket).status == 0)
        #expect(try treeline(["albums", "add", "Beach", "--at", "40.1012,-8.2391"] + socket).status == 0)
        let (c, _) = try daemon.client()
        func snapshot() -> String {
            let state = json(c.ask(#"{"cmd":"state"}"#))
            return "seq \(state["seq"] ?? "?") | " + (c.ask(#"{"cmd":"export"}"#) ?? "") + " | " + (c.ask(#"{"cmd":"captures"}"#) ?? "")
                + " | " + (c.ask(#"{"cmd":"trees"}"#) ?? "")
        }
        let before = snapshot()
        let project = daemon.folder.appendingPathComponent("bad-project.geojson")
        try Data(#"{"type":"FeatureCollection","project":"p","features":[{"type":"Feature","properties":{"id":"area-new","kind":"reforestation","name":"New","species":["Quercus robur"]},"geometry":{"type":"Polygon","coordinates":[[[-8.24,40.10],[-8.23,40.10],[-8.24,40.11],[-8.23,40.11],[-8.24,40.10]]]}},{"type":"Feature","properties":{"id":"area-ok","kind":"reforestation","name":"Fine","species":["Quercus robur"]},"geometry":{"type":"Polygon","coordinates":[[[-8.24,40.10],[-8.23,40.10],[-8.23,40.11],[-8.24,40.10]]]}}]}"#.utf8).write(to: project)
        let notJSON = daemon.folder.appendingPathComponent("not.geojson")
        try Data("tree,lat,lon\n".utf8).write(to: notJSON)

        let cases: [(arguments: [String], says: String)] = [
            (["plants", "add", "Fern", "--every", "0d", "--at", "40.1,-8.2"], "--every must be a number of days"),
            (["plants", "add", "Fern", "--every", "400d", "--at", "40.1,-8.2"], "from 1 to 365"),
            (["plants", "add", "Fern", "--every", "3d"], "no fix yet to place the plant at"),
            (["plants", "add", "Fern", "--every", "3d", "--at", "91,0"], "--at must be LAT,LON"),
            (["plants", "add", "Fern", "--every", "3d", "--at", "40.1,-8.2", "--id", "plant-carvalho"], "is taken by a region of"),
            (["plants", "add", "Fern", "--every", "3d", "--at", "40.1,-8.2", "--id", "has space"], "must be at most 128 letters"),
            (["plants", "remove", "plant-carvalho"], "the read-only base layer): edit it there"),
            (["plants", "remove", "plant-99"], "no region 'plant-99'"),
            (["albums", "add", "Dunes", "--radius", "0", "--at", "40.1,-8.2"], "\"radius_m\" must be a number of metres from 1"),
            (["albums", "remove", "album-99"], "no region 'album-99'"),
            (["capture", "album-99"], "no album 'album-99'"),
            (["capture", "plant-1"], "'plant-1' is a plant, not an album"),
            (["capture", "album-1"], "no fix yet: a capture is recorded where you stand"),
            (["captures", "album-99"], "no album 'album-99'"),
            (["regions", "update", "plant-1"], "nothing to change"),
            (["regions", "update", "plant-1", "--species", "Quercus robur, Pinus pinea"], "'plant-1' is a plant: its \"species\" is one name, not a list of 2"),
            (["regions", "update", "plant-1", "--every", "0"], "--every must be a number of days"),
            (["regions", "update", "plant-1", "--last-watered", "yesterday"], "\"last_watered\" must be an ISO 8601 time"),
            (["regions", "update", "plant-1", "--last-watered", "2062-05-01"], "\"last_watered\" 2062-05-01T00:00:00.000Z is in the future"),
            (["regions", "update", "ref-encosta", "--name", "X"], "comes from the regions file"),
            (["regions", "remove", "nope"], "no region 'nope'"),
            (["trees", "remove", "999"], "no tree #999"),
            (["trees", "undo"], "no tree is recorded: nothing to undo"),
            (["track", "--gpx", "--geojson"], "give one of --gpx or --geojson"),
            (["track", "--gpx", "--since", "last tuesday"], "--since must be an ISO 8601 time"),
            (["track", "--gpx", "--since", "2026-05-02", "--until", "2026-05-01"], "\"until\" is before \"since\""),
            (["track", "--gpx", "-o", "/nonexistent/dir/t.gpx"], "cannot write /nonexistent/dir/t.gpx"),
            (["project", "export", "nope"], "no project 'nope'"),
            (["project", "import", "/nonexistent/p.geojson"], "cannot read /nonexistent/p.geojson"),
            (["project", "import", notJSON.path], "not a GeoJSON FeatureCollection"),
            (["project", "import", project.path], "area area-new: outer ring crosses itself"),
        ]
        for (arguments, says) in cases {
            let r = try treeline(arguments + socket)
            #expect(r.status != 0, "treeline \(arguments.joined(separator: " ")) succeeded: \(r.stdout)")
            #expect(r.stderr.contains(says), "treeline \(arguments.joined(separator: " ")): \(r.stderr)")
        }
        // The socket's own refusals, for what the command line checks first.
        for (request, says) in [(#"{"cmd":"add_region","kind":"plant","name":"F","interval_days":3,"at":[40.1,-8.2],"id":"plant-1"}"#, "is taken by a region added before"),
                                (#"{"cmd":"add_region","kind":"reforestation","name":"F"}"#, "send it as a GeoJSON Feature"),
                                (#"{"cmd":"update_region","region":"plant-1","radius_m":5000000}"#, "\"radius_m\" must be a number of metres"),
                                (#"{"cmd":"remove_tree","tree":0}"#, "\"tree\" must be a tree's number"),
                                (#"{"cmd":"plant","species":"Quercus robur","at":[40.1031,-8.2372],"planted":"2090-01-01"}"#, "\"planted\" is in the future"),
                                // A batch with one id taken: none of it is added.
                                (#"{"cmd":"add_regions","features":[{"type":"Feature","properties":{"id":"new-1","kind":"album","name":"A"},"geometry":{"type":"Point","coordinates":[-8.24,40.1]}},{"type":"Feature","properties":{"id":"plant-carvalho","kind":"album","name":"B"},"geometry":{"type":"Point","coordinates":[-8.24,40.1]}}]}"#,
                                 "nothing added: feature 1: id 'plant-carvalho' is taken by a region of"),
                                (#"{"cmd":"add_regions","features":[{"type":"Feature","properties":{"kind":"album","name":"A"},"geometry":{"type":"Point","coordinates":[-8.24,40.1]}},{"type":"Feature","properties":{"kind":"plant","name":"B"},"geometry":{"type":"Point","coordinates":[-8.24,40.1]}}]}"#,
                                 "nothing added: feature 1: a plant needs interval_days")] {
            let reply = json(c.ask(request))
            #expect(reply["class"] as? String == "ERROR" && (reply["message"] as? String)?.contains(says) == true, "\(request): \(reply)")
        }
        #expect(snapshot() == before, "nothing changed")
        _ = c.ask(#"{"cmd":"remove_region","region":"album-1"}"#)
        let reused = json(c.ask(#"{"cmd":"add_region","kind":"album","name":"Again","id":"album-1","at":[40.1,-8.2]}"#))
        #expect((reused["message"] as? String)?.contains("ids are never given again") == true, "\(reused)")

        // The export is a regions file: `check` takes it, and a daemon loads it as its base layer.
        let exported = daemon.folder.appendingPathComponent("export.geojson")
        #expect(try treeline(["regions", "export", "-o", exported.path] + socket).status == 0)
        let check = try treeline(["check", exported.path])
        #expect(check.status == 0, "\(check.stderr)")
        let other = try DaemonProcess(gpsdPort: NMEAFeeder.freePort(), regions: [exported])
        defer { other.finish() }
        try await other.start()
        let loaded = json(try other.client().0.ask(#"{"cmd":"export"}"#))["features"] as? [[String: Any]] ?? []
        let original = json(c.ask(#"{"cmd":"export"}"#))["features"] as? [[String: Any]] ?? []
        #expect(loaded.count == original.count && loaded.count == Int(sampleRegionCount) + 1, "the base regions and plant-1")
        #expect(NSArray(array: loaded).isEqual(to: original), "the same regions, byte for byte as JSON values")
    }

    /// A project's areas and trees go out as one GeoJSON and come into another board: the areas
    /// into its user layer, each tree checked again by the planting rules (one refused, named).
    @Test func aProjectExportedFromOneBoardIsImportedOnAnother() async throws {
        let area = #"{"type":"Feature","properties":{"id":"area-sul","kind":"reforestation","name":"Encosta sul","species":["Quercus robur"],"project":"spring"},"geometry":{"type":"Polygon","coordinates":[[[-8.2400,40.1000],[-8.2380,40.1000],[-8.2380,40.1015],[-8.2400,40.1015],[-8.2400,40.1000]]]}}"#
        let first = try DaemonProcess(gpsdPort: NMEAFeeder.freePort(), regions: sampleRegions)
        defer { first.finish() }
        try await first.start()
        let (c, _) = try first.client()
        #expect(json(c.ask(#"{"cmd":"add_region","feature":\#(area)}"#))["type"] as? String == "region_added")
        for (lat, lon) in [(40.1005, -8.2395), (40.1010, -8.2390)] {
            let r = json(c.ask(#"{"cmd":"plant","species":"pedunculate oak","at":[\#(lat),\#(lon)],"project":"spring"}"#))
            #expect(r["allowed"] as? Bool == true, "\(r)")
        }
        #expect(json(c.ask(#"{"cmd":"plant","species":"Quercus robur","at":[40.1007,-8.2385]}"#))["allowed"] as? Bool == true, "another project's tree")
        // The project's trails go with it (not another project's, nor one without).
        let trail = #"{"cmd":"add_trail","trail":"spring-walk","name":"Spring walk","checkpoints":[{"region":"area-sul","action":"plant"},"album-miradouro"],"project":"spring"}"#
        #expect(json(c.ask(trail))["type"] as? String == "trail_added")
        #expect(json(c.ask(#"{"cmd":"add_trail","trail":"mine","checkpoints":["album-miradouro"]}"#))["type"] as? String == "trail_added")
        let file = first.folder.appendingPathComponent("spring.geojson").path
        let exported = try treeline(["project", "export", "spring", "-o", file, "--socket", first.socket])
        #expect(exported.status == 0 && exported.stderr.contains("1 areas, 2 trees, 1 trails"), "\(exported.stderr)")

        // Another board, which already has a tree 1 m from the second one.
        let second = try DaemonProcess(gpsdPort: NMEAFeeder.freePort(), regions: sampleRegions)
        defer { second.finish() }
        try await second.start()
        let (d, _) = try second.client()
        #expect(json(d.ask(#"{"cmd":"add_region","feature":\#(area.replacingOccurrences(of: "area-sul", with: "area-other"))}"#))["type"] as? String == "region_added")
        #expect(json(d.ask(#"{"cmd":"plant","species":"Quercus robur","at":[40.10101,-8.23901]}"#))["allowed"] as? Bool == true)
        let imported = try treeline(["project", "import", file, "--socket", second.socket])
        #expect(imported.status == 3, "a tree was refused: \(imported.stdout) \(imported.stderr)")
        #expect(imported.stdout.contains("1 areas added, 1 trees recorded, 1 trails added, 1 refused (project spring)"), "\(imported.stdout)")
        let trails = json(d.ask(#"{"cmd":"trails"}"#))["trails"] as? [[String: Any]] ?? []
        #expect(trails.map { $0["id"] as? String } == ["spring-walk"] && trails.first?["name"] as? String == "Spring walk", "\(trails)")
        let checkpoints = (trails.first?["checkpoints"] as? [[String: Any]] ?? []).map { "\($0["region"] ?? ""):\($0["action"] ?? "-")" }
        #expect(checkpoints == ["area-sul:plant", "album-miradouro:-"])
        #expect(imported.stdout.contains("refused:") && imported.stdout.contains("spacing"), "\(imported.stdout)")
        let trees = json(d.ask(#"{"cmd":"trees","project":"spring"}"#))["trees"] as? [[String: Any]] ?? []
        #expect(trees.count == 1 && trees.first?["area"] as? String == "area-sul", "\(trees)")
        let regions = json(d.ask(#"{"cmd":"regions"}"#))["regions"] as? [[String: Any]] ?? []
        #expect(regions.first { $0["id"] as? String == "area-sul" }?["project"] as? String == "spring")
        // A file whose trail the daemon would refuse loads nothing, not even its new area.
        var text = try String(contentsOfFile: file, encoding: .utf8)
        text = text.replacingOccurrences(of: "area-sul", with: "area-norte").replacingOccurrences(of: "album-miradouro", with: "nowhere")
        let broken = second.folder.appendingPathComponent("broken.geojson")
        try text.write(to: broken, atomically: true, encoding: .utf8)
        let refused = try treeline(["project", "import", broken.path, "--socket", second.socket])
        #expect(refused.status != 0 && refused.stderr.contains("checkpoint 2, region 'nowhere', is neither in force nor an area of the file"), "\(refused.stderr)")
        let after = json(d.ask(#"{"cmd":"regions"}"#))["regions"] as? [[String: Any]] ?? []
        #expect(!after.contains { $0["id"] as? String == "area-norte" }, "nothing loaded")
        // Again: the area is in force, so nothing is imported.
        let again = try treeline(["project", "import", file, "--socket", second.socket])
        #expect(again.status != 0 && again.stderr.contains("'area-sul' is already in force"), "\(again.stderr)")
    }

    /// Retention: with journal: keep_days 30, a restart prunes the walk's events (dated May, the
    /// clock says later), keeping the region events of the regions in force; a subscriber asking
    /// from seq 0 is told first (`pruned_through`), then gets what is left. The track goes too.
    @Test func prunedEventsAreSaidBeforeTheRest() async throws {
        try await withGPSD(log: walk) { feeder, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try await daemon.start()
            let (c, _) = try daemon.client()
            try await waitFor(within: 30) { (json(c.ask(#"{"cmd":"state"}"#))["seq"] as? NSNumber)?.int64Value == announcedSeqs + 28 }
            #expect((json(c.ask(#"{"cmd":"track"}"#))["points"] as? [Any])?.count ?? 0 > 100)
            #expect(daemon.terminate()?.status == 0)
            gpsd.kill()
            let config = try String(contentsOf: daemon.config, encoding: .utf8)
            #expect(config.contains("keep_days: 36500"))
            try Data(config.replacingOccurrences(of: "keep_days: 36500", with: "keep_days: 30").utf8).write(to: daemon.config)
            try await daemon.start()
            let (s, _) = try daemon.client()
            let first = json(s.ask(#"{"cmd":"subscribe","since":0}"#))
            #expect(first["class"] as? String == "ERROR" && (first["pruned_through"] as? NSNumber)?.int64Value == announcedSeqs + 28, "\(first)")
            #expect(json(s.line())["class"] as? String == "SUBSCRIBED")
            // What is left, to a marker added now (seq 36: the numbers of the pruned stay used).
            let marker = Self.marker(daemon.socket)
            #expect(marker == announcedSeqs + 29)
            var rest: [[String: Any]] = []
            while let line = s.line(timeout: 10), (json(line)["seq"] as? NSNumber)?.int64Value != marker { rest.append(json(line)) }
            #expect(rest.count == 1 && rest[0]["type"] as? String == "base_layer", "only the regions' announcement, the layer in force: \(rest)")
            #expect(rest.compactMap { ($0["seq"] as? NSNumber)?.int64Value } == [1])
            let (t, _) = try daemon.client()
            #expect((json(t.ask(#"{"cmd":"track"}"#))["points"] as? [Any])?.count == 0)
            let resumed = json(t.ask(#"{"cmd":"subscribe","since":\#(announcedSeqs + 28)}"#))
            #expect(resumed["class"] as? String == "SUBSCRIBED", "since the last seq: nothing was lost for this one")
            #expect(daemon.logText.contains("retention: 28 events"), "\(daemon.logText.suffix(1000))")
        }
    }
}

extension Daemon {
    /// The base layer on SIGHUP: a file region renamed is journaled `region_updated`, one gone
    /// `region_removed` (layer base); a file that takes an id of the user layer is refused, and
    /// the regions in force stay.
    @Test func reloadJournalsTheBaseLayersChangesAndRefusesAnIDOfTheUserLayer() async throws {
        let daemon = try DaemonProcess(gpsdPort: NMEAFeeder.freePort(), regions: sampleRegions)
        defer { daemon.finish() }
        try await daemon.start()
        let (c, _) = try daemon.client()
        // The first start journaled the files' regions as one record; a subscriber that asks gets
        // each region's Feature from it, in the files' order.
        let (all, _) = try daemon.client()
        _ = all.ask(#"{"cmd":"subscribe","since":0,"base_regions":true}"#)
        let record = json(all.line(timeout: 10))
        #expect(record["type"] as? String == "base_layer" && (record["seq"] as? NSNumber)?.int64Value == 1 && record["regions"] as? Int == Int(sampleRegionCount)
                    && record["added"] as? Int == Int(sampleRegionCount), "\(record)")
        var fileIDs: [String] = []
        for f in sampleRegions {
            let d = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: f)) as? [String: Any])
            fileIDs += (d["features"] as? [[String: Any]] ?? []).compactMap { ($0["properties"] as? [String: Any])?["id"] as? String }
        }
        var derived: [[String: Any]] = []
        for _ in 0..<fileIDs.count { derived.append(json(all.line(timeout: 10))) }
        #expect(derived.compactMap { $0["region"] as? String } == fileIDs)
        #expect(derived.allSatisfy { $0["type"] as? String == "region_added" && $0["layer"] as? String == "base" && ($0["seq"] as? NSNumber)?.int64Value == 1
                    && $0["part"] != nil && ($0["feature"] as? [String: Any])?["geometry"] != nil }, "\(derived.first ?? [:])")

        #expect(json(c.ask(#"{"cmd":"add_region","kind":"album","name":"Beach","id":"beach","at":[40.1,-8.24]}"#))["type"] as? String == "region_added")
        let (events, _) = try daemon.client()
        _ = events.ask(#"{"cmd":"subscribe","base_regions":true}"#)
        let (plain, _) = try daemon.client()
        _ = plain.ask(#"{"cmd":"subscribe"}"#)

        let file = daemon.regionFile(0)
        var doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var features = doc["features"] as? [[String: Any]] ?? []
        // The file now also has a region with the user layer's id: refused.
        var clash = features[features.count - 1]
        var p = clash["properties"] as? [String: Any] ?? [:]
        p["id"] = "beach"
        clash["properties"] = p
        doc["features"] = features + [clash]
        try JSONSerialization.data(withJSONObject: doc).write(to: file)
        daemon.signal(SIGHUP)
        try await waitFor(within: 10) { daemon.logText.contains("reload refused") }
        #expect(daemon.logText.contains("region 'beach' has the id of a region added at runtime"), "\(daemon.logText.suffix(800))")
        #expect(nextIsWatering(events, c), "nothing journaled")

        // Renamed and removed: announced.
        var renamed = features[1]
        var q = renamed["properties"] as? [String: Any] ?? [:]
        let renamedID = q["id"] as? String ?? ""
        q["name"] = "Renamed"
        renamed["properties"] = q
        features[1] = renamed
        let gone = features.removeLast()
        let goneID = (gone["properties"] as? [String: Any])?["id"] as? String ?? ""
        doc["features"] = features
        try JSONSerialization.data(withJSONObject: doc).write(to: file)
        daemon.signal(SIGHUP)
        // One record for the change; the live subscriber that asked gets its region events too.
        var change = json(plain.line(timeout: 10))
        while change["type"] as? String == "watered" { change = json(plain.line(timeout: 10)) }  // nextIsWatering's
        #expect(change["type"] as? String == "base_layer" && change["updated"] as? Int == 1 && change["removed"] as? Int == 1 && change["added"] as? Int == 0,
                "\(change)")
        #expect(json(events.line(timeout: 10))["seq"] as? NSNumber == change["seq"] as? NSNumber)
        let updated = json(events.line(timeout: 10)), removed = json(events.line(timeout: 10))
        #expect(updated["type"] as? String == "region_updated" && updated["region"] as? String == renamedID && updated["layer"] as? String == "base", "\(updated)")
        #expect(((updated["feature"] as? [String: Any])?["properties"] as? [String: Any])?["name"] as? String == "Renamed")
        #expect(removed["type"] as? String == "region_removed" && removed["region"] as? String == goneID && removed["layer"] as? String == "base", "\(removed)")
        let ids = (json(c.ask(#"{"cmd":"regions"}"#))["regions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(ids.contains("beach") && !ids.contains(goneID) && ids.count == Int(sampleRegionCount), "\(ids)")

        // A removed runtime id is not taken by a file either.
        _ = c.ask(#"{"cmd":"remove_region","region":"beach"}"#)
        _ = events.line(timeout: 5)
        doc["features"] = features + [clash]
        try JSONSerialization.data(withJSONObject: doc).write(to: file)
        daemon.signal(SIGHUP)
        try await waitFor(within: 10) { daemon.logText.contains("once added at runtime and removed") }
        #expect(nextIsWatering(events, c), "nothing journaled")
    }

    /// Whether the next event `subscriber` gets is a watering `c` asks for now: nothing was
    /// journaled before it (the watering, a known event that leaves the regions as they are).
    func nextIsWatering(_ subscriber: SocketClient, _ c: SocketClient) -> Bool {
        let watered = json(c.ask(#"{"cmd":"water","plant":"plant-carvalho"}"#))
        let next = json(subscriber.line(timeout: 10))
        return watered["type"] as? String == "watered" && next["seq"] as? NSNumber == watered["seq"] as? NSNumber && next["type"] as? String == "watered"
    }

    /// A keeper's update of a watered plant announces the watering the monitor has, and a
    /// corrected last_watered is kept across a restart (saved with the change).
    @Test func anUpdateCarriesTheWateringAndACorrectionSurvivesARestart() async throws {
        let daemon = try DaemonProcess(gpsdPort: NMEAFeeder.freePort(), regions: sampleRegions)
        defer { daemon.finish() }
        try await daemon.start()
        let (c, _) = try daemon.client()
        _ = c.ask(#"{"cmd":"add_region","kind":"plant","name":"Basil","interval_days":3,"at":[40.1,-8.24]}"#)
        let watered = json(c.ask(#"{"cmd":"water","plant":"plant-1"}"#))
        let updated = json(c.ask(#"{"cmd":"update_region","region":"plant-1","interval_days":5}"#))
        let p = (updated["feature"] as? [String: Any])?["properties"] as? [String: Any] ?? [:]
        #expect(p["interval_days"] as? Int == 5 && p["last_watered"] as? String == watered["time"] as? String, "\(updated)")
        _ = c.ask(#"{"cmd":"update_region","region":"plant-1","last_watered":"2026-04-01T08:00:00Z"}"#)
        daemon.kill9()
        try await daemon.start()
        let plant = (json(try daemon.client().0.ask(#"{"cmd":"regions"}"#))["regions"] as? [[String: Any]] ?? []).first { $0["id"] as? String == "plant-1" }
        #expect(plant?["last_watered"] as? String == "2026-04-01T08:00:00.000Z" && plant?["interval_days"] as? Int == 5, "\(plant ?? [:])")
    }
}
