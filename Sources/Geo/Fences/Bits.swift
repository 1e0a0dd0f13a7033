/// Bit tricks shared by the rasters and the points' Morton order.
enum Bits {
    /// Bit i of `v` to bit 2i, the odd bits zero: two of these, one shifted, interleave.
    @inline(__always)
    static func spread(_ v: UInt32) -> UInt64 {
        var x = UInt64(v)
        x = (x | x << 16) & 0x0000_FFFF_0000_FFFF
        x = (x | x << 8) & 0x00FF_00FF_00FF_00FF
        x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F
        x = (x | x << 2) & 0x3333_3333_3333_3333
        x = (x | x << 1) & 0x5555_5555_5555_5555
        return x
    }

    /// The indices of `keys` in ascending order of key, equal keys in the order they come: what
    /// a stable sort gives. A byte at a time from the lowest (a radix sort), skipping the bytes
    /// every key shares: the points of one region share the high bits of their Morton keys, and
    /// a comparison sort of 200,000 of them cost a sixth of a containment query.
    static func stableOrder(_ keys: [UInt64]) -> [Int32] {
        let n = keys.count
        precondition(n <= Int(Int32.max), "at most \(Int32.max) keys")
        guard n > 64 else {
            return (0..<n).map { Int32($0) }.sorted { keys[Int($0)] < keys[Int($1)] || (keys[Int($0)] == keys[Int($1)] && $0 < $1) }
        }
        let buffers = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * n * (8 + 4), alignment: 8)
        defer { buffers.deallocate() }
        var keysIn = buffers.baseAddress!.bindMemory(to: UInt64.self, capacity: 2 * n)
        var keysOut = keysIn + n
        var orderIn = (buffers.baseAddress! + 16 * n).bindMemory(to: Int32.self, capacity: 2 * n)
        var orderOut = orderIn + n
        for j in 0..<n {
            keysIn[j] = keys[j]
            orderIn[j] = Int32(truncatingIfNeeded: j)
        }
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 256) { counts in
            for shift in stride(from: UInt64(0), to: 64, by: 8) {
                counts.initialize(repeating: 0)
                for j in 0..<n { counts[Int(truncatingIfNeeded: keysIn[j] >> shift & 0xFF)] += 1 }
                if counts.contains(n) { continue }  // every key has this byte
                var start = 0
                for k in 0..<256 {
                    let c = counts[k]
                    counts[k] = start
                    start += c
                }
                for j in 0..<n {
                    let key = keysIn[j], b = Int(truncatingIfNeeded: key >> shift & 0xFF), to = counts[b]
                    counts[b] = to + 1
                    keysOut[to] = key
                    orderOut[to] = orderIn[j]
                }
                swap(&keysIn, &keysOut)
                swap(&orderIn, &orderOut)
            }
        }
        return Array(UnsafeBufferPointer(start: orderIn, count: n))
    }
}
