import Foundation
import Testing

/// Runs the real `treeline` binary built beside the tests.
enum CLI {
    static var binary: URL {
        // The test bundle lives in the build products folder, next to the executables. On Linux
        // Foundation reports that folder as the bundle; on macOS the bundle is the .xctest inside it.
        let bundle = Bundle(for: Marker.self).bundleURL
        let products = bundle.pathExtension == "xctest" ? bundle.deletingLastPathComponent() : bundle
        return products.appendingPathComponent("treeline")
    }

    final class Marker {}

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Where the runs keep their prepared regions (`XDG_CACHE_HOME`): the tests' own folder (the
    /// folder keeps 8 stores), not the home's cache.
    static let cacheHome: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("treeline-tests-cache").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// `environment` is added to the test's own (`XDG_CACHE_HOME` is `cacheHome` unless given).
    static func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:]) throws -> Result {
        let p = Process()
        p.executableURL = binary
        p.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["XDG_CACHE_HOME"] = cacheHome
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = inp
        try p.run()
        if let stdin { inp.fileHandleForWriting.write(stdin) }
        try inp.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    /// A small log written to a temporary file.
    static func tempLog(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("treeline-\(UUID().uuidString).nmea")
        try Data(text.utf8).write(to: url)
        return url
    }
}

let sampleLog = """
$GPRMC,175134.00,A,3842.0000,N,00908.4000,W,1.944,90.00,060419,,,A*4A\r
$GPGGA,175134.00,3842.0000,N,00908.4000,W,1,09,0.90,41.5,M,50.1,M,,*77\r
$GPGST,175134.00,1.2,2.0,1.5,30.0,1.8,1.4,2.5*6F\r
$GPRMC,175135.00,V,,,,,,,060419,,,N*73\r
$GPGGA,175135.00,,,,,0,00,99.99,,,,,,*62\r
$GPRMC,175136.00,A,3842.0010,N,00908.3990,W,2.000,91.00,060419,,,A*45\r
garbage line\r
$GPGGA,175136.00,3842.0010,N,00908.3990,W,1,09,0.90,41.7,M,50.1,M,,*00\r
$PGRME,15.0,M,45.0,M,25.0,M*1C\r

"""

@Suite struct ReplayCommand {
    @Test func fixesAreJSONLinesWithGpsdNames() throws {
        let log = try CLI.tempLog(sampleLog)
        defer { try? FileManager.default.removeItem(at: log) }
        let r = try CLI.run(["replay", log.path, "--fixes"])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(first["time"] as? String == "2019-04-06T17:51:34.000Z")
        #expect(first["mode"] as? Int == 3)
        #expect(abs((first["lat"] as? Double ?? 0) - 38.7) < 1e-9)
        #expect(abs((first["lon"] as? Double ?? 0) - -9.14) < 1e-9)
        #expect(first["altMSL"] as? Double == 41.5)
        #expect(abs((first["speed"] as? Double ?? 0) - 1.944 * 1852 / 3600) < 0.001)
        #expect(first["track"] as? Double == 90)
        #expect(abs((first["eph"] as? Double ?? 0) - (1.8 * 1.8 + 1.4 * 1.4).squareRoot()) < 0.001)
        #expect(first["hdop"] as? Double == 0.9)
        #expect(first["satellites"] as? Int == 9)
        #expect(Set(first.keys) == ["time", "mode", "lat", "lon", "altMSL", "speed", "track", "eph", "hdop", "satellites"])
        let second = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        #expect(Set(second.keys).isDisjoint(with: ["lat", "lon", "altMSL", "speed", "track", "eph"]), "a no-fix epoch has no position")
        #expect(second["satellites"] as? Int == 0)
        #expect(second["mode"] as? Int == 1)
        #expect(r.stderr.isEmpty)
    }

    @Test func statsCountWhatTheLogHeld() throws {
        let log = try CLI.tempLog(sampleLog)
        defer { try? FileManager.default.removeItem(at: log) }
        let r = try CLI.run(["replay", log.path, "--stats"])
        #expect(r.status == 0)
        func value(_ name: String) -> Int? {
            for line in r.stdout.split(separator: "\n") {
                let parts = line.split(separator: " ", omittingEmptySubsequences: true)
                if parts.count >= 2, parts.dropLast().joined(separator: " ") == name { return Int(parts.last!) }
            }
            return nil
        }
        #expect(value("lines") == 9)
        #expect(value("sentences") == 7)
        #expect(value("RMC") == 3 && value("GGA") == 2 && value("GST") == 1 && value("PGRM") == 1)
        #expect(value("bad checksum") == 1)
        #expect(value("garbage") == 1)
        #expect(value("skipped") == 1)
        #expect(value("fixes") == 3)
        #expect(value("3D") == 1 && value("2D") == 1 && value("no fix") == 1)
    }

    @Test func statsGoToStderrBesideFixes() throws {
        let log = try CLI.tempLog(sampleLog)
        defer { try? FileManager.default.removeItem(at: log) }
        let r = try CLI.run(["replay", log.path, "--fixes", "--stats"])
        #expect(r.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("{") })
        #expect(r.stderr.contains("bad checksum"))
    }

    @Test func dashReadsStandardInput() throws {
        let r = try CLI.run(["replay", "-", "--fixes"], stdin: Data(sampleLog.utf8))
        #expect(r.status == 0)
        #expect(r.stdout.split(separator: "\n").count == 3)
    }

    @Test func unreadableFileIsAClearErrorAndNonZeroExit() throws {
        let r = try CLI.run(["replay", "/nonexistent/walk.nmea"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("/nonexistent/walk.nmea"))
        #expect(r.stderr.contains("No such file"))
        let dir = try CLI.run(["replay", "/tmp"])
        #expect(dir.status != 0)
        #expect(dir.stderr.contains("is a directory"))
    }

    @Test func helpExplains() throws {
        let r = try CLI.run(["replay", "--help"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("--fixes") && r.stdout.contains("--stats") && r.stdout.contains("standard input"))
    }
}

@Suite struct WatchCommandInput {
    @Test func badOptionsAreClearErrors() throws {
        let both = try CLI.run(["watch", "--fixes", "--regions", "r.geojson"])
        #expect(both.status != 0 && both.stderr.contains("give one"))
        let port = try CLI.run(["watch", "--port", "70000"])
        #expect(port.status != 0 && port.stderr.contains("--port must be 1 to 65535"))
        let silence = try CLI.run(["watch", "--silence-s", "0"])
        #expect(silence.status != 0 && silence.stderr.contains("--silence-s"))
        let regions = try CLI.run(["watch", "--regions", "/nonexistent.geojson"])
        #expect(regions.status != 0 && regions.stderr.contains("cannot open regions file '/nonexistent.geojson'"))
    }

    @Test func helpExplainsReconnection() throws {
        let r = try CLI.run(["watch", "--help"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("at most 10 s") && r.stdout.contains("--regions"))
    }
}
