#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `fuzz-NAME` executables of a normal (unsanitized) build: run `check` on every file named,
/// or in a folder named (not recursively; hidden files and README.md are skipped). Each file's
/// path goes to standard error before it runs, so a crash names its input. Exit 0 when all pass.
public enum FuzzReplayer {
    public static func main(_ name: String, _ check: FuzzTargets.Check) -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.isEmpty || arguments.contains("-h") || arguments.contains("--help") {
            print("usage: fuzz-\(name) FILE|DIR…  replays inputs through the '\(name)' fuzz check (built with -DFUZZING and")
            print("-sanitize=fuzzer,address it is the libFuzzer target instead: see Fuzz/README.md)")
            exit(arguments.isEmpty ? 2 : 0)
        }
        var files: [String] = []
        for a in arguments {
            guard let entries = listDirectory(a) else { files.append(a); continue }
            files += entries.filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted().map { a + "/" + $0 }
                .filter { listDirectory($0) == nil }
        }
        var count = 0
        for path in files {
            guard let bytes = readFile(path) else {
                printError("fuzz-\(name): cannot read \(path)")
                exit(1)
            }
            printError("replaying \(path)")
            bytes.withUnsafeBytes { check($0) }
            count += 1
        }
        print("fuzz-\(name): \(count) input\(count == 1 ? "" : "s") passed")
        exit(0)
    }

    /// A line on standard error, unbuffered: it is out before a crash.
    static func printError(_ line: String) {
        var bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// The names in a folder, or nil if `path` is not one.
    static func listDirectory(_ path: String) -> [String]? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func readFile(_ path: String) -> [UInt8]? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buffer, 1, buffer.count, f)
            if n > 0 { out.append(contentsOf: buffer[0..<n]) }
            if n < buffer.count { return ferror(f) != 0 ? nil : out }
        }
    }
}
