import Foundation
import IntegrationSupport
import Testing

// systemd's own checks of the units in systemd/, on the files `make install` puts in place:
// `systemd-analyze verify` and `security`, `systemctl --root … enable`, `systemd-sysusers --root`.
// None needs root or a running systemd: everything happens in a temporary DESTDIR.

@Suite struct Verify {
    /// `systemd-analyze verify` exits 0 even on unknown keys, so the test wants no output at all.
    /// It fails when ExecStart's binary does not exist, and the installed unit names
    /// /usr/bin/treelined: a copy of the two installed units has that one path changed to the
    /// binary `make install` put in the staging root. User=treeline need not exist for verify.
    @Test func installedUnitsPrintNothing() throws {
        let install = try Installation(prefix: "/usr")
        defer { install.remove() }
        let units = try install.unitsForVerify()
        let r = try run("systemd-analyze", ["verify", units.service.path, units.socket.path])
        #expect(r.status == 0, "\(r.all)")
        #expect(r.all.isEmpty, "systemd-analyze verify should print nothing (kill, for ExecReload=, is procps's: make deps):\n\(r.all)")
    }

    /// The check above can fail: a misspelt key is reported (with exit status 0), and an
    /// ExecStart= binary that does not exist fails.
    @Test func catchesAMisspeltKeyAndAMissingBinary() throws {
        let install = try Installation(prefix: "/usr")
        defer { install.remove() }
        let units = try install.unitsForVerify()
        let good = try String(contentsOf: units.service, encoding: .utf8)

        try good.replacingOccurrences(of: "[Service]\n", with: "[Service]\nProtectSytem=strict\n")
            .write(to: units.service, atomically: true, encoding: .utf8)
        let typo = try run("systemd-analyze", ["verify", units.service.path, units.socket.path])
        #expect(typo.all.contains("Unknown key 'ProtectSytem'"), "\(typo.all)")

        try good.replacingOccurrences(of: "/usr/bin/treelined", with: "/usr/bin/treelined-missing")
            .write(to: units.service, atomically: true, encoding: .utf8)
        let missing = try run("systemd-analyze", ["verify", units.service.path, units.socket.path])
        #expect(missing.status != 0)
        #expect(missing.all.contains("treelined-missing"), "\(missing.all)")
    }
}

@Suite struct Security {
    static let limit = 1.5

    /// `systemd-analyze security --offline=true --threshold=15` exits 0 only for an exposure of at
    /// most 1.5 (the threshold is the exposure × 10). The exposure is printed.
    @Test func exposureIsAtMostOnePointFive() throws {
        let install = try Installation(prefix: "/usr")
        defer { install.remove() }
        let units = try install.unitsForVerify()
        let r = try run("systemd-analyze", ["security", "--offline=true", "--threshold=\(Int(Self.limit * 10))", units.service.path])
        let exposure = try #require(Self.exposure(r.stdout), "no overall exposure in:\n\(r.all)")
        print("treelined.service: overall exposure \(exposure) (limit \(Self.limit))")
        #expect(r.status == 0, "exposure \(exposure) over \(Self.limit):\n\(r.stdout)")
        #expect(exposure <= Self.limit)

        // The threshold does fail: without its sandbox the same unit is far more exposed.
        let service = try String(contentsOf: units.service, encoding: .utf8)
        let sandbox = try #require(service.range(of: "# Sandbox"))
        let tail = try #require(service.range(of: "[Install]"))
        try (String(service[..<sandbox.lowerBound]) + String(service[tail.lowerBound...]))
            .write(to: units.service, atomically: true, encoding: .utf8)
        let bare = try run("systemd-analyze", ["security", "--offline=true", "--threshold=\(Int(Self.limit * 10))", units.service.path])
        let bareExposure = try #require(Self.exposure(bare.stdout), "\(bare.all)")
        #expect(bare.status != 0 && bareExposure > Self.limit, "unsandboxed: \(bareExposure)")
    }

