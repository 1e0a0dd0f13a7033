import Config
import Foundation
import Rules
import Testing

@Suite struct ConfigFile {
    let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Data/treeline.yaml")

    @Test func theSampleIsTheDefaults() throws {
        let text = try String(contentsOf: sample, encoding: .utf8)
        #expect(try TreelineConfig.parse(text, file: "treeline.yaml") == TreelineConfig())
        #expect(try TreelineConfig.parse("", file: "empty.yaml") == TreelineConfig())
    }

    @Test func valuesAreRead() throws {
        let c = try TreelineConfig.parse("""
            gpsd: {host: gps.local, port: 3000}
            regions: [a.geojson, b.geojson]
            monitor:
              hysteresis_m: 8
              accuracy_factor: 0.5
              dwell_s: 0
              transit: false
              initial_enter: yes
            """, file: "c.yaml")
        #expect(c.gpsdHost == "gps.local" && c.gpsdPort == 3000 && c.regions == ["a.geojson", "b.geojson"])
        #expect(c.monitor.hysteresisMetres == 8 && c.monitor.accuracyFactor == 0.5 && c.monitor.dwellSeconds == 0)
        #expect(!c.monitor.transit && c.monitor.initialEnter && c.monitor.maxErrorMetres == 50)
    }

    @Test func everyProblemNamesFileLineKeyAndReason() {
        do {
            _ = try TreelineConfig.parse("""
                monitor:
                  dwel_s: 30
                  hysteresis_m: -1
                  transit: maybe
                gpsd:
                  port: 99999
                colour: green
                """, file: "bad.yaml")
            Issue.record("a config with errors was accepted")
        } catch {
            let d = error.issues.map(\.description)
            #expect(d.contains { $0.hasPrefix("bad.yaml:2:3: monitor.dwel_s: unknown key") && $0.hasSuffix("did you mean dwell_s?") })
            #expect(d.contains { $0.hasPrefix("bad.yaml:3:17: monitor.hysteresis_m: must be at least 0") })
            #expect(d.contains { $0.contains("monitor.transit: must be true or false") })
            #expect(d.contains { $0.contains("gpsd.port: must be a port number") })
            #expect(d.contains { $0.hasPrefix("bad.yaml:7:1: colour: unknown key") })
            #expect(error.issues.count == 5)
        }
    }

    /// `http.tiles`: a tile URL, an MBTiles file, or a list of them (layers); anything else says
    /// what it may be.
    @Test func tilesAreAURLOrMBTilesFiles() throws {
        func http(_ tiles: String) throws(ConfigError) -> HTTPConfig? { try TreelineConfig.parse("http:\n  tiles: \(tiles)\n", file: "t.yaml").http }
        #expect(try http("https://tile.openstreetmap.org/{z}/{x}/{y}.png")?.tiles == "https://tile.openstreetmap.org/{z}/{x}/{y}.png")
        #expect(try http("/var/lib/treeline/ortho.mbtiles")?.tileFiles == ["/var/lib/treeline/ortho.mbtiles"])
        #expect(try http("[/srv/ortho.mbtiles, /srv/topo.mbtiles]")?.tileFiles == ["/srv/ortho.mbtiles", "/srv/topo.mbtiles"])
        for bad in ["ortho.mbtiles", "[ortho.mbtiles]", "[]", "[/a.mbtiles, 3]", "https://example.org/tiles.png", "[" + (0...16).map { "/t\($0).mbtiles" }.joined(separator: ", ") + "]"] {
            do {
                _ = try http(bad)
                Issue.record("http.tiles: \(bad) was taken")
            } catch {
                #expect(error.issues.first?.description.contains("http.tiles: must be a tile URL with {z}, {x} and {y}") == true, "\(bad): \(error.issues)")
            }
        }
    }

    @Test func notYAMLGivesTheLine() {
        do {
            _ = try TreelineConfig.parse("monitor:\n  dwell_s: [1, 2\n", file: "broken.yaml")
            Issue.record("broken YAML was accepted")
        } catch {
            #expect(error.issues.count == 1)
            #expect(error.issues[0].message.hasPrefix("not YAML"))
            #expect(error.issues[0].line != nil)
        }
    }
}
