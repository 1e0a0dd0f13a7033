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
/// Treeline's version, the executable and the machine: `BaseLayerKey`). A set read from its store answers as the
/// one built from the files, without parsing them or building a fence: a second `treeline where`
/// on the same 10,000 fences loads in a tenth of the time.
///
/// A store is checked before it is used: its key and size, every offset and number in it
/// (`RegionSet(reading:)`), and a SHA-256 of its bytes. One that fails is removed and built
/// again from the files, with a warning. The folder keeps the `keep` stores used last; the
/// others are removed. A folder others may write in is not used at all (`isPrivate`).
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
    /// else `$HOME/.cache/treeline/regions`; nil when neither names a folder that exists (a
    /// system user's home is often /nonexistent: no store, and nothing said on every run).
    public static func userFolder(_ environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) -> String? {
        func folder(_ path: String) -> Bool {
            var s = stat()
            return path.hasPrefix("/") && stat(path, &s) == 0 && s.st_mode & S_IFMT == S_IFDIR
        }
        if let xdg = environment("XDG_CACHE_HOME"), folder(xdg) { return xdg + "/treeline/regions" }
        if let home = environment("HOME"), folder(home) { return home + "/.cache/treeline/regions" }
        return nil
    }

    /// A store is its key's 32 bytes, the set's bytes (`RegionSet.write`), and a SHA-256 of both.
    static let keyBytes = 32, digestBytes = 32

    /// The store's file for `key`.
    func path(_ key: String) -> String { "\(directory)/\(key).regions" }

    /// The set of `key` from its store; nil when there is none, or (warned, and removed) when
    /// it is not one this build wrote for that key.
    func read(_ key: String, largest: Int = .max) -> RegionSet? {
        guard Self.isPrivate(directory) else { return nil }
        let path = path(key)
        // Not blocking: a FIFO planted under a store's name must not hang the reader.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ELOOP {  // a link under a store's name: never followed, removed
                warn("\(path): a link, not a prepared store; removed, and the regions built again from their files")
                unlink(path)
            } else if errno != ENOENT {
                warn("\(path): cannot be read (\(String(cString: strerror(errno)))); building the regions again")
            }
            return nil
        }
        defer { close(fd) }
        do {
            let set = try Self.read(fd, key: key, largest: largest)
            _ = futimens(fd, nil)  // used now: kept the longer
            return set
        } catch {
            warn("\(path): a prepared store that cannot be used (\(error.description)); removed, and built again from the regions files")
            unlink(path)
            return nil
        }
    }

    /// The set in the store open at `fd`, read a buffer at a time (an array's bytes straight
    /// into the array): its key is checked first, its digest once it is read.
    static func read(_ fd: Int32, key: String, largest: Int = .max) throws(StoreFormatError) -> RegionSet {
        var s = stat()
        guard fstat(fd, &s) == 0, s.st_mode & S_IFMT == S_IFREG else { throw StoreFormatError("not a file") }
        guard Int(s.st_size) >= keyBytes + digestBytes else { throw StoreFormatError("not a prepared store: too short") }
        guard Int(s.st_size) <= largest else { throw StoreFormatError("\(s.st_size) bytes: larger than a store of these files can be") }
        let file = StoreFile(fd, payload: Int(s.st_size) - keyBytes - digestBytes)
        var head = [UInt8](repeating: 0, count: keyBytes)
        guard head.withUnsafeMutableBytes({ file.take($0) }), head == Self.keyDigest(key) else { throw StoreFormatError("the store is of other files") }
        head.withUnsafeBytes { file.hash.update(bufferPointer: $0) }
        file.hashing = true
        var reader = StoreReader(count: file.payload) { file.take($0) }
        let set = try RegionSet(reading: &reader)
        file.hashing = false
        var tail = [UInt8](repeating: 0, count: digestBytes)
        guard tail.withUnsafeMutableBytes({ file.take($0) }), tail == Array(file.hash.finalize()) else {
            throw StoreFormatError("its bytes are not those written (SHA-256)")
        }
        return set
    }

    /// A store file's bytes, a buffer at a time, each hashed as it is read while `hashing`.
    final class StoreFile {
        let fd: Int32
        let payload: Int
        var hash = SHA256()
        var hashing = false
        private var buffer = [UInt8](repeating: 0, count: 1 << 18)
        private var start = 0, end = 0
        /// The set's bytes not yet read from the file.
        private var payloadLeft: Int

        init(_ fd: Int32, payload: Int) {
            self.fd = fd
            self.payload = payload
            payloadLeft = payload
        }

        /// Fills `out` with the file's next bytes; false when the file ends first.
        func take(_ out: UnsafeMutableRawBufferPointer) -> Bool {
            guard let to = out.baseAddress else { return true }
            if !hashing {
                // The key before the set's bytes, the digest after them: read as they are, exactly
                // (the buffer holds only the set's bytes, and none are left in it here).
                var done = 0
                while done < out.count {
                    guard start == end, let n = readSome(to + done, out.count - done) else { return false }
                    done += n
                }
                return true
            }
            var done = min(out.count, end - start)
            buffer.withUnsafeBytes { to.copyMemory(from: $0.baseAddress! + start, byteCount: done) }
            start += done
            while done < out.count {
                let want = out.count - done
                if want >= buffer.count / 2 {
                    // A large array: straight from the file.
                    guard let n = readSome(to + done, want) else { return false }
                    done += n
                } else {
                    guard let n = buffer.withUnsafeMutableBytes({ readSome($0.baseAddress!, $0.count) }) else { return false }
                    (start, end) = (0, n)
                    let k = min(n, want)
                    buffer.withUnsafeBytes { (to + done).copyMemory(from: $0.baseAddress!, byteCount: k) }
                    start = k
                    done += k
                }
            }
            return true
        }

        /// Up to `count` bytes from the file (within the set's bytes while `hashing`, so that a
        /// buffer never takes the digest after them), hashed while `hashing`; nil at its end.
        private func readSome(_ to: UnsafeMutableRawPointer, _ count: Int) -> Int? {
            let most = hashing ? min(count, payloadLeft) : count
            guard most > 0 else { return nil }
            var n: Int
            repeat { n = Glibc.read(fd, to, most) } while n < 0 && errno == EINTR
            guard n > 0 else { return nil }
            if hashing {
                hash.update(bufferPointer: UnsafeRawBufferPointer(start: to, count: n))
                payloadLeft -= n
            }
            return n
        }
    }

    /// The 32 bytes of a key's 64 hex digits.
    static func keyDigest(_ key: String) -> [UInt8] {
        let hex = Array(key.utf8)
        func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c &- 48 : c &- 87 }
        return stride(from: 0, to: hex.count - 1, by: 2).map { nibble(hex[$0]) << 4 | nibble(hex[$0 + 1]) }
    }

    /// Writes the store of `set` for `key` (a file written whole, a megabyte at a time, then
    /// renamed into place, so that a reader never sees half of one), and removes the stores used
    /// longest ago beyond `keep`. A store that cannot be written is warned of; the set is used
    /// all the same.
    func write(_ set: RegionSet, key: String) {
        guard Self.makeFolder(directory) else {
            warn("\(directory): cannot make the folder for prepared regions (\(String(cString: strerror(errno)))); the regions are read from their files each time")
            return
        }
        guard Self.isPrivate(directory) else {
            warn("\(directory): the folder of prepared regions is not yours alone (another owner, or others may write in it); the regions are read from their files each time")
            return
        }
        // A name of its own (two writers of one key never share one), never a file already there.
        let temporary = "\(directory)/.\(key).\(getpid()).\(UInt64.random(in: 0...UInt64.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            warn("\(temporary): cannot write a prepared store (\(String(cString: strerror(errno))))")
            return
        }
        var hash = SHA256(), failed: Int32 = 0
        func put(_ b: UnsafeRawBufferPointer) {
            var done = 0
            while failed == 0, done < b.count {
                let n = Glibc.write(fd, b.baseAddress! + done, b.count - done)
                if n > 0 { done += n } else if errno != EINTR { failed = errno }
            }
        }
        let head = Self.keyDigest(key)
        head.withUnsafeBytes { hash.update(bufferPointer: $0); put($0) }
        var w = StoreWriter { chunk in
            hash.update(bufferPointer: chunk)
            put(chunk)
        }
        set.write(to: &w)
        w.flush()
        Array(hash.finalize()).withUnsafeBytes { put($0) }
        close(fd)
        guard failed == 0, rename(temporary, path(key)) == 0 else {
            warn("\(temporary): cannot write a prepared store (\(String(cString: strerror(failed != 0 ? failed : errno)))); the regions are read from their files each time")
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
            if name.hasPrefix("."), name.hasSuffix(".tmp") {
                // A writer's that a crash left: gone after an hour.
                var s = stat()
                let path = "\(directory)/\(name)"
                if lstat(path, &s) == 0, s.st_mode & S_IFMT == S_IFREG, time(nil) - s.st_mtim.tv_sec > 3600 { unlink(path) }
                continue
            }
            // Only stores' names: 64 hex digits and ".regions".
            guard name.utf8.count == 72, name.hasSuffix(".regions"), name.utf8.prefix(64).allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { continue }
            var s = stat()
            let path = "\(directory)/\(name)"
            if stat(path, &s) == 0 { stores.append((s.st_mtim.tv_sec * 1_000_000_000 + s.st_mtim.tv_nsec, path)) }
            if stores.count > 10_000 { break }  // a folder of someone else's files: stop looking
        }
        closedir(dir)
        for old in stores.sorted(by: { $0.time > $1.time }).dropFirst(keep) { unlink(old.path) }
    }

    /// Whether `folder` is a folder of this user's that no one else may write in: a store read
    /// from another's could be any set at all (its key and digest are no secret), and a file
    /// written there could be made to land elsewhere.
    /// Its parent too (`treeline`, made with it): another user who owned the parent could swap
    /// the folder between this check and a store's open.
    static func isPrivate(_ folder: String) -> Bool {
        func own(_ path: String) -> Bool {
            var s = stat()
            return lstat(path, &s) == 0 && s.st_mode & S_IFMT == S_IFDIR && s.st_uid == geteuid() && s.st_mode & 0o022 == 0
        }
        let parent = String(folder[..<(folder.lastIndex(of: "/") ?? folder.startIndex)])
        return own(folder) && (parent.isEmpty || own(parent))
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
