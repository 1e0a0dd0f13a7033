#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo
import NMEA

/// Why a log could not be read. The message names the file and says what to do.
public enum LogFileError: Error, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case isDirectory(path: String)
    case readFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason):
            return "cannot open NMEA log '\(path)': \(reason); check the path and its permissions"
        case let .isDirectory(path):
            return "'\(path)' is a directory, not an NMEA log; give a log file, or '-' for standard input"
        case let .readFailed(path, reason):
            return "reading NMEA log '\(path)' failed: \(reason)"
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
        if fstat(d, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            close(d)
            throw .isDirectory(path: path)
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

    /// Reads the whole log through an `NMEAReader`, calling `onFix` for every epoch.
    @discardableResult
    public func replay(_ onFix: (Fix) -> Void) throws(LogFileError) -> NMEAStats {
        var reader = NMEAReader()
        try forEachChunk { reader.read($0, onFix) }
        reader.finish(onFix)
        return reader.statistics
    }
}
