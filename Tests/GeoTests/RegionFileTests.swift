import Foundation
import Geo
import TestSupport
import Testing
import Regions

@Suite struct RegionFileValidation {
    func issues(_ bytes: [UInt8], crs: String? = nil) -> [RegionIssue] {
        do {
            _ = try RegionFile.parse(bytes, file: "test.geojson", crs: crs)
            return []
        } catch {
            return error.issues
        }
    }

    let square = closed([(-9.14, 38.70), (-9.13, 38.70), (-9.13, 38.71), (-9.14, 38.71)])

    /// One file with one mistake per feature: every one is reported, each with its index, id
    /// and reason.
    @Test func everyErrorIsReportedWithItsFeature() {
        let features = [
            polygonFeature("ok", [square]),                                                                // 0 fine
            polygonFeature("unclosed", [[(-9.14, 38.70), (-9.13, 38.70), (-9.13, 38.71), (-9.14, 38.71)]]),  // 1
            polygonFeature("short", [closed([(-9.14, 38.70), (-9.13, 38.70)])]),                           // 2
            polygonFeature("bowtie", [closed([(-9.14, 38.70), (-9.13, 38.71), (-9.13, 38.70), (-9.14, 38.71)])]),  // 3
            polygonFeature("hole-out", [square, closed([(-9.10, 38.70), (-9.10, 38.701), (-9.099, 38.701), (-9.099, 38.70)])]),  // 4
            polygonFeature("range", [closed([(-9.14, 38.70), (-9.13, 38.70), (-9.13, 98.71), (-9.14, 38.71)])]),  // 5
            polygonFeature("ok", [square]),                                                                // 6 duplicate id
            polygonFeature("kindless", [square], kind: "garden"),                                          // 7
            circleFeature("zero", lon: -9.14, lat: 38.7, radius: 0),                                       // 8
            circleFeature("noradius", lon: -9.14, lat: 38.7, radius: nil, kind: "reforestation", extra: ",\"species\":[\"Quercus robur\"]"),  // 9
            circleFeature("thirsty", lon: -9.14, lat: 38.7, radius: 30, kind: "plant", extra: ",\"interval_days\":400,\"last_watered\":\"yesterday\""),  // 10
            polygonFeature("hole-cross", [square, closed([(-9.135, 38.705), (-9.125, 38.705), (-9.125, 38.706), (-9.135, 38.706)])]),  // 11
            circleFeature("listed", lon: -9.14, lat: 38.7, radius: 3, kind: "plant", extra: ",\"interval_days\":4,\"species\":[\"Olea europaea\",\"Ficus carica\"]"),  // 12
        ]
        let found = issues(collection(features))
        func messages(_ index: Int) -> [String] { found.filter { $0.feature == index }.map(\.message) }
        #expect(messages(0).isEmpty)
        #expect(messages(1).contains { $0.contains("not closed") })
        #expect(messages(2).contains { $0.contains("has 3 positions") && $0.contains("at least 4") })
        #expect(messages(3).contains { $0.contains("crosses itself") })
        #expect(messages(4).contains { $0.contains("hole 1 lies outside its outer ring") })
        #expect(messages(5).contains { $0.contains("out of range") && $0.contains("98.71") })
        #expect(messages(6).contains { $0.contains("duplicate id") && $0.contains("feature 0") })
        #expect(messages(7).contains { $0.contains("unknown kind \"garden\"") })
        #expect(messages(8).contains { $0.contains("radius_m must be from 1 to 1000000 metres, not 0") })
        #expect(messages(9).contains { $0.contains("needs radius_m") })
        #expect(messages(10).contains { $0.contains("interval_days") && $0.contains("1 to 365") && $0.contains("400") })
        #expect(messages(10).contains { $0.contains("last_watered \"yesterday\"") })
        #expect(messages(11).contains { $0.contains("hole 1 crosses its outer ring") })
        #expect(messages(12) == ["a plant's species is one name, a string (e.g. \"Olea europaea\")"])
        // Each issue names the file, the feature and its id.
        let bowtie = found.first { $0.feature == 3 }!
        #expect(bowtie.description.hasPrefix("test.geojson: feature 3 (id \"bowtie\"): "))
        #expect(found.allSatisfy { $0.feature != nil && $0.id != nil })
    }

    @Test func notJSONGivesLineAndColumn() {
        let text = "{\"type\": \"FeatureCollection\",\n \"features\": [\n   {\"type\": \"Feature\",, }\n ]}"
        let found = issues(Array(text.utf8))
        #expect(found.count == 1)
        #expect(found[0].line == 3)
        #expect(found[0].column == 23)
        #expect(found[0].message.hasPrefix("not JSON"))
        #expect(found[0].description.hasPrefix("test.geojson:3:23: not JSON"))
    }

    @Test func unknownCRS() {
        let found = issues(collection([polygonFeature("a", [square])], crs: "EPSG:999999"))
        #expect(found.count == 1)
        #expect(found[0].message.contains("unknown CRS 'EPSG:999999'"))
        let viaOption = issues(collection([polygonFeature("a", [square])]), crs: "EPSG:999999")
        #expect(viaOption.first?.message.contains("unknown CRS") == true)
    }

