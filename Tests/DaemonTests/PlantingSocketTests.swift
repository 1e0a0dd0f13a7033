import Foundation
import IntegrationSupport
import Testing

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
            try await waitFor(within: 30) { (json(c.ask(#"{"cmd":"state"}"#))["seq"] as? NSNumber)?.intValue == 28 }
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
