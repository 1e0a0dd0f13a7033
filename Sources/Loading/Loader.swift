#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Config
import Geo
import Rules
import Regions
import TreelineVersion

/// Reads and checks the files Treeline is given: regions, the config, the species catalog, and
/// small files of other kinds (points, POIs); `-` is standard input. NMEA logs, which can be
/// large, are streamed by `LogFile` instead.
public enum Loader {
    /// A whole small file; `what` names its kind in messages ("points file").
    public static func bytes(_ path: String, what: String) throws(LoadError) -> [UInt8] {
        do {
            return try contents(of: LogFile(path: path))
        } catch {
            throw LoadError(file: path, cause: .unreadable(error.renamed(what)))
        }
    }

    /// All of an open file.
    static func contents(of file: LogFile) throws(LogFileError) -> [UInt8] {
        var bytes: [UInt8] = []
        // One allocation of the right size: growing by doubling would copy an 80 MB regions
        // file several times and hold up to twice its size at the peak.
        if let size = file.size { bytes.reserveCapacity(size) }
        try file.forEachChunk { bytes.append(contentsOf: $0) }
        return bytes
    }

    public static func regions(_ path: String, crs: String? = nil, requirements: RegionFile.Requirements = .full, rasters: Bool = true) throws(LoadError) -> RegionSet {
        try regions([path], crs: crs, requirements: requirements, rasters: rasters)
    }

    /// Several regions files as one set (e.g. one drawn in WGS84 and one in a national CRS); ids
    /// must be unique across them. Every problem of every file is reported, not just the first.
    /// `rasters`: see `RegionSet.init`.
    /// `store`: read the set from its prepared store when the files, options and version are
    /// those it was built from, else build it and write its store (see `FenceStore`). Standard
    /// input is never stored.
    public static func regions(_ paths: [String], crs: String? = nil, requirements: RegionFile.Requirements = .full, rasters: Bool = true,
                               store: FenceStore? = nil) throws(LoadError) -> RegionSet {
        guard let store, !paths.contains("-") else { return try built(paths, crs: crs, requirements: requirements, rasters: rasters) }
        let options = "crs \(crs ?? "-"), \(requirements), rasters \(rasters)"
        guard let (key, bytes) = try storeKey(paths, options: options) else {
            return try built(paths, crs: crs, requirements: requirements, rasters: rasters)
        }
        // A store is some 1.5 times its files (a country's small circles up to 4): a larger one
        // is not theirs, whatever its count fields say.
        if let set = store.read(key, largest: 32 * bytes + (1 << 20)) { return set }
        // The key of the bytes parsed, which a file changed since it was looked up changes too.
        var parsed = storeKey(options: options)
        let set = try built(paths, crs: crs, requirements: requirements, rasters: rasters) { parsed?.add($0, $1) }
        if let parsed { store.write(set, key: parsed.text) }
        return set
    }

    /// The regions of `paths` parsed and their set built; `read` as `regionList`'s.
    private static func built(_ paths: [String], crs: String?, requirements: RegionFile.Requirements, rasters: Bool,
                              read: ((String, UnsafeBufferPointer<UInt8>) -> Void)? = nil) throws(LoadError) -> RegionSet {
        let regions = try regionList(paths, crs: crs, requirements: requirements, read: read).map(\.region)
        // The parsed documents are gone; their many small blocks stay in malloc's free lists,
        // which the set's large arrays (allocated apart) never reuse. Giving them back keeps
        // 100,000 fences' peak at the parse (86 MB returned, measured), not the parse plus the set.
        releaseFreeMemory()
        return RegionSet(regions, rasters: rasters)
    }

