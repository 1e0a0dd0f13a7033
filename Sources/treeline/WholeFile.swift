#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
