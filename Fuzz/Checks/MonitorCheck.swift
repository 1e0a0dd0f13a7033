import Geo
import NMEA
import Rules
import Regions

/// `monitor`: the input read as NMEA, every fix fed to RegionMonitors over a small fixed set of
/// regions (near Data/walk.nmea's walk, around 40.10 N 8.24 W, and around 0,0 and on the
/// antimeridian), with a few MonitorConfig variants. No trap; each fix's events are in time order,
/// name a region of the set and have a distance that is not NaN.
public enum MonitorFuzz {
    static let geoJSON = """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"id":"ref-hole","kind":"reforestation","name":"Area with a clearing",
          "species":["Quercus robur","Pinus pinaster"]},
         "geometry":{"type":"Polygon","coordinates":[
          [[-8.2377718,40.1009006],[-8.2350744,40.1009907],[-8.2348399,40.1023416],[-8.235309,40.1034223],
           [-8.2373027,40.1032422],[-8.237889,40.1019813],[-8.2377718,40.1009006]],
          [[-8.2368,40.1016],[-8.2360,40.1016],[-8.2360,40.1023],[-8.2368,40.1023],[-8.2368,40.1016]]]}},
        {"type":"Feature","properties":{"id":"plant-oak","kind":"plant","name":"Oak","interval_days":7,
          "last_watered":"2026-04-20T08:00:00Z","radius_m":20},
         "geometry":{"type":"Point","coordinates":[-8.2385927,40.1041428]}},
        {"type":"Feature","properties":{"id":"album-view","kind":"album","name":"Viewpoint","radius_m":60},
         "geometry":{"type":"Point","coordinates":[-8.2361299,40.1028819]}},
        {"type":"Feature","properties":{"id":"plant-tiny","kind":"plant","name":"Seedling","interval_days":1,
          "last_watered":"2026-05-01T00:00:00Z","radius_m":1},
         "geometry":{"type":"Point","coordinates":[-8.2370681,40.1037825]}},
        {"type":"Feature","properties":{"id":"ref-null-island","kind":"reforestation","name":"Null Island",
          "species":["Quercus robur"]},
         "geometry":{"type":"Polygon","coordinates":[[[-0.001,-0.001],[0.001,-0.001],[0.001,0.001],[-0.001,0.001],[-0.001,-0.001]]]}},
        {"type":"Feature","properties":{"id":"album-null","kind":"album","name":"Near 0,0","radius_m":30},
         "geometry":{"type":"Point","coordinates":[0.0005,-0.0005]}},
        {"type":"Feature","properties":{"id":"album-antimeridian","kind":"album","name":"Date line","radius_m":1000},
         "geometry":{"type":"Point","coordinates":[180,0]}}
        ]}
        """

    static let regions: RegionSet = {
        do {
            return RegionSet(try RegionFile.parse(Array(geoJSON.utf8), file: "MonitorCheck.swift"))
        } catch {
            fatalError("the monitor target's own regions do not parse: \(error)")
        }
    }()

    static let configs: [MonitorConfig] = {
        var initial = MonitorConfig()
        initial.initialEnter = true
        initial.transit = false
        initial.dwellSeconds = 0
        var permissive = MonitorConfig()
        permissive.hysteresisMetres = 0
        permissive.accuracyFactor = 0
        permissive.maxErrorMetres = 1e6
        permissive.maxSpeed = 1e6
        permissive.initialEnter = true
        var wide = MonitorConfig()
        wide.hysteresisMetres = 50
        wide.accuracyFactor = 3
        wide.dwellSeconds = 1
        return [MonitorConfig(), initial, permissive, wide]
    }()

    public static func check(_ input: UnsafeRawBufferPointer) {
        var fixes: [Fix] = []
        var reader = NMEAReader()
        reader.read(input) { fixes.append($0) }
        reader.finish { fixes.append($0) }
        let set = regions
        var json: [UInt8] = []
        for config in configs {
            var monitor = RegionMonitor(regions: set, config: config)
            for fix in fixes {
                var last: UTCTime?
                monitor.process(fix) { e in
                    guard (0..<set.count).contains(e.region), !e.distance.isNaN else {
                        fuzzFailure("monitor event \(e) for fix \(fix)")
                    }
                    if let last, e.time < last { fuzzFailure("monitor events out of time order: \(e) after \(last), fix \(fix)") }
                    last = e.time
                    json.removeAll(keepingCapacity: true)
                    e.appendJSON(to: &json, regions: set)
                }
            }
            if let t = fixes.last(where: { $0.time != nil })?.time {
                _ = monitor.water(1, at: t)  // plant-oak
            }
        }
    }
}
