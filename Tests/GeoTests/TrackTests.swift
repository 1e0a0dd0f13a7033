import Foundation
import Geo
import Testing

/// A point `metres` along a bearing of 60° from a fixed start, `seconds` after 09:00:00.
private func point(_ seconds: Int64, metres: Double = 0, error: Double = 3) -> TrackPoint {
    let start = Coordinate(latitude: 40.1, longitude: -8.24)
    let c = metres == 0 ? start : Geodesic.wgs84.direct(from: start, bearing: 60, distance: metres)
    let t0 = UTCTime(year: 2026, month: 5, day: 1, nanosOfDay: 9 * 3600 * UTCTime.nanosPerSecond)!
    return TrackPoint(time: UTCTime(nanoseconds: t0.nanoseconds + seconds * UTCTime.nanosPerSecond), coordinate: c, error: error)
}

/// The points `thinner` admits, by index.
private func admitted(_ points: [TrackPoint], _ thinner: inout TrackThinner) -> [Int] {
    points.indices.filter { thinner.admit(points[$0]) }
}

@Suite struct TrackThinning {
    @Test func keepsAPointEveryTwoMetresFromTheLastKept() {
        // 0.9 m steps a second: 0 is kept, then the first point 2 m or more from the last kept one.
        let points = (0..<10).map { point(Int64($0), metres: 0.9 * Double($0)) }
        var thinner = TrackThinner()
        // 1.8 m from 0 is not enough; 2.7 m (3) is; then 4.5 m is 1.8 m from 3, 5.4 m (6) is 2.7 m.
        #expect(admitted(points, &thinner) == [0, 3, 6, 9])
        #expect(thinner.last == points[9])
    }

    @Test func measuresFromTheLastAdmittedNotTheLastSeen() {
        // Creeping 0.55 m at a time: no single step reaches 2 m, four of them do (2.2 m).
        let points = (0..<9).map { point(Int64($0), metres: 0.55 * Double($0)) }
        var thinner = TrackThinner()
        #expect(admitted(points, &thinner) == [0, 4, 8])
    }

    @Test func keepsAPointEveryThirtySecondsStandingStill() {
        // Jitter of 0.5 m around one place, a fix a second for 95 s.
        let points = (0...95).map { point(Int64($0), metres: $0 % 2 == 0 ? 0 : 0.5) }
        var thinner = TrackThinner()
        #expect(admitted(points, &thinner) == [0, 30, 60, 90])
    }

    @Test func otherLimits() {
        let points = (0...20).map { point(Int64($0), metres: 0.4 * Double($0)) }
        var thinner = TrackThinner(minDistance: 1, maxInterval: 5 * UTCTime.nanosPerSecond)
        // 1 m at 0.4 m/s is 3 steps (1.2 m); the 5 s rule never comes first.
        #expect(admitted(points, &thinner) == [0, 3, 6, 9, 12, 15, 18])
        var slow = TrackThinner(minDistance: 100, maxInterval: 7 * UTCTime.nanosPerSecond)
        #expect(admitted(points, &slow) == [0, 7, 14])
    }

    @Test func timeMustGoForward() {
        var thinner = TrackThinner()
        func admit(_ p: TrackPoint) -> Bool { thinner.admit(p) }
        #expect(admit(point(10)))
        // Far away but earlier, or at the same time: refused, and the last point stays.
        #expect(!admit(point(5, metres: 500)))
        #expect(!admit(point(10, metres: 500)))
        #expect(!admit(point(-1_000_000, metres: 0)))
        #expect(thinner.last == point(10))
        // After it, the rules apply again.
        #expect(admit(point(11, metres: 500)))
    }

    @Test func aGapTooLongForInt64IsLongEnough() {
        var thinner = TrackThinner()
        func admit(_ p: TrackPoint) -> Bool { thinner.admit(p) }
        #expect(admit(TrackPoint(time: UTCTime(nanoseconds: .min), coordinate: point(0).coordinate, error: 1)))
        #expect(admit(TrackPoint(time: UTCTime(nanoseconds: .max), coordinate: point(0).coordinate, error: 1)))
    }

