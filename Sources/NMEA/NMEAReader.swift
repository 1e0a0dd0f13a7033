#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// Reads NMEA 0183 from bytes, in chunks of any size, and reports one `Fix` per epoch.
///
/// It never allocates per line or per sentence, never builds a String, and never crashes or
/// invents a position on garbage: binary bytes, NUL, text, over-long lines, truncated sentences,
/// CR, LF or CRLF endings and a last line without an ending are all taken in stride and counted
/// in `statistics`. A sentence is used only if its `*hh` checksum is present and right.
///
/// Pure logic: the caller does the I/O (see the `Replay` module) and hands over bytes.
///
///     var reader = NMEAReader()
///     reader.read(chunk) { fix in … }   // as often as there are chunks
///     reader.finish { fix in … }        // the last line and the last epoch
public struct NMEAReader {
    /// Longer lines are dropped and counted as `overlong`. NMEA allows 82 characters; real
    /// receivers stretch that, so this leaves room.
    public static let maxLineLength = 256

    @usableFromInline var counters = NMEAStats()
    @usableFromInline var assembler = EpochAssembler()
    /// Counts of valid sentences by type: the decoded ones in stored integers (hot path), others
    /// in a dictionary that only grows when a new type appears.
    @usableFromInline var decodedCounts = DecodedCounts()
    @usableFromInline var otherCounts: [SentenceType: Int] = [:]
    /// The last RMC date field seen and its day number.
    @usableFromInline var lastDateKey: RawKey?
    @usableFromInline var lastDateDays: Int64 = 0
    /// Bytes of a line that began in an earlier chunk.
    @usableFromInline var carry: [UInt8] = []
    @usableFromInline var carryOverlong = false

    public init() {
        carry.reserveCapacity(Self.maxLineLength + 1)
    }

    /// Everything counted so far.
    public var statistics: NMEAStats {
        var s = counters
        for (t, n) in decodedCounts.byType where n > 0 { s.sentencesByType[t] = n }
        for (t, n) in otherCounts { s.sentencesByType[t] = n }
        return s
    }

    /// Feeds the next chunk of the stream.
    public mutating func read(_ chunk: UnsafeRawBufferPointer, _ emit: (Fix) -> Void) {
        guard let raw = chunk.baseAddress, chunk.count > 0 else { return }
        let base = raw.assumingMemoryBound(to: UInt8.self)
        let end = base + chunk.count
        var p = base
        // Finish a line begun in an earlier chunk.
        if !carry.isEmpty || carryOverlong {
            let q = Self.lineEnd(p, end)
            appendCarry(p, q - p)
            if q == end { return }
            finishCarriedLine(emit)
            p = q
        }
        while p < end {
            // Skip line terminators (CR, LF, CRLF and blank lines alike).
            while p < end, p.pointee == 0x0A || p.pointee == 0x0D { p += 1 }
            if p == end { break }
            let q = Self.lineEnd(p, end)
            if q == end {
                appendCarry(p, q - p)
                break
            }
            line(p, q - p, emit)
            p = q
        }
    }

