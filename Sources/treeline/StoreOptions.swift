import ArgumentParser
import Loading
#if canImport(Glibc)
import Glibc
#endif

/// Where a command keeps its prepared regions (`FenceStore`): the regions' fences built once and
/// read back while the files are the same.
struct StoreOptions: ParsableArguments {
    @Flag(name: .customLong("no-store"),
          help: "Parse the regions files and build their fences even when a prepared store of them is kept (in $XDG_CACHE_HOME/treeline/regions, else ~/.cache/treeline/regions), and keep none.")
    var noStore = false

    /// The store to read and write, nil with `--no-store` or with no home folder.
    var store: FenceStore? {
        guard !noStore, let folder = FenceStore.userFolder() else { return nil }
        return FenceStore(directory: folder) { message in
            let line = Array("treeline: \(message)\n".utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        }
    }
}
