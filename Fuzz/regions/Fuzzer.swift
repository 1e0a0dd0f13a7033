import FuzzChecks

// libFuzzer's entry (built with -sanitize=fuzzer and -DFUZZING: libFuzzer supplies main).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    RegionsFuzz.check(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

#if !FUZZING
// A normal build: replay files and folders through the same check (`swift run fuzz-regions FILE|DIR…`).
@main enum Replay {
    static func main() { FuzzReplayer.main("regions", RegionsFuzz.check) }
}
#endif
