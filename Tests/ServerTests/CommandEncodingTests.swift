import AR
import Foundation
import Geo
import JSON
import Protocol
import Regions
import Testing

/// `Command.json` writes what `Command.parse` reads: every command of the golden script, and
/// values at the edges, come back as the same command.
@Suite struct CommandEncoding {
    static let goldenFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("GoldenTests")

    /// The request lines of `ProtocolGoldenTests.script` (its raw string literals), read from its
    /// source so that a command added there is tried here too.
    static func goldenScript() throws -> [String] {
        let source = try String(contentsOf: goldenFolder.appendingPathComponent("ProtocolGoldenTests.swift"), encoding: .utf8)
        guard let start = source.range(of: "static let script: [String] = ["), let end = source.range(of: "\n    ]\n", range: start.upperBound..<source.endIndex)
        else { return [] }
        return source[start.upperBound..<end.lowerBound].split(separator: "\n").compactMap { line in
            let t = line.trimmingCharacters(in: .whitespaces)
            guard t.hasPrefix("#\""), t.hasSuffix("\"#,") else { return nil }
            return String(t.dropFirst(2).dropLast(3))
        }
    }

    func roundTrip(_ c: Command, _ note: Comment? = nil) {
        let bytes = c.json
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(throws: Never.self, "\(text)") { _ = try Command.parse(bytes) }
        guard let back = try? Command.parse(bytes) else { return }
        #expect(back == c, "\(text)")
        #expect(back.json == bytes, "\(text)")
    }

    func parsed(_ line: String) throws -> Command { try Command.parse(Array(line.utf8)) }

    @Test func everyCommandOfTheGoldenScriptComesBack() throws {
        let script = try Self.goldenScript()
        #expect(script.count > 50, "the script's lines were found")
        var names: Set<String> = []
        for line in script {
            guard let c = try? parsed(line) else { continue }
            names.insert(c.name)
            roundTrip(c, "\(line)")
        }
        #expect(names == Set(Command.commands), "every command is tried")
    }

    @Test func theBytesAreThoseAClientWouldWrite() throws {
        #expect(String(decoding: Command.state.json, as: UTF8.self) == #"{"cmd":"state"}"#)
        #expect(String(decoding: Command.removeTree(id: nil).json, as: UTF8.self) == #"{"cmd":"undo_tree"}"#)
        let plant = Command.plant(species: "Quercus robur", area: nil, at: Coordinate(latitude: 40.1, longitude: -8.24), project: nil, planted: nil)
        #expect(String(decoding: plant.json, as: UTF8.self) == #"{"cmd":"plant","species":"Quercus robur","at":[40.1,-8.24]}"#)
        let update = Command.updateRegion(id: "plant-1", RegionUpdate(radius: 30, lastWatered: .some(nil), note: .some(nil)))
        #expect(String(decoding: update.json, as: UTF8.self) == #"{"cmd":"update_region","region":"plant-1","radius_m":30,"last_watered":null,"note":null}"#)
    }

    @Test func unicodeAndQuotedTextComeBack() throws {
        let names = ["Ünïcødé 🌱", "Carvalho \"velho\" \\ junto/ao muro", "项目-春", "Ñandú", "emoji 👩‍🌾 zwj"]
        for n in names {
            roundTrip(.plant(species: n, area: n, at: nil, project: n, planted: nil))
            roundTrip(.addRegion(.short(ShortRegion(kind: .plant, name: n, intervalDays: 3, species: n, note: n))))
            roundTrip(.updateRegion(id: "p-1", RegionUpdate(species: [])))
            roundTrip(.capture(album: "album-1", file: n, note: n))
            roundTrip(.species(query: n))
            roundTrip(.updateRegion(id: "plant-1", RegionUpdate(name: n, species: [n, n + "2"], note: .some(n))))
        }
        roundTrip(.subscribe(Subscribe(filter: EventFilter(kinds: ["plant", "album"], regions: ["área-ç", "x"], types: ["enter"]), since: 3,
                                       timing: true, positions: true)))
    }

    @Test func numbersComeBackExactly() throws {
        let values: [Double] = [40.123456789012345, -8.987654321098765, 1e-7, -1e-7, 5e-324, 0, -0.0, 90, -90, 180, -180, 0.1, 1.0 / 3,
                                89.99999999999999, -179.99999999999997, 12.5, 1_000_000, 2.220446049250313e-16]
        for lat in values where abs(lat) <= 90 {
            for lon in values.reversed() where abs(lon) <= 180 {
                let at = Coordinate(latitude: lat, longitude: lon)
                roundTrip(.canPlant(species: "Quercus robur", area: nil, at: at))
                roundTrip(.addRegion(.short(ShortRegion(kind: .album, name: "A", radius: 1 + abs(lon), at: at))))
            }
        }
        for seed: UInt64 in [0, 1, 7, 1 << 32, (1 << 53) - 1, 1 << 53] {
            roundTrip(.plan(area: "area-a", species: "Pinus pinaster", count: 10_000, at: Coordinate(latitude: 40.1000001, longitude: -8.2400009),
                            maxDistance: 0.1 + 0.2, seed: seed))
        }
        roundTrip(.removeTree(id: 1 << 53))
        roundTrip(.subscribe(Subscribe(since: 1 << 53)))
        roundTrip(.subscribe(Subscribe(since: 9, journal: "5f0c\u{1F332}\"x")))
        roundTrip(.updateRegion(id: "plant-1", RegionUpdate(radius: 1.000000000000001, intervalDays: 365)))
    }

