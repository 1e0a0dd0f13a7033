import Foundation
@testable import Loading
import Synchronization
import Testing

/// `treeline where` and `replay` keep the regions they built in a prepared store, and read it back
/// while the files are the same: the real executable, a real folder.
@Suite struct PreparedRegions {
    /// A regions file of `count` fences near Lousã (squares and circles, one id changed by `variant`).
    static func regionsFile(_ count: Int, variant: Int = 0) throws -> URL {
        var features: [String] = []
        for k in 0..<count {
            let lat = 40.09 + Double(k % 20) * 0.001, lon = -8.25 + Double(k / 20) * 0.001
            let id = k == 0 ? "v\(variant)" : "f\(k)"
            if k % 3 == 0 {
                features.append(#"{"type":"Feature","properties":{"id":"\#(id)","kind":"album","radius_m":\#(40 + k % 50)},"geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]}}"#)
            } else {
                let d = 0.0004 + Double(k % 7) * 0.0001
                let ring = [(lon, lat), (lon + d, lat), (lon + d, lat + d), (lon, lat + d), (lon, lat)].map { "[\($0.0),\($0.1)]" }.joined(separator: ",")
                features.append(#"{"type":"Feature","properties":{"id":"\#(id)","kind":"album"},"geometry":{"type":"Polygon","coordinates":[[\#(ring)]]}}"#)
            }
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("treeline-regions-\(UUID().uuidString).geojson")
        try Data(#"{"type":"FeatureCollection","features":[\#(features.joined(separator: ",\n"))]}"#.utf8).write(to: url)
        return url
    }

    static func pointsFile() throws -> URL {
        var lines: [String] = []
        for k in 0..<600 { lines.append("\(40.0895 + Double(k % 30) * 0.0008),\(-8.2505 + Double(k / 30) * 0.0009)") }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("treeline-points-\(UUID().uuidString).csv")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
        return url
    }

    /// The runs' XDG_CACHE_HOME, made for each test (a cache home that does not exist keeps no store).
    let home: String

    init() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("treeline-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }
    var folder: String { home + "/treeline/regions" }

    func stores() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".regions") }.sorted() }
    /// The folder's modification time: a store written (a file renamed into it) changes it.
    func folderTime() throws -> Date { try #require(try FileManager.default.attributesOfItem(atPath: folder)[.modificationDate] as? Date) }

    func whereRun(_ regions: URL, _ points: URL, _ extra: [String] = []) throws -> CLI.Result {
        try CLI.run(["where", "--regions", regions.path, "--points", points.path] + extra, environment: ["XDG_CACHE_HOME": home])
    }

    @Test func aSecondRunReadsTheStoreAndAnswersAsTheFiles() throws {
        let regions = try Self.regionsFile(300), points = try Self.pointsFile()
        defer { for u in [regions, points] { try? FileManager.default.removeItem(at: u) }; try? FileManager.default.removeItem(atPath: home) }
        let plain = try whereRun(regions, points, ["--no-store"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder), "--no-store keeps nothing")
        #expect(plain.stdout.split(separator: "\n").count == 600)
        #expect(plain.stdout.contains(#""inside":["f"#), "points fall inside fences")

        let first = try whereRun(regions, points)
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
        #expect(first.stdout == plain.stdout)
        #expect(stores().count == 1, "the first run keeps the store it built")
        let attributes = try FileManager.default.attributesOfItem(atPath: folder)
        #expect((attributes[.posixPermissions] as? Int) == 0o700, "the folder is the user's alone")

        // Read back: nothing written, the same answers.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: folder)
        let before = try folderTime()
        let second = try whereRun(regions, points)
        #expect(second.status == 0 && second.stderr.isEmpty, "\(second.stderr)")
        #expect(second.stdout == plain.stdout)
        #expect(try folderTime() == before, "the store was read, not built and written again")

        // A store whose bytes changed is refused, said so, and made again.
        let path = folder + "/" + stores()[0]
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0x20
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let damaged = try whereRun(regions, points)
        #expect(damaged.status == 0)
        #expect(damaged.stderr.hasPrefix("treeline: \(path): a prepared store that cannot be used (")
                && damaged.stderr.contains("); removed, and built again from the regions files"), "\(damaged.stderr)")
        #expect(damaged.stdout == plain.stdout)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: folder)
        let again = try folderTime()
        let healed = try whereRun(regions, points)
        let healedTime = try folderTime()
        #expect(healed.stderr.isEmpty && healed.stdout == plain.stdout && healedTime == again, "the store made again is read")

        // The file edited: its own store, and the answers are the edited file's.
        let edited = try Data(contentsOf: regions).replacing(Data(#""id":"v0""#.utf8), with: Data(#""id":"renamed""#.utf8))
        try edited.write(to: regions)
        let after = try whereRun(regions, points), afterPlain = try whereRun(regions, points, ["--no-store"])
        #expect(after.stdout == afterPlain.stdout && after.stdout.contains("renamed") && !after.stdout.contains("\"v0\""))
        #expect(stores().count == 2)
    }

    @Test func theFolderKeepsTheEightStoresUsedLast() throws {
        let points = try Self.pointsFile()
        let files = try (0..<10).map { try Self.regionsFile(30, variant: $0) }
        defer { for u in files + [points] { try? FileManager.default.removeItem(at: u) }; try? FileManager.default.removeItem(atPath: home) }
        for f in files {
            let r = try whereRun(f, points)
            #expect(r.status == 0, "\(r.stderr)")
        }
        #expect(stores().count == 8)
        // The last file's store is kept (read, nothing written); the first's was removed (built again).
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: folder)
        let before = try folderTime()
        _ = try whereRun(files[9], points)
        #expect(try folderTime() == before)
        _ = try whereRun(files[0], points)
        #expect(try folderTime() != before)
        #expect(stores().count == 8)
    }

    @Test func aCacheHomeThatDoesNotExistKeepsNothingAndSaysNothing() throws {
        let regions = try Self.regionsFile(20), points = try Self.pointsFile()
        defer { for u in [regions, points] { try? FileManager.default.removeItem(at: u) }; try? FileManager.default.removeItem(atPath: home) }
        let missing = home + "/nonexistent"
        let r = try CLI.run(["where", "--regions", regions.path, "--points", points.path], environment: ["XDG_CACHE_HOME": missing, "HOME": missing])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test func regionsFromAPipeAreNotStored() throws {
        let regions = try Self.regionsFile(20), points = try Self.pointsFile()
        defer { for u in [regions, points] { try? FileManager.default.removeItem(at: u) }; try? FileManager.default.removeItem(atPath: home) }
        let r = try CLI.run(["where", "--regions", "-", "--points", points.path], stdin: try Data(contentsOf: regions), environment: ["XDG_CACHE_HOME": home])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.split(separator: "\n").count == 600)
        #expect(stores().isEmpty)
    }

    @Test func replayGivesTheSameEventsFromTheStore() throws {
        let log = dataDirectory.appendingPathComponent("walk.nmea").path, regions = dataDirectory.appendingPathComponent("regions.geojson").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let plain = try CLI.run(["replay", log, "--regions", regions, "--no-store"], environment: ["XDG_CACHE_HOME": home])
        let built = try CLI.run(["replay", log, "--regions", regions], environment: ["XDG_CACHE_HOME": home])
        let read = try CLI.run(["replay", log, "--regions", regions], environment: ["XDG_CACHE_HOME": home])
        #expect(plain.status == 0 && built.status == 0 && read.status == 0, "\(read.stderr)")
        #expect(plain.stdout.split(separator: "\n").count >= 20, "the walk's events")
        #expect(built.stdout == plain.stdout && read.stdout == plain.stdout)
        #expect(stores().count == 1)
    }
}

/// A store's file changed anywhere, cut short or made longer is refused (and removed), whatever
/// byte it is: the key, the set's bytes, the digest.
@Suite struct PreparedStoreFile {
    @Test func anyByteChangedInTheFileIsRefused() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("treeline-storefile-\(UUID().uuidString)").path
        let dir = base + "/regions"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: base) }
        let warnings = Mutex<[String]>([])
        let store = FenceStore(directory: dir) { m in warnings.withLock { $0.append(m) } }
        let regions = try PreparedRegions.regionsFile(200)
        defer { try? FileManager.default.removeItem(at: regions) }
        let set = try Loader.regions([regions.path], store: nil)
        let key = String(repeating: "5a", count: 32)
        store.write(set, key: key)
        let path = store.path(key)
        let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(good.count > 20_000)
        let back = try #require(store.read(key))
        #expect(back.regions == set.regions && warnings.withLock { $0.isEmpty })
        #expect(store.read(String(repeating: "5b", count: 32)) == nil, "no store for another key")
        var offsets = [0, 31, 32, 40, 100, 1_000, good.count / 3, good.count / 2, good.count - 33, good.count - 32, good.count - 1]
        offsets += stride(from: 7, to: good.count, by: good.count / 40)
        for (k, offset) in offsets.enumerated() {
            var bytes = good
            bytes[offset] ^= UInt8(1 << (k % 8))
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(store.read(key) == nil, "byte \(offset) of \(good.count) changed")
            #expect(!FileManager.default.fileExists(atPath: path), "the damaged store is removed")
        }
        for bytes in [Array(good.prefix(good.count - 1)), Array(good.prefix(64)), [], good + [0]] {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(store.read(key) == nil, "\(bytes.count) bytes of \(good.count)")
        }
        // A link under a store's name is never followed, and removed.
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: regions.path)
        #expect(store.read(key) == nil)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == nil, "the link is removed")
        // A FIFO under a store's name is refused at once (not waited on); a file larger than a
        // store of these files can be (a sparse one claiming a billion regions), too.
        #expect(mkfifo(path, 0o600) == 0)
        #expect(store.read(key) == nil)
        var sparse = good
        sparse.replaceSubrange(64..<72, with: [0, 0x10, 0, 0, 0, 0, 0, 0])
        try Data(sparse).write(to: URL(fileURLWithPath: path))
        #expect(truncate(path, 1 << 36) == 0)
        #expect(store.read(key, largest: 32 * good.count) == nil)
        let said = warnings.withLock { $0 }
        #expect(said.count == offsets.count + 7)
        #expect(said.contains { $0.hasPrefix(path + ": a link, not a prepared store") })
        #expect(said.suffix(2).first?.contains("not a file") == true && said.last?.contains("larger than a store of these files can be") == true, "\(said.suffix(2))")
        #expect(said.filter { !$0.contains(": a link, not") }.allSatisfy { $0.hasPrefix(path + ": a prepared store that cannot be used (") })
        #expect(said.contains { $0.contains("not those written (SHA-256)") } && said.contains { $0.contains("of other files") })
        try Data(good).write(to: URL(fileURLWithPath: path))
        #expect(store.read(key)?.regions == set.regions, "the store as written is read again")

        // A folder others may write in, or whose parent they may, is not trusted: no store is
        // read from it or written to it.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: base)
        #expect(store.read(key) == nil, "the parent is others' to write in")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: base)
        #expect(store.read(key) != nil)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: dir)
        #expect(store.read(key) == nil)
        store.write(set, key: String(repeating: "77", count: 32))
        #expect(!FileManager.default.fileExists(atPath: store.path(String(repeating: "77", count: 32))))
        #expect(warnings.withLock { $0.last?.contains("not yours alone") == true })
        // Pruning removes only stores: another file in the folder stays.
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: dir)
        try Data("notes".utf8).write(to: URL(fileURLWithPath: dir + "/notes.regions"))
        for k in 0..<10 { store.write(set, key: String(repeating: String(format: "%02x", k), count: 32)) }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(names.filter { $0.hasSuffix(".regions") }.count == 9 && names.contains("notes.regions"), "\(names.sorted())")
    }
}
