import Crypto
import Engine
import Foundation

/// What names a base layer: SHA-256 over Treeline's version and each regions file's path and
/// bytes. Files with the key the journal last announced are that layer (read by this version
/// of the reader, so their Features are the same), and a start on them compares nothing. Taken
/// before the files are parsed: a file changed in between gets a key that is not its content's,
/// so the next start compares again, never the other way round.
enum BaseLayerKey {
    static func of(_ paths: [String], version: String) throws(DaemonError) -> String {
        var hash = SHA256()
        hash.update(data: Data("treeline \(version)\n".utf8))
        var chunk = [UInt8](repeating: 0, count: 1 << 22)
        for path in paths {
            hash.update(data: Data("\(path)\n".utf8))
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw DaemonError("\(path): cannot be read (\(String(cString: strerror(errno)))): check the config's regions: and the file's permissions") }
            defer { close(fd) }
            var size = 0
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n >= 0 else { throw DaemonError("\(path): reading failed (\(String(cString: strerror(errno))))") }
                if n == 0 { break }
                size += n
                chunk.withUnsafeBytes { hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<n])) }
            }
            hash.update(data: Data("\n\(size)\n".utf8))
        }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
