/// The fuzz targets by name: what the `fuzz-NAME` executables call, for libFuzzer or as replayers.
public enum FuzzTargets {
    public typealias Check = @Sendable (UnsafeRawBufferPointer) -> Void

    public static let all: [(name: String, check: Check)] = [
        ("nmea", NMEAFuzz.check),
        ("fields", FieldsFuzz.check),
        ("regions", RegionsFuzz.check),
        ("config", ConfigFuzz.check),
        ("request", RequestFuzz.check),
        ("monitor", MonitorFuzz.check),
        ("commands", CommandsFuzz.check),
    ]

    public static func check(named name: String) -> Check? { all.first { $0.name == name }?.check }
}
