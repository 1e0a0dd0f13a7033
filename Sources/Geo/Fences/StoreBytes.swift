/// A prepared store's bytes as written: numbers and flat arrays of plain values, in this machine's
/// own byte order and layout. A store is read back only by the build that wrote it (its key names
/// the version and the machine), so nothing is converted.
///
/// With a `sink`, the bytes go to it a megabyte at a time (a large array straight from its own
/// memory), so that writing 100,000 fences' store never holds a second copy of it; without one,
/// they stay in `bytes`.
package struct StoreWriter {
    package private(set) var bytes: [UInt8] = []
    private let sink: ((UnsafeRawBufferPointer) -> Void)?

    package init(sink: ((UnsafeRawBufferPointer) -> Void)? = nil) { self.sink = sink }

    package mutating func int(_ v: Int) { Swift.withUnsafeBytes(of: Int64(v).littleEndian) { append($0) } }
    package mutating func double(_ v: Double) { int(Int(Int64(bitPattern: v.bitPattern))) }
    package mutating func text(_ s: String) {
        var s = s
        s.withUTF8 { u in
            int(u.count)
            append(UnsafeRawBufferPointer(u))
        }
    }
    /// The array's count, then its elements' bytes as they lie in memory.
    package mutating func array<T: BitwiseCopyable>(_ a: [T]) {
        int(a.count)
        a.withUnsafeBytes { append($0) }
    }
    /// Raster words: their count, then their bytes.
    mutating func rasterWords(_ words: RasterWords) {
        int(words.count)
        append(UnsafeRawBufferPointer(words.buffer))
    }

    private mutating func append(_ b: UnsafeRawBufferPointer) {
        guard let sink else { return bytes.append(contentsOf: b) }
        if b.count >= 1 << 16 {
            flush()
            sink(b)
            return
        }
        bytes.append(contentsOf: b)
        if bytes.count >= 1 << 20 { flush() }
    }

    /// Hands what is held to the sink.
    package mutating func flush() {
        guard let sink, !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { sink($0) }
        bytes.removeAll(keepingCapacity: true)
    }
}

/// Reads what `StoreWriter` wrote, refusing every count that would read past the end.
///
/// The bytes come from `next`, which fills the buffer it is given with the next bytes, all of
/// them, or says false: from memory, or from a file a buffer at a time (`FenceStore`), an array's
/// bytes read straight into the array.
package struct StoreReader: ~Copyable {
    private let next: (UnsafeMutableRawBufferPointer) -> Bool
    /// How many bytes are left to read.
    package private(set) var remaining: Int
    /// How many have been read.
    package private(set) var offset = 0

    /// Reads `count` bytes from `next`.
    package init(count: Int, next: @escaping (UnsafeMutableRawBufferPointer) -> Bool) {
        remaining = count
        self.next = next
    }

    /// Reads `bytes`, which the caller keeps alive while it reads.
    package init(_ bytes: UnsafeRawBufferPointer) {
        var position = 0
        self.init(count: bytes.count) { out in
            guard let to = out.baseAddress, out.count > 0 else { return true }
            to.copyMemory(from: bytes.baseAddress! + position, byteCount: out.count)
            position += out.count
            return true
        }
    }

    package var isAtEnd: Bool { remaining == 0 }

    private mutating func read(_ out: UnsafeMutableRawBufferPointer) throws(StoreFormatError) {
        guard out.count <= remaining, next(out) else { throw StoreFormatError("cut short at byte \(offset)") }
        remaining -= out.count
        offset += out.count
    }

    package mutating func int() throws(StoreFormatError) -> Int {
        var v: Int64 = 0
        try Swift.withUnsafeMutableBytes(of: &v) { (b: UnsafeMutableRawBufferPointer) throws(StoreFormatError) in try read(b) }
        return Int(Int64(littleEndian: v))
    }
    /// A count of things of at least `size` bytes each, as many as the bytes left can hold.
    package mutating func count(_ what: String, size: Int = 1) throws(StoreFormatError) -> Int {
        let n = try int()
        let most = remaining / size
        guard n >= 0, n <= most else { throw StoreFormatError("\(what): \(n), not 0 to \(most)") }
        return n
    }
    package mutating func double() throws(StoreFormatError) -> Double { Double(bitPattern: UInt64(bitPattern: Int64(try int()))) }
    package mutating func text(_ what: String) throws(StoreFormatError) -> String {
        let at = offset
        let utf8: [UInt8] = try array(what)
        guard let s = String(validating: utf8, as: UTF8.self) else { throw StoreFormatError("\(what) at byte \(at) is not UTF-8") }
        return s
    }
    package mutating func array<T: BitwiseCopyable>(_ what: String) throws(StoreFormatError) -> [T] {
        let n = try count(what, size: MemoryLayout<T>.stride)
        var failure: StoreFormatError?
        let a = [T](unsafeUninitializedCapacity: n) { buffer, initialized in
            do throws(StoreFormatError) { try read(UnsafeMutableRawBufferPointer(buffer)) } catch { failure = error }
            initialized = failure == nil ? n : 0
        }
        if let failure { throw failure }
        return a
    }
    /// Raster words, read straight into the pages they are kept in.
    mutating func rasterWords(_ what: String) throws(StoreFormatError) -> RasterWords {
        let n = try count(what, size: MemoryLayout<UInt64>.stride)
        let words = RasterWords(count: n)
        try read(UnsafeMutableRawBufferPointer(start: words.base, count: n * MemoryLayout<UInt64>.stride))
        return words
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
