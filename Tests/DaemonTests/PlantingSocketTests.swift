import Foundation
import Geo
import IntegrationSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension Daemon {
    /// can_plant, plant and plan on the socket: at the last fix or at a given point; a planted
    /// tree counts for the next question; refusals say why.
    @Test func plantingOverTheSocket() async throws {
        try await withGPSD(log: walk) { feeder, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try await daemon.start()
            let (c, _) = try daemon.client()
            // At the last fix of the walk (09:22:19), which is outside every reforestation area.
            try await waitFor(within: 30) { (json(c.ask(#"{"cmd":"state"}"#))["seq"] as? NSNumber)?.int64Value == announcedSeqs + 28 }
            let here = json(c.ask(#"{"cmd":"can_plant","species":"Quercus robur"}"#))
            #expect(here["class"] as? String == "CAN_PLANT" && here["allowed"] as? Bool == false, "\(here)")
            #expect((here["reason"] as? String)?.hasPrefix("outside every reforestation area") == true, "\(here)")

            let spot = #""at":[40.1031,-8.2372]"#
            let ok = json(c.ask(#"{"cmd":"can_plant","species":"pedunculate oak",\#(spot)}"#))
            #expect(ok["allowed"] as? Bool == true && ok["area"] as? String == "ref-encosta" && ok["species"] as? String == "Quercus robur", "\(ok)")
            let planted = json(c.ask(#"{"cmd":"plant","species":"Quercus robur",\#(spot)}"#))
            #expect(planted["class"] as? String == "PLANT" && planted["allowed"] as? Bool == true && (planted["tree"] as? NSNumber)?.intValue == 1, "\(planted)")
            let again = json(c.ask(#"{"cmd":"plant","species":"Quercus robur","at":[40.10312,-8.2372]}"#))
            #expect(again["allowed"] as? Bool == false && again["tree"] == nil, "\(again)")
            #expect(again["reason"] as? String == "2.2 m from tree #1 but the spacing is 5 m", "\(again)")
            #expect((again["nearest_tree"] as? NSNumber)?.intValue == 1)
            let wrong = json(c.ask(#"{"cmd":"can_plant","species":"Pinus pinea",\#(spot)}"#))
            #expect((wrong["reason"] as? String)?.hasPrefix("Pinus pinea is not planted in ref-encosta") == true, "\(wrong)")

            // A plan from a point 12 m from the recorded tree: the first tree there, every tree
            // inside the area, 5 m from the recorded one and from each other.
            let area = try #require((json(c.ask(#"{"cmd":"regions","geometry":true}"#))["regions"] as? [[String: Any]] ?? [])
                .first { $0["id"] as? String == "ref-encosta" }?["geometry"] as? [String: Any])
            let recorded = (json(c.ask(#"{"cmd":"trees"}"#))["trees"] as? [[String: Any]] ?? []).map(coordinate)
            #expect(recorded.count == 1)
            let plan = json(c.ask(#"{"cmd":"plan","area":"ref-encosta","species":"Quercus robur","count":6,"at":[40.1031,-8.23706],"seed":3}"#))
            #expect(plan["class"] as? String == "PLAN" && (plan["placed"] as? NSNumber)?.intValue == 6, "\(plan)")
            #expect(plan["area"] as? String == "ref-encosta" && plan["species"] as? String == "Quercus robur" && (plan["spacing_m"] as? NSNumber)?.doubleValue == 5)
            let spots = (plan["trees"] as? [[String: Any]] ?? []).map(coordinate)
            #expect(spots.count == 6)
            #expect(spots.first.map { abs($0.latitude - 40.1031) < 1e-9 && abs($0.longitude + 8.23706) < 1e-9 } == true, "the first tree where asked: \(spots.first.map { "\($0)" } ?? "none")")
            #expect(planProblems(spots, area: area, recorded: recorded, spacing: 5).isEmpty, "\(planProblems(spots, area: area, recorded: recorded, spacing: 5))")
            let full = json(c.ask(#"{"cmd":"plan","area":"ref-encosta","species":"Quercus robur","count":60,"at":[40.1031,-8.23706],"seed":3}"#))
            let packed = (full["trees"] as? [[String: Any]] ?? []).map(coordinate)
            #expect((full["placed"] as? NSNumber)?.intValue == packed.count && packed.count < 60 && packed.count > 6, "\(packed.count) placed")
            #expect((full["reason"] as? String)?.hasPrefix("only \(packed.count) ") == true, "\(full)")
            #expect(planProblems(packed, area: area, recorded: recorded, spacing: 5).isEmpty, "\(planProblems(packed, area: area, recorded: recorded, spacing: 5))")
            // The daemon's own rule agrees with each spot of the first plan.
            for p in spots {
                let v = json(c.ask(#"{"cmd":"can_plant","species":"Quercus robur","at":[\#(p.latitude),\#(p.longitude)]}"#))
                #expect(v["allowed"] as? Bool == true, "can_plant at a planned spot: \(v)")
            }
            let bad = json(c.ask(#"{"cmd":"plan","area":"ref-encosta","species":"Quercus robur","count":0}"#))
            #expect(bad["class"] as? String == "ERROR" && (bad["message"] as? String)?.contains("count") == true)
            _ = feeder
        }
    }
}

extension Daemon {
    /// `remove_tree` and `undo_tree` that succeed: the answer is the tree removed, as `trees`
    /// listed it; `trees` then lists the others, in order; the spot is free again for `can_plant`;
    /// `undo_tree` takes the last recorded; a number is never given again.
    @Test func removingAndUndoingTreesOverTheSocket() async throws {
        // No gpsd: every tree is placed with "at".
        let daemon = try DaemonProcess(gpsdPort: NMEAFeeder.freePort(), regions: sampleRegions)
        defer { daemon.finish() }
        try await daemon.start()
        let (c, _) = try daemon.client()
        let spots = [(40.1031, -8.2372), (40.1032, -8.2372), (40.1031, -8.2373)]
        for (k, (lat, lon)) in spots.enumerated() {
            let planted = json(c.ask(#"{"cmd":"plant","species":"Quercus robur","at":[\#(lat),\#(lon)],"project":"p\#(k + 1)"}"#))
            #expect(planted["allowed"] as? Bool == true && (planted["tree"] as? NSNumber)?.intValue == k + 1, "\(planted)")
        }
        func trees() -> [[String: Any]] { json(c.ask(#"{"cmd":"trees"}"#))["trees"] as? [[String: Any]] ?? [] }
        func ids(_ list: [[String: Any]]) -> [Int] { list.compactMap { ($0["id"] as? NSNumber)?.intValue } }
        let before = trees()
        #expect(ids(before) == [1, 2, 3])
        for (t, (lat, lon)) in zip(before, spots) {
            #expect(t["area"] as? String == "ref-encosta" && t["species"] as? String == "Quercus robur" && t["planted"] is String, "\(t)")
            #expect((t["lat"] as? NSNumber)?.doubleValue == lat && (t["lon"] as? NSNumber)?.doubleValue == lon, "\(t)")
        }
        // A spot 4.3 m from #2 and 11.9 m from the others: refused for #2 until #2 is removed.
        let blocked = json(c.ask(#"{"cmd":"can_plant","species":"Quercus robur","at":[40.1032,-8.23725]}"#))
        #expect(blocked["allowed"] as? Bool == false && (blocked["nearest_tree"] as? NSNumber)?.intValue == 2, "\(blocked)")
        let removed = json(c.ask(#"{"cmd":"remove_tree","tree":2}"#))
        #expect(removed["class"] as? String == "TREE_REMOVED", "\(removed)")
        #expect(NSDictionary(dictionary: removed["tree"] as? [String: Any] ?? [:]).isEqual(to: before[1]), "the tree removed, as listed: \(removed)")
        let afterRemove = trees()
        #expect(afterRemove.count == 2 && NSArray(array: afterRemove).isEqual(to: [before[0], before[2]]), "\(ids(afterRemove))")
        let freed = json(c.ask(#"{"cmd":"can_plant","species":"Quercus robur","at":[40.1032,-8.23725]}"#))
        #expect(freed["allowed"] as? Bool == true, "the spot near #2 is free again: \(freed)")
        let again = json(c.ask(#"{"cmd":"remove_tree","tree":2}"#))
        #expect(again["class"] as? String == "ERROR" && (again["message"] as? String)?.hasPrefix("no tree #2") == true, "\(again)")

        // undo_tree: the last recorded (#3), then #1; a new tree is #4, not a number given before.
        let undone = json(c.ask(#"{"cmd":"undo_tree"}"#))
        #expect(undone["class"] as? String == "TREE_REMOVED" && NSDictionary(dictionary: undone["tree"] as? [String: Any] ?? [:]).isEqual(to: before[2]), "\(undone)")
        #expect(NSArray(array: trees()).isEqual(to: [before[0]]))
        let next = json(c.ask(#"{"cmd":"plant","species":"Quercus robur","at":[40.1032,-8.2372]}"#))
        #expect((next["tree"] as? NSNumber)?.intValue == 4, "\(next)")
        #expect(ids(trees()) == [1, 4])
        let undoneNew = json(c.ask(#"{"cmd":"undo_tree"}"#))
        #expect(((undoneNew["tree"] as? [String: Any])?["id"] as? NSNumber)?.intValue == 4 && (undoneNew["tree"] as? [String: Any])?["project"] == nil, "\(undoneNew)")
        let last = json(c.ask(#"{"cmd":"undo_tree"}"#))
        #expect(NSDictionary(dictionary: last["tree"] as? [String: Any] ?? [:]).isEqual(to: before[0]), "\(last)")
        #expect(trees().isEmpty)
        #expect((json(c.ask(#"{"cmd":"undo_tree"}"#))["message"] as? String) == "no tree is recorded: nothing to undo")
    }
}

extension Daemon {
    /// `layout` on the socket: the regions in force as POIs, laid out as `treeline layout
    /// --regions` lays them out for the same pose; at the last fix when no point is given.
    @Test func layoutOverTheSocketEqualsTheCommandLine() async throws {
        let regions = repository.appendingPathComponent("Data/regions.geojson")
        try await withGPSD(log: walk) { feeder, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: [regions])
            defer { daemon.finish() }
            try await daemon.start()
            let (c, _) = try daemon.client()
            let reply = c.ask(#"{"cmd":"layout","at":[40.1005,-8.2405],"heading":45,"fov":[60,45],"screen":[1280,720],"offset":"automatic"}"#) ?? ""
            let cli = try TreelineProcess.run(["layout", "--at", "40.1005,-8.2405", "--heading", "45", "--fov", "60,45", "--screen", "1280x720",
                                               "--regions", regions.path, "--offset", "automatic"])
            #expect(cli.status == 0)
            let items = cli.stdout.split(separator: "\n").joined(separator: ",")
            #expect(reply.hasPrefix(#"{"class":"LAYOUT","lat":40.1005000,"lon":-8.2405000,"pois":6,"#), "\(reply)")
            #expect(reply.contains(#""items":["# + items + "]}"), "\(reply)\nvs\n\(items)")
            // At the last fix, once the walk is over: the daemon has used the walk's last fix.
            try await waitFor(within: 30) { feeder.served >= feeder.count }
            try await waitFor(within: 30) { (json(c.ask(#"{"cmd":"state"}"#))["last_fix"] as? [String: Any])?["time"] as? String == walkLastFix }
            let state = json(c.ask(#"{"cmd":"state"}"#))["last_fix"] as? [String: Any]
            let here = json(c.ask(#"{"cmd":"layout","heading":0,"fov":[60,45],"screen":[360,640]}"#))
            #expect(here["class"] as? String == "LAYOUT" && (here["items"] as? [Any])?.count == 6, "\(here)")
            #expect((here["lat"] as? NSNumber)?.doubleValue == (state?["lat"] as? NSNumber)?.doubleValue)
            let bad = json(c.ask(#"{"cmd":"layout","heading":0,"fov":[0,45],"screen":[360,640]}"#))
            #expect(bad["class"] as? String == "ERROR", "\(bad)")
        }
    }
}

/// The time of the walk's last fix (`Data/walk.nmea`), as the daemon gives it once it used it.
let walkLastFix = "2026-05-01T09:22:19.000Z"

/// `{"lat":…,"lon":…}` as a coordinate.
func coordinate(_ o: [String: Any]) -> Coordinate {
    Coordinate(latitude: (o["lat"] as? NSNumber)?.doubleValue ?? .nan, longitude: (o["lon"] as? NSNumber)?.doubleValue ?? .nan)
}

/// What is wrong with planned spots (nothing: none): each inside the area (a GeoJSON Polygon:
/// in its outer ring, in none of its holes), at least `spacing` from every recorded tree and from
/// each other, by Karney's geodesic. The answer prints degrees to 7 decimals: a spot may move by
/// up to 0.7 cm, so each distance may be short by 1.5 cm and a spot on the boundary outside by 0.8 cm.
func planProblems(_ spots: [Coordinate], area: [String: Any], recorded: [Coordinate], spacing: Double) -> [String] {
    let rings = (area["coordinates"] as? [[[Double]]] ?? []).map { $0.map { Coordinate(latitude: $0[1], longitude: $0[0]) } }
    guard area["type"] as? String == "Polygon", let outer = rings.first else { return ["not a polygon: \(area)"] }
    var problems: [String] = []
    for (k, p) in spots.enumerated() {
        let inOuter = ringContains(outer, p) || ringDistance(outer, p) < 0.008
        let inHole = rings.dropFirst().contains { ringContains($0, p) && ringDistance($0, p) > 0.008 }
        if !inOuter || inHole { problems.append("spot \(k) \(p) is outside the area (\(inOuter ? "in a hole" : "outside its ring"))") }
        for (j, t) in recorded.enumerated() {
            let d = Geodesic.wgs84.distance(p, t)
            if d < spacing - 0.015 { problems.append(String(format: "spot %d is %.3f m from recorded tree %d (spacing %.1f m)", k, d, j, spacing)) }
        }
        for j in 0..<k {
            let d = Geodesic.wgs84.distance(p, spots[j])
            if d < spacing - 0.015 { problems.append(String(format: "spots %d and %d are %.3f m apart (spacing %.1f m)", j, k, d, spacing)) }
        }
    }
    return problems
}

/// Crossing test in longitude and latitude (rings of tens of metres: the plane is the fence's).
func ringContains(_ ring: [Coordinate], _ p: Coordinate) -> Bool {
    var inside = false
    var j = ring.count - 1
    for i in 0..<ring.count {
        let a = ring[i], b = ring[j]
        if (a.latitude > p.latitude) != (b.latitude > p.latitude),
           p.longitude < (b.longitude - a.longitude) * (p.latitude - a.latitude) / (b.latitude - a.latitude) + a.longitude {
            inside.toggle()
        }
        j = i
    }
    return inside
}

/// Metres from `p` to the nearest edge of `ring` (a local plane around `p`).
func ringDistance(_ ring: [Coordinate], _ p: Coordinate) -> Double {
    let my = 111_132.95, mx = 111_319.49 * cos(p.latitude * .pi / 180)
    func xy(_ c: Coordinate) -> (Double, Double) { ((c.longitude - p.longitude) * mx, (c.latitude - p.latitude) * my) }
    var best = Double.infinity
    for i in 0..<(ring.count - 1) {
        let (ax, ay) = xy(ring[i]), (bx, by) = xy(ring[i + 1])
        let dx = bx - ax, dy = by - ay
        let t = max(0, min(1, -(ax * dx + ay * dy) / max(dx * dx + dy * dy, 1e-18)))
        best = min(best, ((ax + t * dx) * (ax + t * dx) + (ay + t * dy) * (ay + t * dy)).squareRoot())
    }
    return best
}
