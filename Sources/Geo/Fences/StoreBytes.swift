/// A prepared store's bytes as written: numbers and flat arrays of plain values, in this machine's
/// own byte order and layout. A store is read back only by the build that wrote it (its key names
/// the version and the machine), so nothing is converted.
package struct StoreWriter {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    package mutating func int(_ v: Int) { Swift.withUnsafeBytes(of: Int64(v).littleEndian) { bytes.append(contentsOf: $0) } }
    package mutating func double(_ v: Double) { int(Int(Int64(bitPattern: v.bitPattern))) }
    package mutating func text(_ s: String) {
        var s = s
        s.withUTF8 { u in
            int(u.count)
            bytes.append(contentsOf: u)
        }
    }
    /// The array's count, then its elements' bytes as they lie in memory.
    package mutating func array<T: BitwiseCopyable>(_ a: [T]) {
        int(a.count)
        a.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }
    package mutating func raw(_ b: UnsafeRawBufferPointer) {
        int(b.count)
        bytes.append(contentsOf: b)
    }
}

/// Reads what `StoreWriter` wrote, refusing every count that would read past the end.
package struct StoreReader: ~Copyable {
    private let base: UnsafeRawBufferPointer
    package private(set) var offset = 0

    /// Reads `bytes`, which the caller keeps alive while it reads.
    package init(_ bytes: UnsafeRawBufferPointer) { base = bytes }

    package var isAtEnd: Bool { offset == base.count }

    package mutating func int() throws(StoreFormatError) -> Int {
        guard base.count - offset >= 8 else { throw StoreFormatError("cut short at byte \(offset)") }
        var v: Int64 = 0
        Swift.withUnsafeMutableBytes(of: &v) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: base[offset..<(offset + 8)])) }
        offset += 8
        return Int(Int64(littleEndian: v))
    }
    /// A count of things of at least `size` bytes each, as many as the bytes left can hold
    /// (and at most `limit`).
    package mutating func count(_ what: String, size: Int = 1, limit: Int = .max) throws(StoreFormatError) -> Int {
        let n = try int()
        let most = min(limit, (base.count - offset) / size)
        guard n >= 0, n <= most else { throw StoreFormatError("\(what): \(n), not 0 to \(most)") }
        return n
    }
    package mutating func double() throws(StoreFormatError) -> Double { Double(bitPattern: UInt64(bitPattern: Int64(try int()))) }
    package mutating func text(_ what: String) throws(StoreFormatError) -> String {
        let n = try count(what)
        defer { offset += n }
        let utf8 = [UInt8](UnsafeRawBufferPointer(rebasing: base[offset..<(offset + n)]))
        guard let s = String(validating: utf8, as: UTF8.self) else {
            throw StoreFormatError("\(what) at byte \(offset) is not UTF-8")
        }
        return s
    }
    package mutating func array<T: BitwiseCopyable>(_ what: String, of: T.Type = T.self) throws(StoreFormatError) -> [T] {
        let stride = MemoryLayout<T>.stride
        let n = try count(what, size: stride)
        let start = offset
        offset += n * stride
        return [T](unsafeUninitializedCapacity: n) { buffer, initialized in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: base[start..<(start + n * stride)]))
            initialized = n
        }
    }
    /// The bytes of a `raw` run, for `body` alone.
    package mutating func raw<R>(_ what: String, _ body: (UnsafeRawBufferPointer) -> R) throws(StoreFormatError) -> R {
        let n = try count(what)
        defer { offset += n }
        return body(UnsafeRawBufferPointer(rebasing: base[offset..<(offset + n)]))
    }
}

/// A prepared store that is not one this build wrote: what is wrong, and where.
package struct StoreFormatError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

// The plain values a store holds as they lie in memory.
extension GeoBox: BitwiseCopyable {}
extension Planar: BitwiseCopyable {}
extension ECEF: BitwiseCopyable {}
extension Coordinate: BitwiseCopyable {}
extension LocalFrame: BitwiseCopyable {}
extension FenceCore: BitwiseCopyable {}
extension EdgeBlock: BitwiseCopyable {}
