#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo
import NMEA

/// Why a log could not be read. The message names the file and says what to do.
public enum LogFileError: Error, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String, what: String = "NMEA log")
    case isDirectory(path: String, what: String = "NMEA log")
    case readFailed(path: String, reason: String, what: String = "NMEA log")

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason, what):
            return "cannot open \(what) '\(path)': \(reason); check the path and its permissions"
        case let .isDirectory(path, what):
            return "'\(path)' is a directory, not \(what.first.map { "aeiou".contains($0) } == true ? "an" : "a") \(what); give a file, or '-' for standard input"
        case let .readFailed(path, reason, what):
            return "reading \(what) '\(path)' failed: \(reason)"
        }
    }

    /// The same error for another kind of file ("regions file", "points file", …).
    func renamed(_ what: String) -> LogFileError {
        switch self {
        case let .cannotOpen(path, reason, _): return .cannotOpen(path: path, reason: reason, what: what)
        case let .isDirectory(path, _): return .isDirectory(path: path, what: what)
        case let .readFailed(path, reason, _): return .readFailed(path: path, reason: reason, what: what)
        }
    }
}

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
