import Foundation
import FuzzChecks
import XCTest

/// Replays every saved fuzz input — the seed corpora in Fuzz/Corpus/NAME and the reproducers in
/// Fuzz/Reproducers/NAME — through the fuzz targets' checks. Each target's inputs run in its
/// replayer, `fuzz-NAME` of this build (the same check functions, without libFuzzer), as a child
/// process: a reproducer that still traps fails its test with its file name, and the other tests
/// of this run go on. The inputs are read at test time, so a new reproducer needs no rebuild.
final class FuzzRegressionTests: XCTestCase {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    /// The folder with this build's products: the test bundle's own (.build/debug/X.xctest on Linux).
    static var products: URL {
        var dir = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        while dir.pathExtension == "xctest" || dir.lastPathComponent == "MacOS" || dir.lastPathComponent == "Contents" {
            dir = dir.deletingLastPathComponent()
        }
        return dir
    }

    func testNMEA() throws { try replay("nmea") }
    func testFields() throws { try replay("fields") }
    func testRegions() throws { try replay("regions") }
    func testConfig() throws { try replay("config") }
    func testRequest() throws { try replay("request") }
    func testMonitor() throws { try replay("monitor") }
    func testCommands() throws { try replay("commands") }

    /// Every target has a test above.
    func testEveryTargetIsReplayed() {
        XCTAssertEqual(FuzzTargets.all.map(\.name), ["nmea", "fields", "regions", "config", "request", "monitor", "commands"])
    }

    func inputs(_ name: String) -> [URL] {
        let fm = FileManager.default
        return ["Corpus", "Reproducers"].flatMap { kind -> [URL] in
            let dir = Self.fuzz.appendingPathComponent(kind).appendingPathComponent(name)
            let names = (try? fm.contentsOfDirectory(atPath: dir.path)) ?? []
            return names.filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted().map { dir.appendingPathComponent($0) }
        }
    }

    func replay(_ name: String) throws {
        let executable = Self.products.appendingPathComponent("fuzz-\(name)")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            return XCTFail("\(executable.path) is missing: build it (swift build --build-tests builds every target)")
        }
        var pending = inputs(name)
        let total = pending.count
        XCTAssertFalse(pending.isEmpty, "no saved inputs for \(name) in \(Self.fuzz.path)")
        var passed = 0
        // A crash names its input (the last "replaying" line); the inputs after it run on in a new process.
        while !pending.isEmpty {
            let run = try Self.run(executable, pending.map(\.path))
            if run.status == 0 {
                passed += pending.count
                break
            }
            let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false)
            guard let at = lines.lastIndex(where: { $0.hasPrefix("replaying ") }),
                  let k = pending.firstIndex(where: { $0.path == lines[at].dropFirst("replaying ".count) }) else {
                XCTFail("fuzz-\(name) failed (status \(run.status)) before any input:\n\(run.stderr.suffix(2000))")
                return
            }
            passed += k
            // What the check said (a Fatal error line), without the stack trace after it.
            let message = lines[(at + 1)...].prefix { !$0.hasPrefix("Current stack trace") && !$0.hasPrefix("0 ") }
                .prefix(6).joined(separator: "\n")
            XCTFail("fuzz-\(name) crashed (status \(run.status)) on \(pending[k].path)\n"
                + "replay: swift run fuzz-\(name) \(pending[k].path)\n\(message)")
            pending.removeFirst(k + 1)
        }
        print("fuzz-\(name): \(passed) of \(total) saved inputs passed")
    }

    static func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"  // a trap's message is enough, and at once
        process.environment = environment
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