    /// The documented drop-in for serving the web app on the board's Wi-Fi (systemd/web-lan.conf)
    /// adds one subnet to IPAddressAllow=: the unit with it is as sandboxed (≤ 1.5), its
    /// IPAddressDeny=any stays, and systemd-analyze verify accepts it.
    @Test func theWebAppsLANDropInKeepsTheExposure() throws {
        let install = try Installation(prefix: "/usr")
        defer { install.remove() }
        let units = try install.unitsForVerify()
        let dropIn = try source("systemd/web-lan.conf")
        let lines = dropIn.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty && $0 != "[Service]" }
        #expect(lines == ["IPAddressAllow=10.42.0.0/24"], "the drop-in only allows a subnet: \(lines)")
        let service = try String(contentsOf: units.service, encoding: .utf8)
        let installSection = try #require(service.range(of: "[Install]"))
        // A drop-in's [Service] lines add to the unit's, as systemd merges them.
        let merged = String(service[..<installSection.lowerBound]) + lines.joined(separator: "\n") + "\n\n" + String(service[installSection.lowerBound...])
        #expect(merged.contains("IPAddressDeny=any"))
        try merged.write(to: units.service, atomically: true, encoding: .utf8)
        let r = try run("systemd-analyze", ["security", "--offline=true", "--threshold=\(Int(Self.limit * 10))", units.service.path])
        let exposure = try #require(Self.exposure(r.stdout), "\(r.all)")
        print("treelined.service with web-lan.conf: overall exposure \(exposure)")
        #expect(r.status == 0 && exposure <= Self.limit, "\(r.stdout)")
        let verify = try run("systemd-analyze", ["verify", units.service.path, units.socket.path])
        #expect(verify.all.isEmpty, "\(verify.all)")
    }

    /// "→ Overall exposure level for treelined.service: 1.1 OK 🙂"
    static func exposure(_ report: String) -> Double? {
        guard let line = report.split(separator: "\n").last(where: { $0.contains("Overall exposure level") }),
              let colon = line.lastIndex(of: ":") else { return nil }
        return line[line.index(after: colon)...].split(separator: " ").first.flatMap { Double($0) }
    }
}

@Suite struct Install {
    /// Where each file goes for a prefix: systemd reads units and sysusers.d files from
    /// /usr/lib and /usr/local/lib itself, and from /etc for any other prefix.
    struct Layout: Sendable, CustomTestStringConvertible {
        let prefix: String?  // nil: the Makefile's default
        let bin, units, sysusers, data: String
        var testDescription: String { prefix ?? "default PREFIX" }
    }

    static let layouts = [
        Layout(prefix: "/usr", bin: "/usr/bin", units: "/usr/lib/systemd/system", sysusers: "/usr/lib/sysusers.d", data: "/usr/share/treeline"),
        Layout(prefix: nil, bin: "/usr/local/bin", units: "/usr/local/lib/systemd/system", sysusers: "/usr/local/lib/sysusers.d", data: "/usr/local/share/treeline"),
        Layout(prefix: "/opt/treeline", bin: "/opt/treeline/bin", units: "/etc/systemd/system", sysusers: "/etc/sysusers.d", data: "/opt/treeline/share/treeline"),
    ]

