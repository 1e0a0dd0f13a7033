#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The rasters' words of a fence store, in pages of their own, zero until written. Zero is an
/// edge cell (`FenceCore.cellEdge`), so a store built without rasters answers every query from
/// the edges and its words cost no memory: pages never written are the kernel's shared zero
/// page. 100,000 fences' 70,000 rasters are 18 MB, which a daemon then holds only once it has
/// marked them (`FenceSet.withRasters`), not once unmarked and once marked.
///
/// Written only while the store that owns it is built, and read-only once it is shared.
public final class RasterWords: @unchecked Sendable {
    @usableFromInline let base: UnsafeMutablePointer<UInt64>
    /// The number of words.
    public let count: Int
    private let bytes: Int
    private let mapped: Bool

    /// `count` words, all zero.
    init(count: Int) {
        self.count = count
        let words = Swift.max(1, count)
        bytes = words * MemoryLayout<UInt64>.stride
        // Anonymous pages: zero, and resident only once written. malloc's own zeroing (calloc)
        // writes every page of a block it takes from its heap.
        let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        if let p, p != MAP_FAILED {
            base = p.bindMemory(to: UInt64.self, capacity: words)
            mapped = true
        } else {
            base = UnsafeMutablePointer<UInt64>.allocate(capacity: words)
            base.initialize(repeating: 0, count: words)
            mapped = false
        }
    }

    deinit {
        if mapped { munmap(base, bytes) } else { base.deallocate() }
    }

    /// The words, for the queries.
    @inlinable public var buffer: UnsafeBufferPointer<UInt64> { UnsafeBufferPointer(start: base, count: count) }

    /// Writes `words` from `offset` on, for the store's build alone (before the store is
    /// shared; threads building it at once write words apart).
    func write(_ words: [UInt64], at offset: Int) {
        precondition(offset >= 0 && offset + words.count <= count, "raster words \(offset)..<\(offset + words.count) of \(count)")
        for (k, w) in words.enumerated() { base[offset + k] = w }
    }
}

extension RasterWords: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public subscript(i: Int) -> UInt64 {
        precondition(i >= 0 && i < count, "raster word \(i) of \(count)")
        return base[i]
    }
}
