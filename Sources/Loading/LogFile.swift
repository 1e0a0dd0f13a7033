#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo
import NMEA

/// An NMEA log on disk or standard input (`-`), read in fixed chunks so memory does not grow
/// with the file.
public final class LogFile {
    public let path: String
    private let fd: Int32
    private let ownsDescriptor: Bool
    public static let chunkSize = 1 << 20
    /// The file's size in bytes when it is a regular file (not standard input or a pipe).
    public private(set) var size: Int?

    public init(path: String) throws(LogFileError) {
        self.path = path
        if path == "-" {
            fd = 0
            ownsDescriptor = false
            return
        }
        let d = open(path, O_RDONLY | O_CLOEXEC)
        guard d >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        var st = stat()
        if fstat(d, &st) == 0 {
            if (st.st_mode & S_IFMT) == S_IFDIR {
                close(d)
                throw .isDirectory(path: path)
            }
            if (st.st_mode & S_IFMT) == S_IFREG { size = Int(st.st_size) }
        }
        fd = d
        ownsDescriptor = true
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    /// Calls `body` with each chunk until end of file.
    public func forEachChunk(_ body: (UnsafeRawBufferPointer) -> Void) throws(LogFileError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n == 0 { return }
            if n < 0 {
                if errno == EINTR { continue }
                throw .readFailed(path: path, reason: String(cString: strerror(errno)))
            }
            body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
    }

    /// The whole file mapped read-only, for `body`, which may give back the pages of a range it
    /// has read (`release(range)`; they are read again from the page cache if touched again): a
    /// large file is then never resident as a whole. Nil for standard input or a pipe, or when
    /// the file cannot be mapped: read it instead. A file cut short while mapped ends the process
    /// (SIGBUS) when the lost pages are touched: for short-lived readers only.
    public func withMapping<T>(_ body: (UnsafeBufferPointer<UInt8>, _ release: (Range<Int>) -> Void) -> T) -> T? {
        guard let size else { return nil }
        if size == 0 { return body(UnsafeBufferPointer(start: nil, count: 0), { _ in }) }
        return Self.mapped(fd, size, body)
    }

    /// `size` bytes of `descriptor` mapped read-only for `body`, with the `release` of
    /// `withMapping`; nil when they cannot be mapped.
    private static func mapped<T>(_ descriptor: Int32, _ size: Int, _ body: (UnsafeBufferPointer<UInt8>, _ release: (Range<Int>) -> Void) -> T) -> T? {
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), base != MAP_FAILED else { return nil }
        defer { munmap(base, size) }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let bytes = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: size)
        return body(bytes) { range in
            // Only the pages wholly inside: a page shared with text still to be read stays.
            let start = (max(0, range.lowerBound) + page - 1) / page * page, end = min(range.upperBound, size) / page * page
            if end > start { _ = madvise(base + start, end - start, MADV_DONTNEED) }
        }
    }

    /// The file copied into an unnamed file of `directory` and that copy mapped, for `body`,
    /// which may give back the pages of a range it has read (`release(range)`, as
    /// `withMapping`'s): a file rewritten while it is read cannot end the process, as a mapping of
    /// the file itself would (SIGBUS). The copy's pages are page cache, not the process's
    /// memory: under pressure the kernel may write them out and drop them (which it cannot do
    /// with a read into memory, without swap); else they go, unwritten, with the copy, a second
    /// or two later. Nil for standard input or a pipe, or when no such copy can be made (a tmpfs,
    /// too little room: `roomForCopy`; a file that grew): read it whole instead.
    public func withPrivateCopy<T>(in directory: String, _ body: (UnsafeBufferPointer<UInt8>, _ release: (Range<Int>) -> Void) -> T) throws(LogFileError) -> T? {
        guard let size, size > 0 else { return nil }
        // O_TMPFILE: a file no other process can open; it goes with its last descriptor.
        var copy = open(directory, O_DIRECTORY | 0o20000000 | O_RDWR | O_CLOEXEC, 0o600)
        if copy < 0 {  // a file system without unnamed files: a named one, unlinked at once
            var template = Array("\(directory)/.treeline-regions-XXXXXX".utf8CString)
            copy = mkstemp(&template)
            guard copy >= 0 else { return nil }
            unlink(template)
            _ = fcntl(copy, F_SETFD, FD_CLOEXEC)
        }
        defer { close(copy) }
        guard Self.roomForCopy(copy, size) else { return nil }
        var copied = 0
        var readFailure: String?
        try forEachChunk { chunk in
            guard readFailure == nil, copied + chunk.count <= size else {
                readFailure = readFailure ?? "grew"
                return
            }
            var at = 0
            while at < chunk.count {
                let n = pwrite(copy, chunk.baseAddress! + at, chunk.count - at, off_t(copied + at))
                if n < 0, errno == EINTR { continue }
                guard n > 0 else {
                    readFailure = "no room"
                    return
                }
                at += n
            }
            copied += chunk.count
        }
        if readFailure == nil, copied > 0, let done = Self.mapped(copy, copied, body) { return done }
        lseek(fd, 0, SEEK_SET)  // read again from the start by whoever reads it instead
        return nil
    }

    /// Whether the file system of `fd` takes a copy of `size` bytes as `withPrivateCopy` means
    /// it: on a disk (a tmpfs or ramfs copy is memory, and beside the file's page cache, more
    /// of it than a read), with the copy's size and 64 MB more free (the database on the same
    /// disk must not run out of room for it).
    static func roomForCopy(_ fd: Int32, _ size: Int) -> Bool {
        // statfs's first field is the file system's type (a long on every 64-bit Linux); the
        // struct is 120 bytes there. Glibc's module does not export statfs.
        var type = 0
        let read = withUnsafeTemporaryAllocation(byteCount: 256, alignment: 16) { buffer -> Bool in
            guard linuxFstatfs(fd, buffer.baseAddress!) == 0 else { return false }
            type = buffer.load(as: Int.self)
            return true
        }
        guard read, type != 0x0102_1994, type != 0x8584_58f6 else { return false }  // TMPFS_MAGIC, RAMFS_MAGIC
        var v = statvfs()
        guard fstatvfs(fd, &v) == 0 else { return false }
        let free = Double(v.f_bavail) * Double(v.f_frsize)
        return free >= Double(size) + 64 * 1_048_576
    }

    /// Reads the whole log through an `NMEAReader`, calling `onFix` for every epoch and
    /// `progress` with the bytes read so far after each chunk.
    @discardableResult
    public func replay(progress: ((Int) -> Void)? = nil, _ onFix: (Fix) -> Void) throws(LogFileError) -> NMEAStats {
        var reader = NMEAReader()
        var done = 0
        try forEachChunk {
            reader.read($0, onFix)
            done += $0.count
            progress?(done)
        }
        reader.finish(onFix)
        return reader.statistics
    }
}

@_silgen_name("fstatfs") private func linuxFstatfs(_ fd: Int32, _ buffer: UnsafeMutableRawPointer) -> Int32