    /// The first CR or LF at or after `p`, or `end`. memchr (vectorised in libc) looks for LF in a
    /// window just over the longest line kept, then for a CR before it (CRLF, or CR-only logs), so
    /// a log without LFs costs no more than one with them.
    @inlinable
    static func lineEnd(_ p: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> UnsafePointer<UInt8> {
        var window = p
        while window < end {
            let limit = min(end - window, maxLineLength + 2)
            let lf = memchr(window, 0x0A, limit).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) }
            let stop = lf ?? window + limit
            if let cr = memchr(window, 0x0D, stop - window) { return UnsafePointer(cr.assumingMemoryBound(to: UInt8.self)) }
            if let lf { return lf }
            window = stop  // an over-long line: keep looking for its end
        }
        return end
    }

    /// Ends the stream: a last line without a line ending is still read (a truncated sentence
    /// fails its checksum), and the last epoch is reported.
    public mutating func finish(_ emit: (Fix) -> Void) {
        if !carry.isEmpty || carryOverlong { finishCarriedLine(emit) }
        assembler.flush(stats: &counters, emit)
    }

    /// Convenience for whole buffers (tests, small files).
    public mutating func readAll(_ bytes: some Sequence<UInt8>, _ emit: (Fix) -> Void) {
        let array = Array(bytes)
        array.withUnsafeBytes { read($0, emit) }
        finish(emit)
    }

    @usableFromInline
    mutating func appendCarry(_ p: UnsafePointer<UInt8>, _ n: Int) {
        if carryOverlong { return }
        if carry.count + n > Self.maxLineLength {
            carryOverlong = true
            carry.removeAll(keepingCapacity: true)
            return
        }
        carry.append(contentsOf: UnsafeBufferPointer(start: p, count: n))
    }

    @usableFromInline
    mutating func finishCarriedLine(_ emit: (Fix) -> Void) {
        if carryOverlong {
            counters.lines += 1
            counters.overlong += 1
        } else if !carry.isEmpty {
            let copy = carry  // `line` mutates self, so it reads a copy of the carried bytes
            copy.withUnsafeBufferPointer { line($0.baseAddress!, $0.count, emit) }
        }
        carry.removeAll(keepingCapacity: true)
        carryOverlong = false
    }

    /// One line without its terminator. A line may hold garbage before a sentence, or several
    /// sentences run together; each `$` or `!` starts a sentence.
    @usableFromInline
    mutating func line(_ base: UnsafePointer<UInt8>, _ count: Int, _ emit: (Fix) -> Void) {
        counters.lines += 1
        if count > Self.maxLineLength {
            counters.overlong += 1
            return
        }
        if base.pointee == UInt8(ascii: "#") {
            counters.comments += 1
            return
        }
        let end = base + count
        var p = base
        while p < end, p.pointee != UInt8(ascii: "$"), p.pointee != UInt8(ascii: "!") { p += 1 }
        if p != base {
            var q = base
            while q < p, q.pointee == 0x20 || q.pointee == 0x09 { q += 1 }
            if q != p { counters.garbage += 1 }
        }
        while p < end {
            let start = p
            p += 1
            // The body runs to '*' or to the next '$'/'!' (sentences run together) or the line end.
            // Checksum, printability and stray start marks are one branch-free pass the compiler
            // can vectorise; the rare body holding a '$' or '!' is cut there afterwards.
            var bodyEnd = memchr(p, Int32(UInt8(ascii: "*")), end - p)
                .map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) } ?? end
            var (sum, printable, marks) = Self.scanBody(p, bodyEnd)
            if marks {
                var q = p
                while q < bodyEnd, q.pointee != UInt8(ascii: "$"), q.pointee != UInt8(ascii: "!") { q += 1 }
                bodyEnd = q
                (sum, printable, _) = Self.scanBody(p, bodyEnd)
            }
            p = bodyEnd
            guard p < end, p.pointee == UInt8(ascii: "*") else {
                // No checksum: a cut-off sentence or a receiver that sends none. Not used.
                counters.missingChecksum += 1
                continue
            }
            p += 1
            guard end - p >= 2, let hi = Self.hex(p[0]), let lo = Self.hex(p[1]) else {
                counters.missingChecksum += 1
                while p < end, p.pointee != UInt8(ascii: "$"), p.pointee != UInt8(ascii: "!") { p += 1 }
                continue
            }
            p += 2
            // Only white space may follow the checksum before the next sentence or the line end.
            while p < end, p.pointee == 0x20 || p.pointee == 0x09 { p += 1 }
            var trailing = false
            if p < end, p.pointee != UInt8(ascii: "$"), p.pointee != UInt8(ascii: "!") {
                trailing = true
                while p < end, p.pointee != UInt8(ascii: "$"), p.pointee != UInt8(ascii: "!") { p += 1 }
            }
            guard printable, !trailing else {
                counters.garbage += 1
                continue
            }
            guard hi << 4 | lo == sum else {
                counters.badChecksum += 1
                continue
            }
            sentence(start, bodyEnd, emit)
        }
    }

    /// XOR of the bytes, whether all are printable ASCII, and whether any is '$' or '!'.
    @inlinable
    static func scanBody(_ p: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> (UInt8, Bool, Bool) {
        var sum: UInt8 = 0
        var low: UInt8 = 0xFF
        var high: UInt8 = 0
        var marks: UInt8 = 0
        let n = end - p
        for i in 0..<n {
            let c = p[i]
            sum ^= c
            low = min(low, c)
            high = max(high, c)
            marks |= (c == UInt8(ascii: "$") ? 1 : 0) | (c == UInt8(ascii: "!") ? 1 : 0)
        }
        return (sum, n == 0 || (low >= 0x20 && high < 0x7F), marks != 0)
    }

    @inlinable
    static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }

    /// A checksum-valid sentence from its `$`/`!` to just before `*`.
    @usableFromInline
    mutating func sentence(_ start: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>, _ emit: (Fix) -> Void) {
        var a = start + 1
        while a < end, a.pointee != UInt8(ascii: ",") { a += 1 }
        let address = start + 1
        let addressLength = a - address
        var fields = FieldCursor(start: a < end ? a + 1 : end, end: end)
        func isUpper(_ c: UInt8) -> Bool { c >= 0x41 && c <= 0x5A }
        func isUpperOrDigit(_ c: UInt8) -> Bool { isUpper(c) || (c >= 0x30 && c <= 0x39) }

        if start.pointee == UInt8(ascii: "!") || address.pointee == UInt8(ascii: "P") {
            // AIS (!AIVDM …) and proprietary ($PGRME, $PUBX, …): counted by type, not decoded.
            guard addressLength >= 4, isUpper(address[1]), isUpperOrDigit(address[2]), isUpperOrDigit(address[3]) else {
                counters.garbage += 1
                return
            }
            let t = start.pointee == UInt8(ascii: "!")
                ? SentenceType(address[addressLength - 3], address[addressLength - 2], address[addressLength - 1])
                : SentenceType(address[0], address[1], address[2], address[3])
            otherCounts[t, default: 0] += 1
            counters.skipped += 1
            return
        }
        guard addressLength == 5, isUpper(address[0]), isUpper(address[1]), isUpper(address[2]),
              isUpper(address[3]), isUpper(address[4]) else {
            counters.garbage += 1
            return
        }
        let type = SentenceType(address[2], address[3], address[4])
        let ok: Bool
        switch type {
        case .rmc: decodedCounts.rmc += 1; ok = decodeRMC(&fields, emit)
        case .gga: decodedCounts.gga += 1; ok = decodeGGA(&fields, emit)
        case .gll: decodedCounts.gll += 1; ok = decodeGLL(&fields, emit)
        case .vtg: decodedCounts.vtg += 1; ok = decodeVTG(&fields)
        case .gsa: decodedCounts.gsa += 1; ok = decodeGSA(&fields)
        case .gns: decodedCounts.gns += 1; ok = decodeGNS(&fields, emit)
        case .zda: decodedCounts.zda += 1; ok = decodeZDA(&fields, emit)
        case .gst: decodedCounts.gst += 1; ok = decodeGST(&fields, emit)
        default:
            otherCounts[type, default: 0] += 1
            counters.skipped += 1
            return
        }
        if !ok { counters.invalid += 1 }
    }
}
