/// A sentence type as up to four ASCII letters packed into an integer, so that counting and
/// dispatch never build a String. Standard sentences use the three letters after the talker
/// (`GGA` for `$GPGGA` and `$GNGGA`); proprietary ones `P` plus the maker's three letters.
public struct SentenceType: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let code: UInt32

    @inlinable init(code: UInt32) { self.code = code }

    @inlinable
    init(_ a: UInt8, _ b: UInt8, _ c: UInt8) { code = UInt32(a) << 16 | UInt32(b) << 8 | UInt32(c) }

    @inlinable
    init(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        code = UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d)
    }

    public init?(_ name: String) {
        let u = Array(name.utf8)
        switch u.count {
        case 3: self.init(u[0], u[1], u[2])
        case 4: self.init(u[0], u[1], u[2], u[3])
        default: return nil
        }
    }

    public var description: String {
        var bytes: [UInt8] = []
        var shift: UInt32 = 24
        while true {
            let b = UInt8(truncatingIfNeeded: code >> shift)
            if b != 0 { bytes.append(b) }
            if shift == 0 { break }
            shift -= 8
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func < (a: SentenceType, b: SentenceType) -> Bool { a.description < b.description }

    @usableFromInline static let rmc = SentenceType(0x52, 0x4D, 0x43)
    @usableFromInline static let gga = SentenceType(0x47, 0x47, 0x41)
    @usableFromInline static let gll = SentenceType(0x47, 0x4C, 0x4C)
    @usableFromInline static let vtg = SentenceType(0x56, 0x54, 0x47)
    @usableFromInline static let gsa = SentenceType(0x47, 0x53, 0x41)
    @usableFromInline static let gns = SentenceType(0x47, 0x4E, 0x53)
    @usableFromInline static let zda = SentenceType(0x5A, 0x44, 0x41)
    @usableFromInline static let gst = SentenceType(0x47, 0x53, 0x54)
}
