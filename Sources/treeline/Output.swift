#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffered writes to a file descriptor: JSON lines are built as bytes and written in blocks.
final class ByteWriter {
    private var buffer: [UInt8] = []
    private let fd: Int32

    init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(1 << 16)
    }

    func write(_ body: (inout [UInt8]) -> Void) {
        body(&buffer)
        if buffer.count >= 1 << 16 { flush() }
    }

    func write(_ s: String) {
        buffer.append(contentsOf: s.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    func flush() {
        var offset = 0
        buffer.withUnsafeBytes { raw in
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// A one-line progress bar on standard error, only when it is a terminal and the log is big
/// enough to wait for; cleared when done.
final class ProgressBar {
    private let total: Int
    private let label: String
    private var shown = -1
    private let active: Bool

    init(total: Int?, label: String) {
        self.total = total ?? 0
        self.label = label
        active = isatty(2) == 1 && (total ?? 0) >= 8 << 20
    }

    func update(_ done: Int) {
        guard active, total > 0 else { return }
        let percent = min(100, done * 100 / total)
        guard percent != shown else { return }
        shown = percent
        let width = 30, filled = width * percent / 100
        let line = "\r\(label) [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] \(percent)%"
        _ = Array(line.utf8).withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }

    /// Clears the bar (once), before anything else is written to standard error.
    func finish() {
        guard active, shown >= 0 else { return }
        shown = -1
        _ = Array("\r\u{1B}[K".utf8).withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}

/// Writes a whole file at once: to a temporary file beside it, then renamed over it, so a reader
/// never sees half a file and a failed write leaves the old one.
enum WholeFile {
    static func write(_ text: String, to path: String, what: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else {
            throw UserError("cannot write the \(what) to \(path): \(String(cString: strerror(errno))); check that its directory exists and is writable")
        }
        var failure: Int32 = 0
        var bytes = Array(text.utf8)
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += n
            }
        }
        bytes = []
        if close(fd) != 0 && failure == 0 { failure = errno }
        if failure == 0 && rename(temporary, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            throw UserError("cannot write the \(what) to \(path): \(String(cString: strerror(failure)))")
        }
    }
}
