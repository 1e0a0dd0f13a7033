import Crypto
import Foundation

/// What names a base layer: SHA-256 over Treeline's version and each regions file's path and
/// bytes, the very bytes parsed (`Loader.regionList`'s `read`). Files with the key the journal
/// last announced are that layer (read by this version of the reader, so their Features are the
/// same), and a start or reload on them compares nothing.
struct BaseLayerKey {
    private var hash = SHA256()

    init(version: String) { hash.update(data: Data("treeline \(version)\n".utf8)) }

    mutating func add(_ path: String, _ bytes: UnsafeBufferPointer<UInt8>) {
        hash.update(data: Data("\(path)\n\(bytes.count)\n".utf8))
        hash.update(bufferPointer: UnsafeRawBufferPointer(bytes))
    }

    var text: String { hash.finalize().map { String(format: "%02x", $0) }.joined() }
}