    @Test func aResumedThinnerKeepsWhatOneThatNeverStoppedKeeps() {
        // A walk with pauses: steps of 0 to 1.5 m, a fix a second.
        var metres = 0.0
        let points = (0..<300).map { i -> TrackPoint in
            metres += Double(i % 7) * 0.25
            return point(Int64(i), metres: metres)
        }
        var whole = TrackThinner()
        let all = admitted(points, &whole)
        #expect(all.count > 30 && all.count < 300)
        for cut in [1, 57, 150, 299] {
            var before = TrackThinner()
            let first = admitted(Array(points[..<cut]), &before)
            // The daemon stored the admitted points; it restarts from the last one stored.
            let stored = first.last.map { points[$0] }
            var after = TrackThinner(last: stored)
            let second = admitted(Array(points[cut...]), &after).map { $0 + cut }
            #expect(first + second == all, "cut at \(cut)")
            // The same through the property.
            var property = TrackThinner()
            property.last = stored
            #expect(admitted(Array(points[cut...]), &property).map { $0 + cut } == second)
        }
    }

    @Test func aResumedThinnerRefusesWhatWasAlreadyStored() {
        // A replay of fixes the daemon already recorded (gpsd reconnecting, a log fed twice).
        var thinner = TrackThinner(last: point(100, metres: 50))
        func admit(_ p: TrackPoint) -> Bool { thinner.admit(p) }
        #expect(!admit(point(99, metres: 0)))
        #expect(!admit(point(100, metres: 80)))
        #expect(admit(point(101, metres: 80)))
    }
}

/// The repository's root, found from this source file.
private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Runs xmllint (Debian's libxml2-utils, `make deps`) on `gpx`; its exit status and output.
private func xmllint(_ args: [String], _ gpx: [UInt8]) throws -> (status: Int32, out: String, err: String) {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("treeline-\(UUID().uuidString).gpx")
    try Data(gpx).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/xmllint")
    p.arguments = ["--nonet"] + args + [file.path]
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
}

private let schema = repositoryRoot.appendingPathComponent("Tests/Fixtures/gpx/gpx.xsd").path

@Suite struct GPXWriting {
    @Test func aTrackIsValidGPX11() throws {
        let points = (0..<5).map { point(Int64($0 * 2), metres: 3 * Double($0)) }
        let gpx = TrackWriter.gpx(points, name: "walk", creator: "Treeline test")
        let text = String(decoding: gpx, as: UTF8.self)
        let v = try xmllint(["--noout", "--schema", schema], gpx)
        #expect(v.status == 0, "\(v.err)\n\(text)")
        #expect(text.components(separatedBy: "<trkpt ").count - 1 == 5)
        #expect(text.contains("<metadata>\n    <name>walk</name>\n    <time>2026-05-01T09:00:00.000Z</time>\n  </metadata>"))
        #expect(text.contains("<trkpt lat=\"40.1000000\" lon=\"-8.2400000\"><time>2026-05-01T09:00:00.000Z</time></trkpt>"))
        #expect(text.contains("<time>2026-05-01T09:00:08.000Z</time></trkpt>\n    </trkseg>"))
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"Treeline test\" xmlns=\"http://www.topografix.com/GPX/1/1\""))
        #expect(!text.contains("hdop"), "the error is metres, not a dilution of precision")
    }

    @Test func anEmptyTrackIsValidGPX11() throws {
        let gpx = TrackWriter.gpx([], name: "nothing yet", creator: "Treeline")
        let v = try xmllint(["--noout", "--schema", schema], gpx)
        #expect(v.status == 0, "\(v.err)")
        let text = String(decoding: gpx, as: UTF8.self)
        #expect(text.contains("<trkseg>\n    </trkseg>"))
        #expect(!text.contains("<time>"))
    }

    @Test func namesAreEscaped() throws {
        let name = "Tom & Jerry's <walk> \"north\"\tend\nline"
        let creator = "a\"b'c<d>e&f"
        let gpx = TrackWriter.gpx([point(0)], name: name, creator: creator)
        let text = String(decoding: gpx, as: UTF8.self)
        #expect(text.contains("<name>Tom &amp; Jerry&apos;s &lt;walk&gt; &quot;north&quot;&#9;end&#10;line</name>"))
        #expect(text.contains("creator=\"a&quot;b&apos;c&lt;d&gt;e&amp;f\""))
        #expect(try xmllint(["--noout", "--schema", schema], gpx).status == 0)
        // What a parser reads back is the text given.
        let readName = try xmllint(["--xpath", "string(/*[local-name()='gpx']/*[local-name()='trk']/*[local-name()='name'])"], gpx)
        #expect(readName.status == 0, "\(readName.err)")
        // xmllint ends the string it prints with a line feed of its own.
        #expect(readName.out == name + "\n")
        let readCreator = try xmllint(["--xpath", "string(/*[local-name()='gpx']/@creator)"], gpx)
        #expect(readCreator.out == creator + "\n")
    }

    @Test func whatXMLCannotCarryIsReplaced() throws {
        let gpx = TrackWriter.gpx([point(0)], name: "bell\u{07}nul\u{0}end\u{FFFF}é🌲", creator: "x")
        let text = String(decoding: gpx, as: UTF8.self)
        #expect(text.contains("<name>bell\u{FFFD}nul\u{FFFD}end\u{FFFD}é🌲</name>"))
        #expect(try xmllint(["--noout", "--schema", schema], gpx).status == 0)
    }

    @Test func longitudesStayInTheSchemasRange() throws {
        // GPX's longitude is [-180, 180): the antimeridian is written as -180.
        let points = [
            TrackPoint(time: point(0).time, coordinate: Coordinate(latitude: -90, longitude: 180), error: 1),
            TrackPoint(time: point(1).time, coordinate: Coordinate(latitude: 90, longitude: 179.99999999), error: 1),
            TrackPoint(time: point(2).time, coordinate: Coordinate(latitude: 0, longitude: -180), error: 1),
            TrackPoint(time: point(3).time, coordinate: Coordinate(latitude: .nan, longitude: 0), error: 1),
        ]
        let gpx = TrackWriter.gpx(points, name: "edge", creator: "x")
        let text = String(decoding: gpx, as: UTF8.self)
        #expect(text.contains("lat=\"-90.0000000\" lon=\"-180.0000000\""))
        #expect(text.contains("lat=\"90.0000000\" lon=\"-180.0000000\""))
        #expect(text.contains("lat=\"0.0000000\" lon=\"-180.0000000\""))
        #expect(text.components(separatedBy: "<trkpt ").count - 1 == 3, "a coordinate that is not one is left out")
        let v = try xmllint(["--noout", "--schema", schema], gpx)
        #expect(v.status == 0, "\(v.err)")
    }
}