    /// A prepared store's key before its files are added: the version and this very executable
    /// (a build of the same version may lay fences out otherwise), the machine and the layout of
    /// the values stored as they lie in memory, the options.
    /// Nil when the executable cannot be told (no /proc): no store then.
    static func storeKey(options: String) -> BaseLayerKey? {
        var key = BaseLayerKey(version: treelineVersion)
        var exe = stat()
        guard stat("/proc/self/exe", &exe) == 0 else { return nil }
        key.add(text: "executable \(exe.st_dev) \(exe.st_ino) \(exe.st_size) \(exe.st_mtim.tv_sec).\(exe.st_mtim.tv_nsec)\n")
        key.add(text: "layout \(MemoryLayout<FenceCore>.stride) \(MemoryLayout<EdgeBlock>.stride) \(MemoryLayout<Planar>.stride) \(MemoryLayout<GeoBox>.stride)\n")
        #if arch(x86_64)
        key.add(text: "x86_64\n")
        #elseif arch(arm64)
        key.add(text: "arm64\n")
        #else
        key.add(text: "\(MemoryLayout<Int>.size * 8)-bit\n")
        #endif
        key.add(text: "prepared regions: \(options)\n")
        return key
    }

    /// The key of `paths` as they are now, or nil when one is not a regular file (a pipe, read
    /// once, must be parsed as it is read).
    static func storeKey(_ paths: [String], options: String) throws(LoadError) -> (key: String, bytes: Int)? {
        guard var key = storeKey(options: options) else { return nil }
        var total = 0
        for path in paths {
            var s = stat()
            guard stat(path, &s) == 0, s.st_mode & S_IFMT == S_IFREG else { return nil }
            try withRegionsText(path, mapped: true) { bytes, _ in
                key.add(path, bytes)
                total += bytes.count
            }
        }
        return (key.text, total)
    }

    /// The regions of several files, in order, each with the file it came from (a message about
    /// a region names the file to edit); ids unique across them.
    /// `parallel`: see `RegionFile.parse`. `mapped`, `copyIn`: see `withRegionsText`.
    /// `read`: given each file's path and bytes, the very bytes parsed, before they are (the
    /// daemon's key of the base layer is theirs).
    public static func regionList(_ paths: [String], crs: String? = nil, requirements: RegionFile.Requirements = .full,
                                  parallel: Bool = true, mapped: Bool = true, copyIn: String? = nil,
                                  read: ((String, UnsafeBufferPointer<UInt8>) -> Void)? = nil) throws(LoadError) -> [(region: Region, file: String)] {
        var all: [(region: Region, file: String)] = []
        var issues: [RegionIssue] = []
        var firstFile: [String: String] = [:]
        for path in paths {
            let result = try regionFile(path, crs: crs, requirements: requirements, parallel: parallel, mapped: mapped, copyIn: copyIn, read: read)
            do {
                let regions = try result.get()
                for (k, r) in regions.enumerated() {
                    if let other = firstFile[r.id] {
                        issues.append(RegionIssue(file: path, feature: k, id: r.id, line: nil, column: nil,
                                                  message: "duplicate id: \(other) has a region with the same id"))
                    } else {
                        firstFile[r.id] = path
                    }
                }
                all += regions.map { ($0, path) }
            } catch {
                issues += error.issues
            }
        }
        if let first = issues.first { throw LoadError(file: first.file, cause: .regions(RegionFileError(issues: issues))) }
        return all
    }

    /// One regions file's regions, or what is wrong with them; throws only when the file cannot
    /// be read. `mapped`, `copyIn`: see `withRegionsText`.
    static func regionFile(_ path: String, crs: String?, requirements: RegionFile.Requirements, parallel: Bool, mapped: Bool, copyIn: String? = nil,
                           read: ((String, UnsafeBufferPointer<UInt8>) -> Void)? = nil) throws(LoadError) -> Result<[Region], RegionFileError> {
        try withRegionsText(path, mapped: mapped, copyIn: copyIn) { bytes, release in
            read?(path, bytes)
            return Result { () throws(RegionFileError) in
                try RegionFile.parse(bytes, file: path, crs: crs, requirements: requirements, parallel: parallel, done: release)
            }
        }
    }