    @Test func notAFeatureCollection() {
        #expect(issues(Array("[1,2]".utf8)).first?.message.contains("FeatureCollection") == true)
        #expect(issues(Array("{\"type\":\"Feature\"}".utf8)).first?.message.contains("FeatureCollection") == true)
    }

    @Test func defaultsAndProperties() throws {
        let regions = try RegionFile.parse(collection([
            circleFeature("a1", lon: -9.14, lat: 38.7, radius: nil),
            circleFeature("p1", lon: -9.14, lat: 38.7, radius: nil, kind: "plant", extra: ",\"interval_days\":7,\"last_watered\":\"2026-04-20T08:00:00+01:00\",\"name\":\"Oak\",\"species\":\"Quercus robur\""),
            polygonFeature("r1", [square], kind: "reforestation", extra: ",\"species\":[\"Quercus robur\",\"Pinus pinea\"]"),
            circleFeature("p2", lon: -9.14, lat: 38.7, radius: 3, kind: "plant", extra: ",\"interval_days\":7,\"species\":[\"Olea europaea\"]"),
        ]), file: "ok.geojson")
        #expect(regions.count == 4)
        #expect(regions[3].species == ["Olea europaea"], "a list of one, as update_region takes it")
        #expect(regions[0].shape == .circle(center: Coordinate(latitude: 38.7, longitude: -9.14), radius: 150))
        #expect(regions[1].shape == .circle(center: Coordinate(latitude: 38.7, longitude: -9.14), radius: 30))
        #expect(regions[1].intervalDays == 7 && regions[1].name == "Oak")
        #expect(regions[1].lastWatered?.iso8601 == "2026-04-20T07:00:00.000Z")
        #expect(regions[1].species == ["Quercus robur"], "a plant's species, one name")
        #expect(regions[2].species == ["Quercus robur", "Pinus pinea"])
        #expect(regions[2].name == "r1", "name defaults to the id")
    }
}

@Suite struct NationalCRS {
    // The same quadrilateral near Lousã in PT-TM06/ETRS89 (EPSG:3763) and in WGS84. The WGS84
    // values come from PROJ's command-line tool, independent of Treeline's use of the library:
    // The test runs `cs2cs -f %.9f EPSG:3763 EPSG:4326` on these corners.
    static let ptTM06: [(Double, Double)] = [(-9300, 48100), (-8900, 48150), (-8850, 48500), (-9280, 48520)]

    @Test func polygonInEPSG3763MatchesTheSamePolygonInWGS84() throws {
        let input = Self.ptTM06.map { "\($0.0) \($0.1)" }.joined(separator: "\n") + "\n"
        let out = try run("cs2cs", ["-f", "%.9f", "EPSG:3763", "EPSG:4326"], input: input)
        let latlon = out.split(separator: "\n").map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Double($0) } }
        #expect(latlon.count == 4)
        let wgs = latlon.map { ($0[1], $0[0]) }  // cs2cs prints EPSG:4326 as latitude, longitude
        let national = try RegionFile.parse(collection([polygonFeature("pt", [closed(Self.ptTM06)], kind: "reforestation", extra: ",\"species\":[\"Quercus robur\"]")], crs: "EPSG:3763"), file: "pt.geojson")
        let same = try RegionFile.parse(collection([polygonFeature("pt", [closed(wgs)], kind: "reforestation", extra: ",\"species\":[\"Quercus robur\"]")]), file: "wgs.geojson")
        guard case let .polygons(a) = national[0].shape, case let .polygons(b) = same[0].shape else {
            Issue.record("expected polygons")
            return
        }
        for (p, q) in zip(a[0][0], b[0][0]) {
            #expect(abs(p.latitude - q.latitude) < 1e-8 && abs(p.longitude - q.longitude) < 1e-8, "\(p) vs \(q)")
        }
        #expect(abs(a[0][0][0].latitude - 40.10) < 0.05 && abs(a[0][0][0].longitude - -8.24) < 0.05, "lands near Lousã")
        let s1 = RegionSet(national), s2 = RegionSet(same)
        var rng = SplitMix64(seed: 9)
        let centre = a[0][0][0]
        for _ in 0..<200 {
            let p = Geodesic.wgs84.direct(from: centre, bearing: rng.uniform(0, 360), distance: rng.uniform(0, 700))
            #expect(s1.containing(p) == s2.containing(p))
            #expect(abs(s1.signedDistance(0, p) - s2.signedDistance(0, p)) < 0.01)
        }
        // The 2008 GeoJSON form of the crs member works too.
        let named = Array(String(decoding: collection([polygonFeature("pt", [closed(Self.ptTM06)], kind: "reforestation", extra: ",\"species\":[\"Quercus robur\"]")]), as: UTF8.self)
            .replacingOccurrences(of: "{\"type\":\"FeatureCollection\",", with: "{\"type\":\"FeatureCollection\",\"crs\":{\"type\":\"name\",\"properties\":{\"name\":\"urn:ogc:def:crs:EPSG::3763\"}},").utf8)
        let viaURN = try RegionFile.parse(named, file: "urn.geojson")
        #expect(viaURN[0].shape == national[0].shape)
    }
}
