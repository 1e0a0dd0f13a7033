import FuzzChecks

// libFuzzer's entry (built with -sanitize=fuzzer and -DFUZZING: libFuzzer supplies main).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    CommandsFuzz.check(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

#if !FUZZING
// A normal build: replay files and folders through the same check (`swift run fuzz-commands FILE|DIR…`).
@main enum Replay {
    static func main() { FuzzReplayer.main("commands", CommandsFuzz.check) }
}
#endif
