import Crypto

/// What names a base layer: SHA-256 over Treeline's version and each regions file's path and
/// bytes, the very bytes parsed (`Loader.regionList`'s `read`). Files with the key the journal
/// last announced are that layer (read by this version of the reader, so their Features are the
/// same), and a start or reload on them compares nothing. A prepared store (`FenceStore`) is
/// named by the same key, with its options.
public struct BaseLayerKey {
    private var hash = SHA256()

    public init(version: String) { add(text: "treeline \(version)\n") }

    public mutating func add(_ path: String, _ bytes: UnsafeBufferPointer<UInt8>) {
        add(text: "\(path)\n\(bytes.count)\n")
        hash.update(bufferPointer: UnsafeRawBufferPointer(bytes))
    }

    /// Adds `text`'s bytes (what else the key stands for).
    public mutating func add(text: String) {
        var text = text
        text.withUTF8 { hash.update(bufferPointer: UnsafeRawBufferPointer($0)) }
    }

    /// The digest, 64 lowercase hex digits.
    public var text: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in hash.finalize() {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