    /// A regions file's regions a block at a time, as they are read (see
    /// `RegionFile.forEachBlock`): for a reader that needs each region once. A file with a
    /// problem throws at the end, after blocks have been handed over.
    public static func forEachRegionBlock(_ path: String, crs: String? = nil, _ body: ([Region]) -> Void) throws(LoadError) {
        let read = try withRegionsText(path, mapped: true) { bytes, release in
            Result { () throws(RegionFileError) in try RegionFile.forEachBlock(bytes, file: path, crs: crs, done: release, body) }
        }
        if case let .failure(error) = read { throw LoadError(file: path, cause: .regions(error)) }
    }

    /// `body` with a regions file's text, opened once, and a way to give back the pages of a
    /// stretch it has read, so that 80 MB of text is never resident beside the regions made of
    /// it. `mapped`: a regular file is mapped. A mapped file cut short while it is read ends the
    /// process (SIGBUS): a long-running reader that must outlive a file rewritten in place (the
    /// daemon) reads a copy instead: with `copyIn`, a private copy in that folder, mapped
    /// (`LogFile.withPrivateCopy`); else (or when that copy cannot be made) one in memory.
    static func withRegionsText<T>(_ path: String, mapped: Bool, copyIn: String? = nil,
                                   _ body: (UnsafeBufferPointer<UInt8>, _ release: (Range<Int>) -> Void) -> T) throws(LoadError) -> T {
        do {
            let file = try LogFile(path: path)
            if mapped, let done = file.withMapping(body) { return done }
            if !mapped, let copyIn, let done = try file.withPrivateCopy(in: copyIn, body) { return done }
            return try contents(of: file).withUnsafeBufferPointer { body($0, { _ in }) }
        } catch {
            throw LoadError(file: path, cause: .unreadable(error.renamed("regions file")))
        }
    }

    /// The config file (YAML); the error names the file, line and key.
    public static func config(_ path: String) throws(LoadError) -> TreelineConfig {
        let data = try bytes(path, what: "config file")
        do {
            return try TreelineConfig.parse(String(decoding: data, as: UTF8.self), file: path)
        } catch {
            throw LoadError(file: path, cause: .config(error))
        }
    }

    /// The catalog a command-line tool reads: the one `given` (`--catalog`); else the config's
    /// `species:` (the daemon's own catalog); else `Data/species.json` in the current folder,
    /// then the installed one.
    public static func catalog(given: String?, config: TreelineConfig?) throws(LoadError) -> SpeciesCatalog {
        if let given { return try catalog([given]) }
        if let config { return try catalog([config.species]) }
        return try catalog(["Data/species.json", "/usr/local/share/treeline/species.json", "/usr/share/treeline/species.json"])
    }

    /// The species catalog: the first of `candidates` that exists (a path given by the user is
    /// the only candidate; defaults may list several).
    public static func catalog(_ candidates: [String]) throws(LoadError) -> SpeciesCatalog {
        guard let path = candidates.first(where: { access($0, F_OK) == 0 }) else {
            throw LoadError(file: candidates.first ?? "", cause: .noCatalog(looked: candidates))
        }
        let data = try bytes(path, what: "species catalog")
        do {
            return try SpeciesCatalog(parsing: data, file: path)
        } catch {
            throw LoadError(file: path, cause: .catalog(error))
        }
    }
}

/// Returns freed heap memory to the system (glibc's `malloc_trim`, which Glibc's module does not
/// export); nothing elsewhere. The daemon calls it once its start's and its rasters' temporary
/// memory is freed: without it the heap keeps those pages for good.
public func releaseFreeMemory() {
#if canImport(Glibc)
    _ = glibcMallocTrim(0)
#endif
}

#if canImport(Glibc)
@_silgen_name("malloc_trim") private func glibcMallocTrim(_ pad: Int) -> Int32
#endif