    @Test func timesComeBackToTheNanosecond() throws {
        let times = ["2026-05-01T08:00:00Z", "2026-05-01T08:00:00.123456789Z", "2026-05-01T08:00:00.5+01:00", "2026-05-01", "1969-12-31T23:59:59.999999999Z",
                     "1970-01-01T00:00:00.000001Z", "2261-12-31T23:59:59.999Z", "1678-01-01T00:00:00Z"]
        for text in times {
            let t = try #require(UTCTime(iso8601: text))
            roundTrip(.track(since: t, until: UTCTime(nanoseconds: t.nanoseconds + 1)))
            roundTrip(.plant(species: "Quercus robur", area: "area-a", at: nil, project: "p", planted: t))
            roundTrip(.updateRegion(id: "plant-1", RegionUpdate(lastWatered: .some(t))))
            roundTrip(.addRegion(.short(ShortRegion(kind: .plant, id: "p-1", name: "P", intervalDays: 1, lastWatered: t))))
        }
        #expect(throws: CommandError.self) { _ = try Command.time("yesterday", key: "since") }
        #expect(try Command.time("2026-05-01", key: "since") == UTCTime(iso8601: "2026-05-01T00:00:00Z"))
    }

    @Test func absentOptionalKeysStayAbsent() throws {
        let commands: [Command] = [
            .canPlant(species: nil, area: nil, at: nil), .plant(species: "Quercus robur", area: nil, at: nil, project: nil, planted: nil),
            .trees(area: nil, project: nil), .captures(album: nil), .track(since: nil, until: nil), .subscribe(Subscribe()),
            .regions(geometry: false), .regions(geometry: true), .species(query: ""), .capture(album: "a", file: nil, note: nil),
            .plan(area: "a", species: "s", count: 1, at: nil, maxDistance: nil, seed: 1), .export, .state, .removeTree(id: nil),
            .addRegion(.short(ShortRegion(kind: .album, name: "Beach"))), .updateRegion(id: "x", RegionUpdate(name: "Y")),
        ]
        for c in commands {
            roundTrip(c)
            #expect(!String(decoding: c.json, as: UTF8.self).contains("null"))
        }
        #expect(String(decoding: Command.trees(area: nil, project: nil).json, as: UTF8.self) == #"{"cmd":"trees"}"#)
    }

    @Test func layoutsComeBack() throws {
        let camera = Camera(screenWidth: 390.5, screenHeight: 844, horizontalFOV: 60.123456789, verticalFOV: 80, heading: -359.999999, pitch: 12.5,
                            projection: .pinhole)
        for offset in [DistanceOffset.none, .automatic, .manual(threshold: 10.25, pixelsPerMetre: 1e-7), .manual(threshold: 0, pixelsPerMetre: 10_000)] {
            for maxLevels in [nil, 0, 3] {
                let sizes: [String: BoxSize] = maxLevels == 3 ? ["plant-1": BoxSize(width: 212.25, height: 74), "Área \"7\"": BoxSize(width: 1, height: 16_384)] : [:]
                let options = LayoutOptions(boxWidth: 120.5, boxHeight: 44, sizes: sizes, offset: offset, maxDistance: 5000.5, maxVisible: 2,
                                            maxLevels: maxLevels, clampToScreen: true)
                roundTrip(.layout(camera: camera, options: options, at: Coordinate(latitude: 40.0995001, longitude: -8.2415001), panorama: false))
                roundTrip(.layout(camera: Camera(screenWidth: 360, screenHeight: 740, horizontalFOV: 60, verticalFOV: 80, heading: 0),
                                  options: options, at: nil, panorama: true))
            }
        }
    }

    @Test func featuresComeBackAsTheSameRegions() throws {
        let features = [
            #"{"type":"Feature","properties":{"kind":"plant","name":"Fig","interval_days":4,"radius_m":12.345678901,"last_watered":"2026-04-30T08:00:00.123456789Z","note":"by the wall/gate","project":"p","priority":0.1234567890123},"geometry":{"type":"Point","coordinates":[-8.24021234567891,40.10021234567891]}}"#,
            #"{"type":"Feature","properties":{"id":"t-1","kind":"reforestation","name":"Área","species":["Quercus robur","Pinus pinaster"]},"geometry":{"type":"MultiPolygon","coordinates":[[[[-8.2410,40.0995],[-8.2390,40.0995],[-8.2390,40.1005],[-8.2410,40.1005],[-8.2410,40.0995]]],[[[-8.2310000001,40.0995],[-8.2290,40.0995],[-8.2290,40.1005],[-8.2310000001,40.0995]]]]}}"#,
            #"{"type":"Feature","properties":{"id":"ref","kind":"reforestation","species":["Arbutus unedo"],"radius_m":50.5},"geometry":{"type":"Point","coordinates":[-8.24,40.1,212.5]}}"#,
            #"{"type":"Feature","properties":{"id":"al","kind":"album","name":"Praia"},"geometry":{"type":"Point","coordinates":[1e-7,-1e-7]}}"#,
        ]
        for f in features {
            roundTrip(try parsed(#"{"cmd":"add_region","feature":"# + f + "}"), "\(f)")
        }
        let ided = features.filter { $0.contains(#""id":"#) }
        roundTrip(try parsed(#"{"cmd":"add_regions","features":["# + ided.joined(separator: ",") + "]}"))
    }
}
