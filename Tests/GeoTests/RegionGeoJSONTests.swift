import Foundation
import Geo
import Testing
import Regions

// `Region.appendFeature` / `featureJSON` (Region+GeoJSON.swift): the one writer of regions back
// to GeoJSON. What it writes, `RegionFile` reads back as the same region, and writing that again
// gives the same bytes (the daemon tells a changed region from an unchanged one by them).

private let rgDataDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Data")

private func rgDataRegions(_ name: String) throws -> [Region] {
    try RegionFile.parse(Array(Data(contentsOf: rgDataDirectory.appendingPathComponent(name))), file: name)
}

/// `feature` wrapped in a FeatureCollection and read as a regions file.
private func rgReadBack(_ feature: [UInt8]) throws -> Region {
    let bytes = Array(#"{"type":"FeatureCollection","features":["#.utf8) + feature + Array("]}".utf8)
    let regions = try RegionFile.parse(bytes, file: "written.geojson")
    try #require(regions.count == 1)
    return regions[0]
}

private func rgClose(_ a: Coordinate, _ b: Coordinate) -> Bool {
    abs(a.latitude - b.latitude) <= 1e-9 && abs(a.longitude - b.longitude) <= 1e-9
}

/// Every field equal, coordinates within 1e-9 degree; what differs, for the message.
private func rgDifferences(_ a: Region, _ b: Region) -> [String] {
    var out: [String] = []
    if a.id != b.id { out.append("id") }
    if a.kind != b.kind { out.append("kind") }
    if a.name != b.name { out.append("name") }
    if a.intervalDays != b.intervalDays { out.append("interval_days") }
    if a.lastWatered != b.lastWatered { out.append("last_watered") }
    if a.species != b.species { out.append("species") }
    if a.priority != b.priority { out.append("priority") }
    if a.note != b.note { out.append("note") }
    if a.project != b.project { out.append("project") }
    switch (a.shape, b.shape) {
    case let (.circle(ca, ra), .circle(cb, rb)):
        if !rgClose(ca, cb) { out.append("centre \(ca) vs \(cb)") }
        if ra != rb { out.append("radius \(ra) vs \(rb)") }
    case let (.polygons(pa), .polygons(pb)):
        guard pa.count == pb.count, zip(pa, pb).allSatisfy({ $0.count == $1.count && zip($0, $1).allSatisfy { $0.count == $1.count } }) else {
            out.append("polygon structure")
            break
        }
        for (p, (ra, rb)) in zip(pa, pb).enumerated() {
            for (k, (a, b)) in zip(ra, rb).enumerated() where !zip(a, b).allSatisfy(rgClose) {
                out.append("part \(p + 1) ring \(k) positions")
            }
        }
    default:
        out.append("shape kind")
    }
    return out
}

/// Regions the data files lack: every optional property, a MultiPolygon, text to escape.
private let rgSynthetic: [Region] = {
    let c = Coordinate(latitude: 40.123456789, longitude: -8.2345678912)
    func square(_ lon: Double, _ lat: Double, _ d: Double) -> [Coordinate] {
        [(lon, lat), (lon + d, lat), (lon + d, lat + d), (lon, lat + d)].map { Coordinate(latitude: $0.1, longitude: $0.0) }
    }
    return [
        Region(id: "plant-never", kind: .plant, name: "Basil \"the green\" by the door", shape: .circle(center: c, radius: 2.5),
               intervalDays: 365, note: "a note with \\ and ünïcødé ✓", project: "kitchen"),
        Region(id: "plant-watered", kind: .plant, name: "Oak", shape: .circle(center: c, radius: 30), intervalDays: 1,
               lastWatered: UTCTime(year: 2026, month: 4, day: 20, nanosOfDay: 8 * 3_600_000_000_000 + 250_000_000), priority: -2.75),
        Region(id: "album-wide", kind: .album, name: "Bay", shape: .circle(center: Coordinate(latitude: -33.9, longitude: 151.2), radius: 1_000_000),
               priority: 10),
        Region(id: "ref-two-parts", kind: .reforestation, name: "Two slopes",
               shape: .polygons([[square(-8.24, 40.1, 0.01), square(-8.237, 40.103, 0.002)], [square(-8.2, 40.1, 0.005)]]),
               species: ["Quercus robur", "Arbutus unedo"], note: "north and south", project: "spring 2026"),
    ]
}()

@Suite struct RegionGeoJSONRoundTrip {
    static let files = ["regions.geojson", "regions-pt-tm06.geojson"]

    @Test(arguments: files) func everyRegionOfADataFileReadsBackEqualAndWritesTheSameBytes(_ file: String) throws {
        let regions = try rgDataRegions(file)
        #expect(!regions.isEmpty)
        for region in regions {
            var written: [UInt8] = []
            region.appendFeature(to: &written)
            #expect(String(decoding: written, as: UTF8.self) == region.featureJSON)
            let back = try rgReadBack(written)
            #expect(rgDifferences(region, back).isEmpty, "\(file) \(region.id): \(rgDifferences(region, back))")
            #expect(back.featureJSON == region.featureJSON, "\(file) \(region.id): written again, the same bytes")
        }
    }

    @Test func theTwoDataFilesHoldPlantsAlbumsAndAreas() throws {
        // So that the round trip above covers every kind, and waterings.
        let regions = try Self.files.flatMap(rgDataRegions)
        #expect(Set(regions.map(\.kind)) == Set(RegionKind.allCases))
        #expect(regions.contains { $0.lastWatered != nil })
        #expect(regions.contains { if case .polygons = $0.shape { true } else { false } })
        #expect(regions.contains { if case .circle = $0.shape { true } else { false } })
    }

    @Test func everyOptionalPropertyRoundTrips() throws {
        for region in rgSynthetic {
            let back = try rgReadBack(Array(region.featureJSON.utf8))
            #expect(rgDifferences(region, back).isEmpty, "\(region.id): \(rgDifferences(region, back))")
            #expect(back.featureJSON == region.featureJSON)
        }
    }

    @Test func whatTheFeatureSays() {
        let c = Coordinate(latitude: 40.1, longitude: -8.24)
        let plant = Region(id: "oak", kind: .plant, name: "Oak", shape: .circle(center: c, radius: 30), intervalDays: 7,
                           lastWatered: UTCTime(year: 2026, month: 4, day: 20, nanosOfDay: 8 * 3_600_000_000_000))
        #expect(plant.featureJSON == #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-8.24,40.1]},"properties":{"id":"oak","kind":"plant","name":"Oak","radius_m":30,"interval_days":7,"last_watered":"2026-04-20T08:00:00.000Z"}}"#)
        let ring = [(-9.14, 38.70), (-9.13, 38.70), (-9.13, 38.71)].map { Coordinate(latitude: $0.1, longitude: $0.0) }
        let area = Region(id: "a", kind: .reforestation, name: "A", shape: .polygons([[ring]]), species: ["Quercus robur"])
        #expect(area.featureJSON == #"{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[-9.14,38.7],[-9.13,38.7],[-9.13,38.71],[-9.14,38.7]]]},"properties":{"id":"a","kind":"reforestation","name":"A","species":["Quercus robur"]}}"#,
                "rings closed; no radius for a polygon")
    }

    @Test func theMonitorsWateringReplacesTheRegionsAndNilMeansNever() throws {
        let c = Coordinate(latitude: 40.1, longitude: -8.24)
        let filed = UTCTime(year: 2026, month: 4, day: 20)!
        let later = UTCTime(year: 2026, month: 5, day: 2, nanosOfDay: 3_600_000_000_000)!
        let plant = Region(id: "oak", kind: .plant, name: "Oak", shape: .circle(center: c, radius: 30), intervalDays: 7, lastWatered: filed)
        #expect(plant.featureJSON.contains(#""last_watered":"2026-04-20T00:00:00.000Z""#))

        var never: [UInt8] = []
        plant.appendFeature(to: &never, lastWatered: .some(nil))
        #expect(!String(decoding: never, as: UTF8.self).contains("last_watered"))
        #expect(try rgReadBack(never).lastWatered == nil, "read back: never watered, due now")

        var moved: [UInt8] = []
        plant.appendFeature(to: &moved, lastWatered: .some(later))
        #expect(String(decoding: moved, as: UTF8.self).contains(#""last_watered":"2026-05-02T01:00:00.000Z""#))
        #expect(try rgReadBack(moved).lastWatered == later)

        var asFiled: [UInt8] = []
        plant.appendFeature(to: &asFiled, lastWatered: nil)
        #expect(String(decoding: asFiled, as: UTF8.self) == plant.featureJSON, "no override: the region's own")
    }
}