    /// Every file in its place with its mode and content, ExecStart naming the installed binary;
    /// systemctl finds and enables the units there, and systemd-sysusers reads the sysusers file
    /// there and makes a system user with no login whose home is the state folder.
    @Test(arguments: layouts) func everyFileInPlace(_ layout: Layout) throws {
        let install = try Installation(prefix: layout.prefix)
        defer { install.remove() }
        let products = TreelineProcess.products
        // The web app's files, as they are in web/, under the data folder (treelined's default root).
        let web = try allFiles(under: repository.appendingPathComponent("web")).map { rel in
            ("\(layout.data)/web\(rel)", 0o644, try Data(contentsOf: repository.appendingPathComponent("web" + rel)))
        }
        let expected: [(path: String, mode: Int, content: Data)] = try web + [
            ("\(layout.bin)/treeline", 0o755, Data(contentsOf: products.appendingPathComponent("treeline"))),
            ("\(layout.units)/treelined.service", 0o644, Data(source("systemd/treelined.service").replacingOccurrences(of: "@BINDIR@", with: layout.bin).utf8)),
            ("\(layout.units)/treelined.socket", 0o644, Data(contentsOf: repository.appendingPathComponent("systemd/treelined.socket"))),
            ("\(layout.sysusers)/treeline.conf", 0o644, Data(contentsOf: repository.appendingPathComponent("systemd/treeline.sysusers"))),
            ("\(layout.data)/species.json", 0o644, Data(contentsOf: repository.appendingPathComponent("Data/species.json"))),
            // The config names the species catalog where this install put it.
            ("/etc/treeline/treeline.yaml", 0o644, Data(source("Data/treeline.yaml").replacingOccurrences(of: "/usr/local/share/treeline/", with: "\(layout.data)/").utf8)),
            ("/etc/treeline/regions.geojson", 0o644, Data(contentsOf: repository.appendingPathComponent("Data/regions.geojson"))),
        ]
        for file in expected {
            let url = install.file(file.path)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else {
                Issue.record("\(file.path) is not installed; make said:\n\(install.output.all)")
                continue
            }
            #expect((attributes[.posixPermissions] as? Int) == file.mode, "\(file.path) mode")
            #expect(try Data(contentsOf: url) == file.content, "\(file.path) content")
        }
        // treelined is the same executable: a relative symbolic link to treeline beside it.
        let daemon = "\(layout.bin)/treelined"
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: install.file(daemon).path)) == "treeline", "\(daemon) -> treeline")
        // Nothing else: no stray file beside them.
        let installed = Set(try allFiles(under: install.root))
        #expect(installed == Set(expected.map(\.path) + [daemon]), "installed: \(installed.sorted())")

        let config = try String(contentsOf: install.file("/etc/treeline/treeline.yaml"), encoding: .utf8)
        #expect(config.contains("\nspecies: \(layout.data)/species.json"), "the config's species: line")
        let service = try String(contentsOf: install.file("\(layout.units)/treelined.service"), encoding: .utf8)
        #expect(UnitFile(service)["ExecStart"] == ["\(layout.bin)/treelined --config /etc/treeline/treeline.yaml"])
        #expect(service.firstMatch(of: /@[A-Z_]+@/) == nil, "a placeholder is left")

        // systemctl finds the units where they were put, and their [Install] sections work.
        let enable = try run("systemctl", ["--root=\(install.root.path)", "enable", "treelined.socket", "treelined.service"])
        #expect(enable.status == 0, "\(enable.all)")
        for (wants, unit) in [("sockets.target.wants", "treelined.socket"), ("multi-user.target.wants", "treelined.service")] {
            let link = install.file("/etc/systemd/system/\(wants)/\(unit)").path
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "\(layout.units)/\(unit)", "\(enable.all)")
        }

        // systemd-sysusers reads the file where it was put.
        let sysusers = try run("systemd-sysusers", ["--root=\(install.root.path)"])
        #expect(sysusers.status == 0, "\(sysusers.all)")
        let passwd = (try? String(contentsOf: install.file("/etc/passwd"), encoding: .utf8)) ?? ""
        let user = try #require(passwd.split(separator: "\n").first(where: { $0.hasPrefix("treeline:") }), "no user treeline: \(sysusers.all)")
        let fields = user.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        #expect(fields.count == 7 && fields[5] == "/var/lib/treeline" && fields[6] == "/usr/sbin/nologin", "\(user)")
        let uid = Int(fields[2]) ?? 0
        #expect(uid > 0 && uid < 1000, "a system user: \(user)")
        let group = (try? String(contentsOf: install.file("/etc/group"), encoding: .utf8)) ?? ""
        #expect(group.split(separator: "\n").contains("treeline:x:\(fields[3]):"), "group treeline: \(group)")
    }

    /// A second install keeps an edited config and regions (and says so), replaces the rest;
    /// uninstall removes what install put in place and keeps /etc/treeline.
    @Test func secondInstallKeepsTheEditedConfigAndUninstallKeepsIt() throws {
        let install = try Installation(prefix: "/usr")
        defer { install.remove() }
        let config = install.file("/etc/treeline/treeline.yaml"), regions = install.file("/etc/treeline/regions.geojson")
        let binary = install.file("/usr/bin/treelined"), service = install.file("/usr/lib/systemd/system/treelined.service")
        let editedConfig = try String(contentsOf: config, encoding: .utf8).replacingOccurrences(of: "dwell_s: 60", with: "dwell_s: 120")
        #expect(editedConfig.contains("dwell_s: 120"))
        try editedConfig.write(to: config, atomically: true, encoding: .utf8)
        try #"{"type":"FeatureCollection","features":[]}"#.write(to: regions, atomically: true, encoding: .utf8)
        try "stale".write(to: binary, atomically: true, encoding: .utf8)
        try "stale".write(to: service, atomically: true, encoding: .utf8)

        let again = try install.make(["install"])
        #expect(again.status == 0, "\(again.all)")
        #expect(try String(contentsOf: config, encoding: .utf8) == editedConfig)
        #expect(try String(contentsOf: regions, encoding: .utf8) == #"{"type":"FeatureCollection","features":[]}"#)
        #expect(again.stdout.contains("kept \(config.path)"), "\(again.stdout)")
        #expect(again.stdout.contains("kept \(regions.path)"), "\(again.stdout)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: binary.path)) == "treeline", "the stale treelined is a link again")
        #expect(try Data(contentsOf: binary) == Data(contentsOf: TreelineProcess.binary))
        #expect(try String(contentsOf: service, encoding: .utf8).contains("ExecStart=/usr/bin/treelined "))

        let uninstall = try install.make(["uninstall"])
        #expect(uninstall.status == 0, "\(uninstall.all)")
        #expect(Set(try allFiles(under: install.root)) == ["/etc/treeline/treeline.yaml", "/etc/treeline/regions.geojson"])
        #expect(try String(contentsOf: config, encoding: .utf8) == editedConfig)
    }

    /// Without the binaries in PRODUCTS, BUILD=no fails and says what is missing (and builds nothing).
    @Test func noBuildWithoutBinariesFails() throws {
        let empty = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: empty) }
        let install = try Installation(prefix: "/usr", products: empty)
        defer { install.remove() }
        #expect(install.output.status != 0)
        #expect(install.output.stderr.contains("\(empty.path)/treeline is missing"), "\(install.output.all)")
        #expect(try allFiles(under: install.root).isEmpty)
    }
}

