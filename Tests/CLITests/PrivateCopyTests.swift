import Foundation
import Loading
import Regions
import Testing

/// The daemon reads each regions file from a private copy (`LogFile.withPrivateCopy`): a copy on
/// the disk, mapped, whose pages read are given back. The regions are the file's; a file cut
/// short or rewritten while it is read changes nothing (a mapping of the file itself would end
/// the process); the copy leaves nothing behind.
@Suite struct PrivateCopyReading {
    static var regions: String { dataDirectory.appendingPathComponent("regions.geojson").path }

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("treeline-copy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func theCopyReadsAsTheFileAndLeavesNothing() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let expected = try Loader.regionList([Self.regions]).map(\.region)
        var seen: [UInt8] = []
        var mapped = false
        let got = try Loader.regionList([Self.regions], mapped: false, copyIn: dir.path) { _, bytes in
            seen = Array(bytes)
            // The text parsed is a mapping of a file in the folder, one without a name.
            // (procfs gives its files no size: read to the end, not the size.)
            let maps = String(decoding: (try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd()) ?? Data(), as: UTF8.self)
            mapped = maps.split(separator: "\n").contains { $0.contains(dir.path) && $0.hasSuffix("(deleted)") }
        }.map(\.region)
        #expect(mapped)
        #expect(expected.count > 5)
        #expect(got == expected)
        #expect(seen == Array(try Data(contentsOf: URL(fileURLWithPath: Self.regions))), "the bytes parsed (the base layer's key) are the file's")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "the copy has no name")
    }

    /// The file emptied once its bytes are taken (an editor writing it in place): the copy is read.
    @Test func aFileCutShortWhileReadIsReadAsItWas() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("regions.geojson")
        try FileManager.default.copyItem(atPath: Self.regions, toPath: file.path)
        let expected = try Loader.regionList([file.path]).map(\.region)
        let got = try Loader.regionList([file.path], mapped: false, copyIn: dir.path) { path, _ in
            #expect(truncate(path, 0) == 0)
        }.map(\.region)
        #expect(got == expected)
        #expect(try Data(contentsOf: file).isEmpty)
    }

    /// A folder in memory (tmpfs): a copy there would be memory too, beside the file's page
    /// cache, so the file is read into memory instead, with the same regions.
    @Test func aFolderInMemoryTakesNoCopy() throws {
        let shm = "/dev/shm"
        guard FileManager.default.fileExists(atPath: shm) else { return }
        let expected = try Loader.regionList([Self.regions]).map(\.region)
        var copied = true
        let got = try Loader.regionList([Self.regions], mapped: false, copyIn: shm) { _, _ in
            let maps = String(decoding: (try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd()) ?? Data(), as: UTF8.self)
            copied = maps.split(separator: "\n").contains { $0.contains(shm) && $0.hasSuffix("(deleted)") }
        }.map(\.region)
        #expect(!copied)
        #expect(got == expected)
    }

    /// No folder to copy into: the file is read into memory instead, with the same regions.
    @Test func withoutTheFolderTheFileIsReadInMemory() throws {
        let expected = try Loader.regionList([Self.regions]).map(\.region)
        let got = try Loader.regionList([Self.regions], mapped: false, copyIn: "/nonexistent/treeline").map(\.region)
        #expect(got == expected)
    }
}
