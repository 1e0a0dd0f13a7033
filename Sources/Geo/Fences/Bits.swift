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
}