/// The units, the sysusers file and the default config name the same user, group and paths.
@Suite struct Consistency {
    @Test func unitsAgreeWithTheConfigAndEachOther() throws {
        let service = UnitFile(try source("systemd/treelined.service"))
        let socket = UnitFile(try source("systemd/treelined.socket"))
        let config = try defaultConfig()
        let sysusers = try source("systemd/treeline.sysusers").split(separator: "\n")
            .filter { !$0.hasPrefix("#") && !$0.isEmpty }.map { $0.split(separator: " ").map(String.init) }

        #expect(socket["ListenStream"] == config["socket"].map { [$0] })
        #expect(socket["SocketMode"] == ["0660"])
        #expect(socket["SocketGroup"] == service["Group"] && socket["SocketUser"] == service["User"])
        #expect(sysusers.count == 1 && sysusers[0][0] == "u" && [sysusers[0][1]] == service["User"] && service["Group"] == service["User"])

        func folder(_ path: String?) -> String? { path.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path } }
        #expect(service["RuntimeDirectory"].map { "/run/" + $0[0] } == folder(config["socket"]))
        #expect(service["StateDirectory"].map { "/var/lib/" + $0[0] } == folder(config["database"]))
        #expect(service["ConfigurationDirectory"].map { "/etc/" + $0[0] } == folder(config["regions"]))
        #expect(service["ExecStart"] == ["@BINDIR@/treelined --config /etc/treeline/treeline.yaml"])

