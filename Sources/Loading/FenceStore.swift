import Crypto
import Geo
import Regions
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder of prepared region sets: each a set's regions and built fences (`RegionSet`'s store
/// bytes), named by the key of what it was built from (the files' paths and bytes, the options,
/// Treeline's version and the machine: `BaseLayerKey`). A set read from its store answers as the
/// one built from the files, without parsing them or building a fence: a second `treeline where`
/// on the same 10,000 fences loads in a tenth of the time.
///
/// A store is checked before it is used: its key, a SHA-256 of its bytes, and every offset in
/// it (`RegionSet(storeBytes:)`). One that fails is removed and built again from the files, with
/// a warning. The folder keeps the `keep` stores used last; the others are removed.
public struct FenceStore: Sendable {
    /// The folder, made (0700) when the first store is written.
    public let directory: String
    /// How many stores the folder keeps.
    public let keep: Int
    /// Told of a store refused or not written (the CLI prints it on standard error).
    public let warn: @Sendable (String) -> Void

    public init(directory: String, keep: Int = 8, warn: @escaping @Sendable (String) -> Void = { _ in }) {
        self.directory = directory
        self.keep = max(1, keep)
        self.warn = warn
    }

    /// The folder a user's commands keep their stores in: `$XDG_CACHE_HOME/treeline/regions`,
    /// else `$HOME/.cache/treeline/regions`; nil when neither is set.
    public static func userFolder(_ environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) -> String? {
        if let xdg = environment("XDG_CACHE_HOME"), xdg.hasPrefix("/") { return xdg + "/treeline/regions" }
        if let home = environment("HOME"), home.hasPrefix("/") { return home + "/.cache/treeline/regions" }
        return nil
    }

    /// What a store's bytes start with: its key, then a SHA-256 of the key and the set's bytes.
    static let headerBytes = 64

    /// The store's file for `key`.
    func path(_ key: String) -> String { "\(directory)/\(key).regions" }

    /// The set of `key` from its store; nil when there is none, or (warned, and removed) when
    /// it is not one this build wrote for that key.
    func read(_ key: String) -> RegionSet? {
        let path = path(key)
        guard access(path, F_OK) == 0 else { return nil }
        let bytes: [UInt8]
        do { bytes = try Loader.contents(of: LogFile(path: path)) } catch {
            warn("\(path): \(error.description); building the regions again")
            return nil
        }
        do {
            let set = try Self.opened(bytes, key: key)
            _ = utimensat(AT_FDCWD, path, nil, 0)  // used now: kept the longer
            return set
        } catch {
            warn("\(path): a prepared store that cannot be used (\(error.description)); removed, and built again from the regions files")
            unlink(path)
            return nil
        }
    }

    /// The set in a store's bytes, once its key and digest are checked.
    static func opened(_ bytes: [UInt8], key: String) throws(StoreFormatError) -> RegionSet {
        guard bytes.count >= headerBytes, Array(bytes[0..<32]) == digestBytes(key) else { throw StoreFormatError("the store is of other files") }
        var hash = SHA256()
        bytes.withUnsafeBytes { b in
            hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: b[0..<32]))
            hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: b[headerBytes...]))
        }
        guard Array(hash.finalize()) == Array(bytes[32..<64]) else { throw StoreFormatError("its bytes are not those written (SHA-256)") }
        let set = bytes.withUnsafeBytes { b in
            Result { () throws(StoreFormatError) in try RegionSet(storeBytes: UnsafeRawBufferPointer(rebasing: b[headerBytes...])) }
        }
        return try set.get()
    }

    /// A store's whole bytes for `set`, under `key`.
    static func bytes(_ set: RegionSet, key: String) -> [UInt8] {
        let body = set.storeBytes(), head = digestBytes(key)
        var hash = SHA256()
        head.withUnsafeBytes { hash.update(bufferPointer: $0) }
        body.withUnsafeBytes { hash.update(bufferPointer: $0) }
        return head + Array(hash.finalize()) + body
    }

    /// The 32 bytes of a key's 64 hex digits.
    static func digestBytes(_ key: String) -> [UInt8] {
        let hex = Array(key.utf8)
        func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c &- 48 : c &- 87 }
        return stride(from: 0, to: hex.count - 1, by: 2).map { nibble(hex[$0]) << 4 | nibble(hex[$0 + 1]) }
    }

    /// Writes the store of `set` for `key` (a file written whole, then renamed into place, so
    /// that a reader never sees half of one), and removes the stores used longest ago beyond
    /// `keep`. A store that cannot be written is warned of; the set is used all the same.
    func write(_ set: RegionSet, key: String) {
        guard Self.makeFolder(directory) else {
            warn("\(directory): cannot make the folder for prepared regions (\(String(cString: strerror(errno)))); the regions are read from their files each time")
            return
        }
        let bytes = Self.bytes(set, key: key)
        let temporary = "\(directory)/.\(key).\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            warn("\(temporary): cannot write a prepared store (\(String(cString: strerror(errno))))")
            return
        }
        var written = 0
        bytes.withUnsafeBytes { b in
            while written < b.count {
                let n = Glibc.write(fd, b.baseAddress! + written, b.count - written)
                if n <= 0 { break }
                written += n
            }
        }
        close(fd)
        guard written == bytes.count, rename(temporary, path(key)) == 0 else {
            warn("\(temporary): cannot write a prepared store (\(String(cString: strerror(errno))))")
            unlink(temporary)
            return
        }
        prune()
    }

    /// Removes the stores beyond the `keep` used last (by their times of last use).
    func prune() {
        guard let dir = opendir(directory) else { return }
        var stores: [(time: Int, path: String)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            guard name.hasSuffix(".regions"), !name.hasPrefix(".") else { continue }
            var s = stat()
            let path = "\(directory)/\(name)"
            if stat(path, &s) == 0 { stores.append((s.st_mtim.tv_sec * 1_000_000_000 + s.st_mtim.tv_nsec, path)) }
            if stores.count > 10_000 { break }  // a folder of someone else's files: stop looking
        }
        closedir(dir)
        for old in stores.sorted(by: { $0.time > $1.time }).dropFirst(keep) { unlink(old.path) }
    }

    /// Makes `path` and the folders above it (0700) when missing; whether it is a folder now.
    static func makeFolder(_ path: String) -> Bool {
        var s = stat()
        if stat(path, &s) == 0 { return s.st_mode & S_IFMT == S_IFDIR }
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !parent.isEmpty, !makeFolder(parent) { return false }
        return mkdir(path, 0o700) == 0 || errno == EEXIST
    }
}
