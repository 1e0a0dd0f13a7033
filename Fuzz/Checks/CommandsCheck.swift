#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Engine
import Geo
import Loading
import Logging
import Rules
import Server
import Store
import JSON
import Regions
import Protocol

/// `commands`: each line of the input (at most 16) as a socket command, run as the daemon runs it:
/// parsed by the socket's parser, then answered by the daemon's own engine, on a real SQLite
/// journal in a folder of its own, with a plant, an album and a reforestation area around a fix
/// inside them, and the species catalog. No trap, no hang (libFuzzer's `-timeout=2` catches a
/// command that does not end), and every answer is one JSON object.
///
/// The engine lives across inputs as the daemon's does, so commands build on the state earlier
/// ones left (regions added, trees planted); it is made afresh every `freshEvery` inputs, so the
/// journal and the layers stay the size a board has.
public enum CommandsFuzz {
    static let freshEvery = 2_000
    static let maxLines = 16

    public static func check(_ input: UnsafeRawBufferPointer) {
        let engine = World.shared.engine()
        var lines = 0
        var start = input.startIndex
        while start < input.endIndex, lines < maxLines {
            let end = input[start...].firstIndex(of: 0x0A) ?? input.endIndex
            run(UnsafeRawBufferPointer(rebasing: input[start..<end]), engine)
            lines += 1
            start = end + 1
        }
    }

    static func run(_ line: UnsafeRawBufferPointer, _ engine: Engine) {
        guard let request = try? Command.parse(line) else { return }
        if case .subscribe = request { return }  // the connection's, not the engine's
        let answer = waitFor { await engine.answer(request) }
        guard case .success(let json) = answer else { return }
        guard let doc = try? JSONDocument.parse(json), case .object = doc.root else {
            fuzzFailure("\(request): the answer is not one JSON object: \(String(decoding: json.prefix(200), as: UTF8.self))")
        }
    }

    /// The engine and its folder, made afresh every `freshEvery` inputs.
    final class World: @unchecked Sendable {
        static let shared = World()
        private var current: (engine: Engine, folder: String)?
        private var uses = 0

        func engine() -> Engine {
            uses += 1
            if let current, uses % CommandsFuzz.freshEvery != 0 { return current.engine }
            if let old = current { remove(old.folder) }
            let made = Self.make()
            current = made
            return made.engine
        }

        static func make() -> (engine: Engine, folder: String) {
            var template = Array("/tmp/treeline-fuzz-commands-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { fuzzFailure("cannot make a folder in /tmp") }
            let folder = String(cString: made)
            let regions: [Region]
            do { regions = try RegionFile.parse(Array(Self.regions.utf8), file: "fuzz.geojson") } catch {
                fuzzFailure("the fuzz target's own regions: \(error)")
            }
            var logger = Logger(label: "fuzz-commands")
            logger.logLevel = .critical
            let engine: Engine
            do {
                let store = try Store(path: folder + "/treeline.sqlite")
                engine = try Engine(store: store, base: regions.map { ($0, "fuzz.geojson") }, config: MonitorConfig(),
                                    retention: Retention(journalDays: 36_500, trackDays: 36_500), hub: Hub(), version: "fuzz",
                                    logger: logger, onStatus: { _ in })
            } catch {
                fuzzFailure("an engine on \(folder): \(error)")
            }
            let catalog: Result<SpeciesCatalog, DaemonError>
            do { catalog = .success(try Loader.catalog(["Data/species.json", "/usr/share/treeline/species.json"])) } catch {
                catalog = .failure(DaemonError(error.description))
            }
            waitFor {
                do { try await engine.start() } catch { fuzzFailure("the engine's start: \(error)") }
                await engine.setCatalog(catalog)
                // A walk into the regions: fixes one second apart, the last inside all three.
                for k in 0..<5 {
                    let time = UTCTime(year: 2026, month: 5, day: 1, nanosOfDay: Int64(9 * 3600 + k) * 1_000_000_000)!
                    let at = Coordinate(latitude: 40.1000 + Double(k) * 2e-6, longitude: -8.2400)
                    let fix = Fix(time: time, mode: .threeD, coordinate: at, speed: 0.5, course: 0, horizontalError: 3, hdop: 0.9, satellitesUsed: 9)
                    await engine.process(fix, receivedNanos: monotonicNanos())
                }
            }
            return (engine, folder)
        }

        func remove(_ folder: String) {
            for name in ["treeline.sqlite", "treeline.sqlite-wal", "treeline.sqlite-shm"] { unlink(folder + "/" + name) }
            rmdir(folder)
        }

        /// A plant, an album and a reforestation area around 40.1, -8.24.
        static let regions = #"""
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"id":"plant-a","kind":"plant","name":"Oak","interval_days":3,"radius_m":30},
             "geometry":{"type":"Point","coordinates":[-8.2400,40.1000]}},
            {"type":"Feature","properties":{"id":"album-a","kind":"album","name":"View","radius_m":150},
             "geometry":{"type":"Point","coordinates":[-8.2401,40.1001]}},
            {"type":"Feature","properties":{"id":"area-a","kind":"reforestation","name":"Slope","species":["Quercus robur","Pinus pinaster"]},
             "geometry":{"type":"Polygon","coordinates":[[[-8.2420,40.0990],[-8.2380,40.0990],[-8.2380,40.1010],[-8.2420,40.1010],[-8.2420,40.0990]]]}}
            ]}
            """#
    }
}

/// Runs `body` on the concurrency pool and waits for it on this thread (libFuzzer's callback is
/// synchronous).
@discardableResult
func waitFor<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        box.value = await body()
        done.signal()
    }
    done.wait()
    return box.value!
}

/// What `waitFor`'s task hands back to the waiting thread (the semaphore orders the two).
final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
