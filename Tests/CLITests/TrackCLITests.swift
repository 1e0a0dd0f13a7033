import Foundation
import Geo
import Loading
import Rules
import Testing

/// The repository's root, found from this source file.
private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

@Suite struct ReplayGPX {
    /// How many points the walk's track should have, counted here without the replay's code: the
    /// fixes a fresh quality gate (the monitor's, default settings) accepts, thinned by a plain
    /// loop over the rule (2 m from the last kept point, or 30 s after it).
    static func expectedPoints(_ log: String) throws -> Int {
        var gate = QualityGate(config: MonitorConfig())
        var kept: (time: Int64, at: Coordinate)?
        var count = 0
        _ = try LogFile(path: log).replay { fix in
            guard gate.check(fix) == nil, let t = fix.time?.nanoseconds, let c = fix.coordinate else { return }
            if let k = kept, t - k.time < 30_000_000_000, Geodesic.wgs84.distance(k.at, c) < 2 { return }
            kept = (t, c)
            count += 1
        }
        return count
    }

    @Test func theWalksTrackIsValidGPXOfTheThinnedUsedFixes() throws {
        let walk = repositoryRoot.appendingPathComponent("Data/walk.nmea").path
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("treeline-\(UUID().uuidString).gpx")
        defer { try? FileManager.default.removeItem(at: out) }
        let plain = try CLI.run(["replay", walk, "--regions", repositoryRoot.appendingPathComponent("Data/regions.geojson").path])
        let r = try CLI.run(["replay", walk, "--regions", repositoryRoot.appendingPathComponent("Data/regions.geojson").path,
                             "--gpx", out.path])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stdout == plain.stdout && r.stderr == plain.stderr, "--gpx changes nothing else")

        let lint = Process()
        lint.executableURL = URL(fileURLWithPath: "/usr/bin/xmllint")
        lint.arguments = ["--nonet", "--noout", "--schema", repositoryRoot.appendingPathComponent("Tests/Fixtures/gpx/gpx.xsd").path, out.path]
        let err = Pipe()
        lint.standardError = err
        try lint.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        lint.waitUntilExit()
        #expect(lint.terminationStatus == 0, "xmllint (libxml2-utils, make deps): \(message)")

        let gpx = try String(contentsOf: out, encoding: .utf8)
        let points = gpx.components(separatedBy: "<trkpt ").count - 1
        let expected = try Self.expectedPoints(walk)
        #expect(points == expected)
        // The walk has 1,305 used fixes a second apart: thinning keeps fewer, but not few.
        #expect(expected > 100 && expected < 1305, "\(expected)")
    }

    @Test func anUnwritablePathIsAClearError() throws {
        let r = try CLI.run(["replay", repositoryRoot.appendingPathComponent("Data/walk.nmea").path,
                             "--regions", repositoryRoot.appendingPathComponent("Data/regions.geojson").path,
                             "--gpx", "/nonexistent/dir/x.gpx"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("/nonexistent/dir/x.gpx"), "stderr: \(r.stderr)")
        #expect(r.stderr.contains("No such file or directory"))
    }

    @Test func gpxNeedsRegions() throws {
        let r = try CLI.run(["replay", repositoryRoot.appendingPathComponent("Data/walk.nmea").path, "--gpx", "/tmp/never.gpx"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("--gpx") && r.stderr.contains("--regions"))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never.gpx"))
    }

    @Test func helpMentionsGPX() throws {
        let r = try CLI.run(["replay", "--help"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("--gpx") && r.stdout.contains("GPX 1.1") && r.stdout.contains("30 s"))
    }
}
