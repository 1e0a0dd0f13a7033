// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Treeline",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "treeline", targets: ["treeline"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
    ],
    targets: [
        // System libraries. Each module map's header is the C shim: static inline wrappers for what
        // Swift cannot import (variadic functions, compound macros). Only Geo imports CPROJ and only
        // GPSD imports CGPS.
        .systemLibrary(name: "CGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
        .systemLibrary(name: "CPROJ", pkgConfig: "proj", providers: [.apt(["libproj-dev"])]),

        // Pure logic: no I/O.
        .target(name: "Geo", dependencies: ["CPROJ"]),
        .target(name: "NMEA", dependencies: ["Geo"]),
        .target(name: "Rules", dependencies: ["Geo"]),
        // The stacking projector: AR screen layout of points of interest.
        .target(name: "AR", dependencies: ["Geo"]),
        .target(name: "Map", dependencies: ["Geo", "Rules", "AR"]),

        // Edges.
        .target(name: "GPSD", dependencies: ["CGPS", "Geo"]),
        .target(name: "Replay", dependencies: ["NMEA", "Geo"]),
        .target(name: "Config", dependencies: ["Rules", .product(name: "Yams", package: "Yams")]),
        .executableTarget(
            name: "treeline",
            dependencies: [
                "Geo", "NMEA", "Replay", "Rules", "Config", "Map", "GPSD", "AR",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // Benchmarks: `swift run -c release treeline-bench --help`.
        .executableTarget(
            name: "treeline-bench",
            dependencies: ["NMEA", "Replay", "Geo", "Rules", "AR", "TestSupport"],
            path: "Benchmarks/TreelineBench"
        ),

        // Seeded random numbers, and the literal reference stacking (HDAugmentedReality's loop) that
        // ARTests and `treeline-bench layout` compare the projector's stacking with.
        .target(name: "TestSupport", dependencies: ["AR"], path: "Tests/Support"),
        .testTarget(name: "GeoTests", dependencies: ["Geo", "TestSupport"]),
        .testTarget(name: "NMEATests", dependencies: ["NMEA", "Geo", "TestSupport"]),
        // Start a real gpsd (Debian's package) fed from NMEA logs, and the treeline executable.
        .testTarget(name: "GPSDTests", dependencies: ["GPSD", "Geo", "Replay", "treeline"]),
        .testTarget(name: "RulesTests", dependencies: ["Rules", "Geo", "NMEA", "TestSupport"]),
        .testTarget(name: "MapTests", dependencies: ["Map", "Rules", "Geo", "AR"]),
        .testTarget(name: "ARTests", dependencies: ["AR", "Geo", "TestSupport"]),
        .testTarget(name: "ConfigTests", dependencies: ["Config", "Rules"]),
        .testTarget(
            name: "ConformanceTests",
            dependencies: ["NMEA", "Replay", "Geo"],
            resources: [.copy("gpsd-3.22")]
        ),
        .testTarget(name: "CLITests", dependencies: ["treeline", "Geo"]),
    ]
)
