import CompressNIO
import Foundation
import NIOCore
import Testing
@testable import Web

/// The page's files as served from memory: each in the smallest encoding the client takes, the
/// precompressed copies Debian ships used as they are, the others gzipped once, the same bytes
/// back after decoding.
@Suite struct StaticFilesTests {
    /// A directory like the page's and one like Debian's Leaflet (with its .gz and .brotli).
    static func fixture() throws -> (page: String, leaflet: String) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("static-\(UUID().uuidString)")
        let page = base.appendingPathComponent("web"), leaflet = base.appendingPathComponent("leaflet")
        for dir in [page.appendingPathComponent("js"), page.appendingPathComponent("ar"), leaflet] {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        }
        let script = String(repeating: "export function f(a, b) { return a + b; } // the same line again\n", count: 200)
        try Data(script.utf8).write(to: page.appendingPathComponent("js/app.js"))
        try Data("<!doctype html><title>t</title>".utf8).write(to: page.appendingPathComponent("index.html"))
        try Data(String(repeating: "<p>ar</p>", count: 100).utf8).write(to: page.appendingPathComponent("ar/index.html"))
        try Data("secret".utf8).write(to: page.appendingPathComponent(".env"))
        try Data([0x89, 0x50, 0x4E, 0x47] + [UInt8](repeating: 7, count: 2000)).write(to: page.appendingPathComponent("icon.png"))
        try Data("L.min".utf8).write(to: leaflet.appendingPathComponent("leaflet.min.js"))
        try Data("gz-copy".utf8).write(to: leaflet.appendingPathComponent("leaflet.min.js.gz"))
        try Data("br-copy".utf8).write(to: leaflet.appendingPathComponent("leaflet.min.js.brotli"))
        return (page.path, leaflet.path)
    }

    static func loaded() throws -> StaticFiles {
        let (page, leaflet) = try fixture()
        var files = StaticFiles()
        try files.load(directory: page, urlBase: "")
        try files.load(directory: leaflet, urlBase: "/leaflet", compress: false)
        return files
    }

    @Test func everyFileAtItsPathIndexesAndNoHiddenOnes() throws {
        let files = try Self.loaded()
        #expect(Set(files.assets.keys) == ["/js/app.js", "/index.html", "/ar/index.html", "/icon.png", "/leaflet/leaflet.min.js",
                                           "/leaflet/leaflet.min.js.gz", "/leaflet/leaflet.min.js.brotli"])
        #expect(files.asset(for: "/")?.identity == files.asset(for: "/index.html")?.identity)
        #expect(files.asset(for: "/ar/")?.identity == files.asset(for: "/ar/index.html")?.identity)
        #expect(files.asset(for: "/.env") == nil && files.asset(for: "/js/") == nil && files.asset(for: "/js/../index.html") == nil)
        #expect(files.asset(for: "/js/app.js")?.contentType == "text/javascript; charset=utf-8")
        #expect(files.asset(for: "/icon.png")?.contentType == "image/png")
    }

    /// What the service worker keeps: the page's files and, of Leaflet, what the page loads;
    /// never a compressed copy; a version that changes when a file does.
    @Test func theShellListNamesThePagesFilesAndAVersion() throws {
        var files = try Self.loaded()
        files.addShellList()
        let list = try #require(files.asset(for: StaticFiles.shellPath))
        let text = String(buffer: list.identity)
        #expect(text.hasPrefix(#"{"version":""#))
        #expect(text.hasSuffix(#""files":["/ar/index.html","/icon.png","/index.html","/js/app.js","/leaflet/leaflet.min.js"]}"#), "\(text)")
        #expect(list.contentType == "application/json")
        let (page, leaflet) = try Self.fixture()
        try Data("export const changed = 1;".utf8).write(to: URL(fileURLWithPath: page).appendingPathComponent("js/app.js"))
        var other = StaticFiles()
        try other.load(directory: page, urlBase: "")
        try other.load(directory: leaflet, urlBase: "/leaflet", compress: false)
        other.addShellList()
        let version = { (t: String) in t.split(separator: "\"")[3] }
        #expect(version(String(buffer: other.asset(for: StaticFiles.shellPath)!.identity)) != version(text), "a changed file, another version")
    }

    @Test func gzippedOnceAndTheSameBytesBack() throws {
        let files = try Self.loaded()
        let app = try #require(files.asset(for: "/js/app.js"))
        var gz = try #require(app.gzip)
        #expect(gz.readableBytes * 10 < app.identity.readableBytes, "\(gz.readableBytes) of \(app.identity.readableBytes) bytes")
        let back = try gz.decompress(with: .gzip())
        #expect(back == app.identity)
        // Too small to gain, or not text: as they are.
        #expect(files.asset(for: "/index.html")?.gzip == nil && files.asset(for: "/icon.png")?.gzip == nil)
        #expect(files.compressedHere == 2, "app.js and ar/index.html")
    }

    @Test func debiansCopiesAreUsedAsTheyAre() throws {
        let files = try Self.loaded()
        let leaflet = try #require(files.asset(for: "/leaflet/leaflet.min.js"))
        #expect(leaflet.gzip.map { String(buffer: $0) } == "gz-copy" && leaflet.brotli.map { String(buffer: $0) } == "br-copy")
    }

    @Test func theEncodingTheClientTakes() throws {
        let files = try Self.loaded()
        let leaflet = try #require(files.asset(for: "/leaflet/leaflet.min.js")), app = try #require(files.asset(for: "/js/app.js"))
        let cases: [(String?, StaticFiles.Asset, StaticFiles.ContentCoding?)] = [
            ("gzip, deflate, br, zstd", leaflet, .brotli), ("gzip, deflate, br, zstd", app, .gzip), ("gzip", leaflet, .gzip),
            (nil, leaflet, nil), ("identity", app, nil), ("br;q=0, gzip;q=0.5", leaflet, .gzip), ("*", leaflet, .brotli),
            ("*;q=0, gzip", leaflet, .gzip), ("GZIP", app, .gzip), ("gzip;q=0", app, nil), ("x-gzip", app, .gzip),
            ("gzip;q=nan", app, .gzip), ("br;q=-1", leaflet, nil), (String(repeating: "x,", count: 10_000) + "gzip", app, nil),
        ]
        for (header, asset, want) in cases {
            #expect(StaticFiles.encoding(for: header, asset: asset) == want, "\(header?.prefix(40) ?? "none")")
        }
    }

    @Test func entityTagsMatchAsRFC9110Says() {
        let tag = "\"abc\"", tags = "\"abc-gz\""
        #expect(StaticFiles.matches(ifNoneMatch: "\"abc\"", tag: tag))
        #expect(StaticFiles.matches(ifNoneMatch: "\"x\", W/\"abc\"", tag: tag))
        #expect(StaticFiles.matches(ifNoneMatch: "*", tag: tags))
        #expect(!StaticFiles.matches(ifNoneMatch: "\"abc\"", tag: tags))
        #expect(!StaticFiles.matches(ifNoneMatch: "abc", tag: tag))
    }

    @Test func aDirectoryThatIsNotOneIsRefusedWithItsName() {
        var files = StaticFiles()
        #expect(throws: StaticFilesError.self) { try files.load(directory: "/nonexistent/treeline-web", urlBase: "") }
        do {
            try files.load(directory: "/nonexistent/treeline-web", urlBase: "")
        } catch {
            #expect(error.description == "/nonexistent/treeline-web is not a directory")
        }
    }
}