@Suite struct GeoJSONTrack {
    private func parse(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func aTrackIsALineStringFeature() throws {
        let points = (0..<4).map { point(Int64($0), metres: 5 * Double($0)) }
        let f = try parse(TrackWriter.geoJSON(points, name: "walk \"one\""))
        #expect(f["type"] as? String == "Feature")
        let geometry = try #require(f["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "LineString")
        let coordinates = try #require(geometry["coordinates"] as? [[Double]])
        #expect(coordinates.count == 4)
        for (position, p) in zip(coordinates, points) {
            #expect(position.count == 2)
            #expect(abs(position[0] - p.coordinate.longitude) < 1e-7, "[lon, lat]")
            #expect(abs(position[1] - p.coordinate.latitude) < 1e-7)
        }
        let properties = try #require(f["properties"] as? [String: Any])
        #expect(properties["name"] as? String == "walk \"one\"")
        #expect(properties["points"] as? Int == 4)
        #expect(properties["times"] as? [String] == ["2026-05-01T09:00:00.000Z", "2026-05-01T09:00:01.000Z",
                                                      "2026-05-01T09:00:02.000Z", "2026-05-01T09:00:03.000Z"])
        #expect(Set(f.keys) == ["type", "geometry", "properties"])
    }

    @Test func onePointIsAPointAndNoneIsNullGeometry() throws {
        let one = try parse(TrackWriter.geoJSON([point(7)], name: "one"))
        let geometry = try #require(one["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Point")
        #expect(geometry["coordinates"] as? [Double] == [-8.24, 40.1])
        let oneProperties = try #require(one["properties"] as? [String: Any])
        #expect(oneProperties["points"] as? Int == 1)
        #expect(oneProperties["times"] as? [String] == ["2026-05-01T09:00:07.000Z"])

        let none = try parse(TrackWriter.geoJSON([], name: "none"))
        #expect(none["type"] as? String == "Feature")
        #expect(none["geometry"] is NSNull, "an unlocated Feature has a null geometry (RFC 7946, 3.2)")
        let noneProperties = try #require(none["properties"] as? [String: Any])
        #expect(noneProperties["points"] as? Int == 0)
        #expect((noneProperties["times"] as? [Any])?.isEmpty == true)
    }

    @Test func invalidCoordinatesAreLeftOut() throws {
        var bad = point(1)
        bad.coordinate = Coordinate(latitude: 91, longitude: 0)
        let f = try parse(TrackWriter.geoJSON([point(0), bad], name: "x"))
        let geometry = try #require(f["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Point")
        #expect((f["properties"] as? [String: Any])?["points"] as? Int == 1)
    }
}
