import FuzzChecks

// libFuzzer's entry (built with -sanitize=fuzzer and -DFUZZING: libFuzzer supplies main).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    MonitorFuzz.check(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

#if !FUZZING
// A normal build: replay files and folders through the same check (`swift run fuzz-monitor FILE|DIR…`).
@main enum Replay {
    static func main() { FuzzReplayer.main("monitor", MonitorFuzz.check) }
}
#endif
