// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Treeline",
    platforms: [.macOS(.v13)],
    products: [
        // One executable, both commands: run as `treelined` (a link to it, which `make install`
        // and the package make) it is the daemon (MultiCall.swift).
        .executable(name: "treeline", targets: ["treeline"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // The web app's HTTPS server, and the self-signed certificate it makes for itself.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.20.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.10.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.10.0"..<"5.0.0"),
        // The page's files gzipped once at start (zlib, Debian's zlib1g).
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
    ],
    targets: [
        // System libraries. Each module map's header is the C shim: static inline wrappers for what
        // Swift cannot import (variadic functions, compound macros). Only Geo imports CPROJ and only
        // GPSD imports CGPS.
        .systemLibrary(name: "CGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
        // MQTT imports CMosquitto: Debian's libmosquitto (2.0.11), no hand-written MQTT.
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .target(name: "MQTT", dependencies: ["CMosquitto", "Geo", "JSON"]),
        .systemLibrary(name: "CPROJ", pkgConfig: "proj", providers: [.apt(["libproj-dev"])]),

        // The version, in one place (Makefile reads it for `make deb`).
        .target(name: "TreelineVersion"),

        // Pure logic: no I/O.
        // JSON as the daemon reads and writes it (RFC 8259, bytes in and out), and the plain text
        // and wording of what it says.
        .target(name: "JSON"),
        // Geometry: coordinates and geodesy, fences and their index, CRSs (PROJ), fixes and tracks.
        .target(name: "Geo", dependencies: ["JSON", "CPROJ"]),
        // Regions: what a fence is for (plant, album, reforestation), the regions file, the set
        // of regions with their fences.
        .target(name: "Regions", dependencies: ["Geo", "JSON"]),
        // The wire: every command as a typed value, read once from its JSON (`Command`), the
        // subscription and its filter, and the replies' shared lines. Used by every transport,
        // the CLI and the tests.
        .target(name: "Protocol", dependencies: ["JSON", "Geo", "Regions", "AR", "Walks"]),
        .target(name: "NMEA", dependencies: ["Geo"]),
        .target(name: "Rules", dependencies: ["Geo", "Regions", "JSON"]),
        // Walks through the regions: rounds (the shortest order to visit them) and trails
        // (ordered checkpoints, levels that unlock, progress from the regions entered).
        .target(name: "Walks", dependencies: ["Geo", "Regions", "JSON"]),
        // The stacking projector: AR screen layout of points of interest.
        .target(name: "AR", dependencies: ["Geo", "Regions", "JSON"]),
        .target(name: "Map", dependencies: ["Geo", "Regions", "JSON", "Rules", "AR"]),

        // Edges.
        .target(name: "GPSD", dependencies: ["CGPS", "Geo"]),
        // Files: NMEA logs read in chunks (or stdin), and the loaders of regions files, the config
        // and the species catalog, with one typed error that names the file; both executables use them.
        .target(name: "Loading", dependencies: ["NMEA", "Geo", "Regions", "Rules", "Config", "TreelineVersion", .product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "Config", dependencies: ["Geo", "JSON", "Rules", .product(name: "Yams", package: "Yams")]),
        // SQLite (GRDB, WAL): the event journal with its sequence numbers, the monitor's state per
        // region, plants' watering. Events are committed with the state they leave.
        .target(name: "Store", dependencies: ["Protocol", "Rules", "Walks", "Geo", "JSON", .product(name: "GRDB", package: "GRDB.swift")]),
        // Offline basemaps: MBTiles files read through GRDB, read-only.
        .target(name: "Tiles", dependencies: ["JSON", .product(name: "GRDB", package: "GRDB.swift")]),
        // The Unix-socket protocol (SwiftNIO): newline-delimited JSON, subscriptions that resume
        // by sequence number, bounded queues for slow readers.
        .target(name: "Server", dependencies: [
            "Protocol", "Rules", "Geo", "JSON", "Store", "AR",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // HTTPS for the phone (Hummingbird): the socket's commands at POST /api, its subscription
        // as Server-Sent Events, GeoJSON, the page's files; a bearer token; the board's own
        // self-signed certificate.
        .target(name: "Web", dependencies: [
            "Protocol", "Server", "Store", "Geo", "Regions", "JSON", "Rules", "Config", "Loading", "AR", "Tiles",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "X509", package: "swift-certificates"),
            .product(name: "SwiftASN1", package: "swift-asn1"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "CompressNIO", package: "compress-nio"),
        ]),
        // The engine: the actor that takes fixes and commands, commits events with the state they
        // leave and publishes them; every transport hands it the same typed commands. A library, so
        // the daemon, its tests and the fuzz target that runs every command run the same code.
        .target(name: "Engine", dependencies: [
            "Protocol", "Geo", "Regions", "JSON", "Rules", "Walks", "GPSD", "Store", "Server", "AR", "MQTT", "Web",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The systemd service: gpsd → monitor → journal → subscribers. A library: the treeline
        // executable runs its command, `Treelined`, when started as treelined.
        .target(
            name: "Daemon",
            dependencies: [
                "Engine", "Protocol", "Geo", "Regions", "JSON", "Rules", "Config", "GPSD", "Loading", "Store", "Server", "AR", "TreelineVersion", "MQTT", "Web",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The command line, and the daemon when started as treelined: one executable, so one copy
        // of the Swift runtime, Foundation and ICU for both.
        .executableTarget(
            name: "treeline",
            dependencies: [
                "Protocol", "Geo", "Regions", "JSON", "NMEA", "Loading", "Rules", "Walks", "Config", "Map", "GPSD", "AR", "Store", "Tiles", "TreelineVersion", "Daemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // A release link, smaller by 8 MB (docs/BENCHMARKS.md, "Package size"): no dynamic
            // symbol table of every Swift symbol (swiftc's -export-dynamic; nothing loads plugins
            // or looks symbols up in it), and relative relocations packed (DT_RELR, glibc 2.36:
            // Debian 12), which takes lld instead of gold. Identical functions folded where no
            // code can tell (--icf=safe: only those the compilers' address-significance tables say
            // nobody compares by address; Swift's objects have none, so theirs are never folded).
            linkerSettings: [
                .unsafeFlags(
                    ["-use-ld=lld", "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                     "-Xlinker", "--icf=safe"],
                    .when(platforms: [.linux], configuration: .release))
            ]
        ),

        // Benchmarks: `swift run -c release treeline-bench --help`.
        .executableTarget(
            name: "treeline-bench",
            dependencies: ["NMEA", "Loading", "Geo", "Regions", "JSON", "Rules", "Walks", "AR", "TestSupport"],
            path: "Benchmarks/TreelineBench"
        ),

        // Seeded random numbers, and the literal reference stacking (HDAugmentedReality's loop) that
        // ARTests and `treeline-bench layout` compare the projector's stacking with.
        .target(name: "TestSupport", dependencies: ["AR"], path: "Tests/Support"),
        // Real processes for integration tests: an NMEA feeder standing in for a receiver, gpsd,
        // the treeline and treelined executables.
        .target(name: "IntegrationSupport", path: "Tests/IntegrationSupport"),
        .testTarget(name: "GeoTests", dependencies: ["Geo", "Regions", "Rules", "JSON", "TestSupport"]),
        .testTarget(name: "NMEATests", dependencies: ["NMEA", "Geo", "TestSupport"]),
        // Start a real gpsd (Debian's package) fed from NMEA logs, and the treeline executable.
        .testTarget(name: "GPSDTests", dependencies: ["GPSD", "Geo", "Loading", "treeline", "IntegrationSupport"]),
        .testTarget(name: "StoreTests", dependencies: ["Protocol", "Store", "Rules", "Geo", "Loading", "NMEA", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "ServerTests", dependencies: [
            "Protocol", "Server", "Store", "Rules", "Geo", "Regions", "JSON",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
        ]),
        // The daemon binary with a real gpsd, a real socket and a real SQLite file (Store: journals of
        // any length written beforehand, for the catch-up tests).
        .testTarget(name: "DaemonTests", dependencies: ["Daemon", "treeline", "IntegrationSupport", "Protocol", "Geo", "Regions", "Loading", "Store"]),
        // systemd's own checks of the units in systemd/.
        .testTarget(name: "SystemdTests", dependencies: ["IntegrationSupport"]),
        .testTarget(name: "RulesTests", dependencies: ["Rules", "Geo", "Regions", "NMEA", "TestSupport"]),
        // The engine's own parts that need no daemon: the gate of heavy reads.
        .testTarget(name: "EngineTests", dependencies: ["Engine"]),
        .testTarget(name: "WalksTests", dependencies: ["Walks", "Geo", "Regions", "JSON", "TestSupport"]),
        .testTarget(name: "MapTests", dependencies: ["Map", "Rules", "Geo", "Regions", "AR"]),
        .testTarget(name: "ARTests", dependencies: ["AR", "Geo", "TestSupport"]),
        .testTarget(name: "ConfigTests", dependencies: ["Config", "Rules"]),
        // The MQTT payloads (OwnTracks, Home Assistant's discovery, the crew), pure.
        .testTarget(name: "MQTTPayloadTests", dependencies: ["MQTT", "Geo", "JSON", "Protocol"]),
        .testTarget(
            name: "ConformanceTests",
            dependencies: ["NMEA", "Loading", "Geo"],
            resources: [.copy("gpsd-3.22")]
        ),
        // Loading, NMEA and Rules: TrackCLITests counts the used, thinned fixes of a log itself.
        .testTarget(name: "CLITests", dependencies: ["treeline", "Geo", "Regions", "Loading", "NMEA", "Rules"]),
        // The web app's pure checks (a photo's format, a request's path), without a server.
        .testTarget(name: "WebTests", dependencies: ["Web"]),
        // MBTiles files made here with GRDB as a tiler writes them (TMS rows, metadata).
        .testTarget(name: "TilesTests", dependencies: ["Tiles", .product(name: "GRDB", package: "GRDB.swift")]),
        // The wire byte for byte: every command's request and reply, the journal's lines, the
        // GeoJSON layers and OwnTracks payloads, against protocol.golden.
        .testTarget(name: "GoldenTests", dependencies: [
            "Engine", "Protocol", "Server", "Store", "Geo", "Regions", "Rules", "Loading", "MQTT", "Web",
            .product(name: "Logging", package: "swift-log"),
        ], exclude: ["protocol.golden"]),
    ]
)

// Fuzzing (Fuzz/README.md, `make fuzz`): libFuzzer targets, one executable per fuzzer, whose
// checks live in FuzzChecks. Built with `-DFUZZING` and the fuzzer and address sanitizers (only
// by `make fuzz`, into .build-fuzz), an executable is libFuzzer's; in a normal build it is a
// replayer (`fuzz-nmea FILE|DIR…`), which FuzzRegressionTests runs on every saved input.
let fuzzTargets = ["nmea", "fields", "regions", "config", "request", "monitor", "commands"]
package.targets += [
    .target(name: "FuzzChecks", dependencies: [
        "Protocol", "Geo", "Regions", "JSON", "NMEA", "Rules", "Config", "Server", "Engine", "Store", "Loading", .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
    ], path: "Fuzz/Checks"),
    .testTarget(name: "FuzzRegressionTests", dependencies: ["FuzzChecks"]),
] + fuzzTargets.map { .executableTarget(name: "fuzz-\($0)", dependencies: ["FuzzChecks"], path: "Fuzz/\($0)") }