        // The socket unit's file lives in the service's RuntimeDirectory=: the service must not
        // remove it when it stops, and both must give the folder the same mode.
        #expect(service["RuntimeDirectoryPreserve"] == ["yes"])
        #expect(service["RuntimeDirectoryMode"] == socket["DirectoryMode"])
        #expect(service["Type"] == ["notify"] && service["NotifyAccess"] == ["main"] && service["WatchdogSec"] == ["30s"])
        #expect(service["ExecReload"] == ["kill -HUP $MAINPID"])
        #expect(service["IPAddressDeny"] == ["any"] && service["IPAddressAllow"] == ["localhost"])
    }

    /// `key: value` lines of Data/treeline.yaml's top level, without comments.
    func defaultConfig() throws -> [String: String] {
        var values: [String: String] = [:]
        for line in try source("Data/treeline.yaml").split(separator: "\n") where !line.hasPrefix(" ") && !line.hasPrefix("#") {
            let content = line.split(separator: "#", maxSplits: 1).first ?? ""
            guard let colon = content.firstIndex(of: ":") else { continue }
            values[String(content[..<colon])] = content[content.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return values
    }
}

// MARK: - Support

/// A `make install` into a temporary DESTDIR, of the binaries this test bundle was built with
/// (BUILD=no: nothing is built, no network).
struct Installation {
    let root: URL
    let arguments: [String]
    let output: Output

    init(prefix: String?, products: URL = TreelineProcess.products) throws {
        root = try temporaryDirectory()
        arguments = ["DESTDIR=\(root.path)", "BUILD=no", "PRODUCTS=\(products.path)"] + (prefix.map { ["PREFIX=\($0)"] } ?? [])
        output = try run("make", ["--no-print-directory", "-C", repository.path, "install"] + arguments)
        if products == TreelineProcess.products {
            #expect(output.status == 0, "make install failed:\n\(output.all)")
        }
    }

    func make(_ targets: [String]) throws -> Output {
        try run("make", ["--no-print-directory", "-C", repository.path] + targets + arguments)
    }

    /// A path of the installed system, in the staging root.
    func file(_ path: String) -> URL { root.appendingPathComponent(String(path.drop(while: { $0 == "/" }))) }

    /// Copies of the installed units for `systemd-analyze`, their ExecStart= pointing at the
    /// installed treelined in the staging root, which exists (not at /usr/bin/treelined, which
    /// does not). Nothing else is changed.
    func unitsForVerify() throws -> (service: URL, socket: URL) {
        let folder = root.appendingPathComponent("verify")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let service = try String(contentsOf: file("/usr/lib/systemd/system/treelined.service"), encoding: .utf8)
        let execStart = "ExecStart=/usr/bin/treelined "
        try #require(service.components(separatedBy: execStart).count == 2, "one \(execStart) in:\n\(service)")
        let copy = (service: folder.appendingPathComponent("treelined.service"), socket: folder.appendingPathComponent("treelined.socket"))
        try service.replacingOccurrences(of: execStart, with: "ExecStart=\(file("/usr/bin/treelined").path) ")
            .write(to: copy.service, atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: file("/usr/lib/systemd/system/treelined.socket"), to: copy.socket)
        return copy
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}

/// A unit file's assignments: every value of each key, in order (comments and sections left out).
struct UnitFile {
    private var values: [String: [String]] = [:]

    init(_ text: String) {
        for line in text.split(separator: "\n") {
            let line = line.trimmingCharacters(in: .whitespaces)
            guard !line.hasPrefix("#"), !line.hasPrefix(";"), !line.hasPrefix("["), let eq = line.firstIndex(of: "=") else { continue }
            values[String(line[..<eq]), default: []].append(String(line[line.index(after: eq)...]))
        }
    }

    subscript(key: String) -> [String]? { values[key] }
}

struct Output {
    let status: Int32
    let stdout: String
    let stderr: String
    var all: String { stdout + stderr }
}

/// Runs a program found on PATH, with none of make's or the Makefile's variables inherited
/// (a `make test PREFIX=…` must not steer the installs here).
func run(_ program: String, _ arguments: [String]) throws -> Output {
    let environment = ProcessInfo.processInfo.environment
    let path = (environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin"
    guard let executable = path.split(separator: ":").map({ "\($0)/\(program)" })
        .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw POSIXError(.ENOENT, "\(program) is not installed (systemd-analyze, systemctl, systemd-sysusers: `make deps` installs Debian's systemd)")
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    let makeVariables = ["MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "DESTDIR", "PREFIX", "BINDIR", "DATADIR",
                         "UNITDIR", "SYSUSERSDIR", "CONFIGURATION", "BUILD", "PRODUCTS", "SWIFT"]
    p.environment = environment.filter { !makeVariables.contains($0.key) }
    // Files, not pipes: nothing blocks however much either stream says.
    let folder = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let out = folder.appendingPathComponent("out"), err = folder.appendingPathComponent("err")
    FileManager.default.createFile(atPath: out.path, contents: nil)
    FileManager.default.createFile(atPath: err.path, contents: nil)
    p.standardOutput = try FileHandle(forWritingTo: out)
    p.standardError = try FileHandle(forWritingTo: err)
    p.standardInput = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    return Output(status: p.terminationStatus,
                  stdout: try String(contentsOf: out, encoding: .utf8),
                  stderr: try String(contentsOf: err, encoding: .utf8))
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("treeline-systemd-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func source(_ path: String) throws -> String {
    try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
}

/// Every file and symbolic link under `root`, as an absolute path of the installed system
/// (the copies for systemd-analyze left out).
func allFiles(under root: URL) throws -> [String] {
    guard let walk = FileManager.default.enumerator(atPath: root.path) else { return [] }
    var files: [String] = []
    while let relative = walk.nextObject() as? String {
        if relative == "verify" { walk.skipDescendants(); continue }
        var isDirectory: ObjCBool = false
        FileManager.default.fileExists(atPath: root.appendingPathComponent(relative).path, isDirectory: &isDirectory)
        if !isDirectory.boolValue { files.append("/" + relative) }
    }
    return files
}
