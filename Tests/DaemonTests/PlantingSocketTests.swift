import Foundation
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
            try await waitFor(within: 30) { (json(c.ask(#"{"cmd":"state"}"#))["seq"] as? NSNumber)?.int64Value == sampleRegionCount + 28 }
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

            // A plan from a point 12 m from the recorded tree: every tree keeps 5 m from it.
            let plan = json(c.ask(#"{"cmd":"plan","area":"ref-encosta","species":"Quercus robur","count":6,"at":[40.1031,-8.23706],"seed":3}"#))
            #expect(plan["class"] as? String == "PLAN" && (plan["placed"] as? NSNumber)?.intValue == 6, "\(plan)")
            let full = json(c.ask(#"{"cmd":"plan","area":"ref-encosta","species":"Quercus robur","count":60,"at":[40.1031,-8.23706],"seed":3}"#))
            #expect((full["placed"] as? NSNumber)?.intValue ?? 60 < 60)
            #expect((full["reason"] as? String)?.hasPrefix("only ") == true, "\(full)")
            let bad = json(c.ask(#"{"cmd":"plan","area":"ref-encosta","species":"Quercus robur","count":0}"#))
            #expect(bad["class"] as? String == "ERROR" && (bad["message"] as? String)?.contains("count") == true)
            _ = feeder
        }
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
            // At the last fix, once the walk is over (the fix count stands still).
            try await waitFor(within: 30) { feeder.served >= feeder.count }
            var fixes = -1
            try await waitFor(within: 30) {
                let now = (json(c.ask(#"{"cmd":"state"}"#))["fixes"] as? NSNumber)?.intValue ?? -2
                defer { fixes = now }
                usleep(300_000)
                return now == fixes
            }
            let state = json(c.ask(#"{"cmd":"state"}"#))["last_fix"] as? [String: Any]
            let here = json(c.ask(#"{"cmd":"layout","heading":0,"fov":[60,45],"screen":[360,640]}"#))
            #expect(here["class"] as? String == "LAYOUT" && (here["items"] as? [Any])?.count == 6, "\(here)")
            #expect((here["lat"] as? NSNumber)?.doubleValue == (state?["lat"] as? NSNumber)?.doubleValue)
            let bad = json(c.ask(#"{"cmd":"layout","heading":0,"fov":[0,45],"screen":[360,640]}"#))
            #expect(bad["class"] as? String == "ERROR", "\(bad)")
        }
    }
}
