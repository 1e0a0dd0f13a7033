/// The picture formats a photo capture may be, each recognised by its header checked in full,
/// not by a few magic bytes: a file that only starts like a picture (a page behind `GIF8`, a box
/// named `ftyp` with any brand) is not one. The format decides the file's extension and the
/// Content-Type it is served with; nothing the client says does. Pure: bytes in, a verdict out.
public enum PhotoFormat: String, CaseIterable, Sendable {
    case jpeg = "jpg"
    case png
    case webp
    case heic
    case avif
    case gif

    /// The extension of the file the server writes.
    public var fileExtension: String { rawValue }

    /// The only Content-Type the file is ever served with.
    public var contentType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .avif: "image/avif"
        case .gif: "image/gif"
        }
    }

    /// What is accepted, for the refusal's message.
    public static let accepted = "JPEG, PNG, WebP, HEIC, AVIF (still images) or GIF"

    public init?(fileExtension: some StringProtocol) {
        self.init(rawValue: String(fileExtension))
    }

    /// The format `bytes` are, when their header is that format's, whole and consistent.
    public static func of(_ bytes: [UInt8]) -> PhotoFormat? {
        let b = Bytes(bytes)
        if isJPEG(b) { return .jpeg }
        if isPNG(b) { return .png }
        if isWebP(b) { return .webp }
        if isGIF(b) { return .gif }
        return heif(b)
    }

    /// Whether `bytes` are a `format`: what the server checks again before serving a file.
    public static func check(_ bytes: [UInt8], are format: PhotoFormat) -> Bool {
        of(bytes) == format
    }

    // MARK: JPEG

    /// SOI, then marker segments each with a length inside the file (application data, tables,
    /// restart interval, comments), up to a start-of-frame SOF0–SOF15 (not DHT C4, JPG C8, DAC CC)
    /// with a precision of 2–16 bits, a height and width above 0 and 1–4 components whose
    /// descriptions fill the segment exactly.
    static func isJPEG(_ b: Bytes) -> Bool {
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return false }
        var p = 2
        while p < b.count {
            guard b[p] == 0xFF else { return false }
            // Fill bytes: any number of 0xFF before a marker.
            while p < b.count && b[p] == 0xFF { p += 1 }
            guard p < b.count else { return false }
            let marker = b[p]
            p += 1
            guard let length = b.u16be(p), length >= 2, p + length <= b.count else { return false }
            switch marker {
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                guard length >= 8, let height = b.u16be(p + 3), let width = b.u16be(p + 5) else { return false }
                let precision = b[p + 2], components = Int(b[p + 7])
                return (2...16).contains(precision) && height > 0 && width > 0 && (1...4).contains(components)
                    && length == 8 + 3 * components
            case 0xE0...0xEF, 0xDB, 0xC4, 0xCC, 0xDD, 0xFE:
                p += length  // APPn, DQT, DHT, DAC, DRI, COM: skipped
            default:
                return false  // a scan, an end, a restart or anything else before a frame
            }
        }
        return false
    }

    // MARK: PNG

    /// The signature, then IHDR first: length 13, width and height in 1…2³¹−1, a bit depth the
    /// colour type allows, compression and filter 0, interlace 0 or 1, and its CRC right.
    static func isPNG(_ b: Bytes) -> Bool {
        guard b.count >= 33, b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
              b.u32be(8) == 13, b.starts(with: Array("IHDR".utf8), at: 12),
              let width = b.u32be(16), let height = b.u32be(20), let crc = b.u32be(29) else { return false }
        guard (1...0x7FFF_FFFF).contains(width), (1...0x7FFF_FFFF).contains(height) else { return false }
        let depth = b[24], colour = b[25]
        let depths: [UInt8]
        switch colour {
        case 0: depths = [1, 2, 4, 8, 16]
        case 3: depths = [1, 2, 4, 8]
        case 2, 4, 6: depths = [8, 16]
        default: return false
        }
        return depths.contains(depth) && b[26] == 0 && b[27] == 0 && b[28] <= 1 && CRC32.of(b, 12..<29) == crc
    }

    // MARK: WebP

    /// `RIFF`, a size that is the file's less 8, `WEBP`, then a first chunk inside it: `VP8 `
    /// (a key frame shown, version 0–3, the start code 9D 01 2A, width and height above 0),
    /// `VP8L` (signature 0x2F, version 0) or `VP8X` (10 bytes, a canvas of at most 2³² pixels).
    static func isWebP(_ b: Bytes) -> Bool {
        guard b.count >= 20, b.starts(with: Array("RIFF".utf8)), b.starts(with: Array("WEBP".utf8), at: 8),
              let riff = b.u32le(4), riff + 8 == b.count, let size = b.u32le(16), 20 + size <= b.count else { return false }
        let d = 20
        if b.starts(with: Array("VP8 ".utf8), at: 12) {
            guard size >= 10 else { return false }
            let tag = b[d]
            guard tag & 1 == 0, tag & 0x10 != 0, b[d + 3] == 0x9D, b[d + 4] == 0x01, b[d + 5] == 0x2A,
                  let w = b.u16le(d + 6), let h = b.u16le(d + 8) else { return false }
            return w & 0x3FFF > 0 && h & 0x3FFF > 0
        }
        if b.starts(with: Array("VP8L".utf8), at: 12) {
            guard size >= 5, b[d] == 0x2F, let bits = b.u32le(d + 1) else { return false }
            return bits >> 29 == 0  // version 0 (width and height are stored less one: never 0)
        }
        if b.starts(with: Array("VP8X".utf8), at: 12) {
            guard size == 10, let w = b.u24le(d + 4), let h = b.u24le(d + 7) else { return false }
            return (w + 1) * (h + 1) <= 0xFFFF_FFFF
        }
        return false
    }

    // MARK: GIF

    /// `GIF87a` or `GIF89a`, a logical screen of width and height above 0 and its global
    /// colour table (when the flag says so), then blocks up to the trailer, each whole inside
    /// the file: extensions (a label and data sub-blocks), and at least one image (its
    /// descriptor, its local colour table, an LZW code size of 2–8 and data sub-blocks).
    static func isGIF(_ b: Bytes) -> Bool {
        guard b.count >= 14, b.starts(with: Array("GIF87a".utf8)) || b.starts(with: Array("GIF89a".utf8)),
              let w = b.u16le(6), let h = b.u16le(8), w > 0, h > 0 else { return false }
        func table(_ flags: UInt8) -> Int { flags & 0x80 != 0 ? 3 << (Int(flags & 0x07) + 1) : 0 }
        /// Past data sub-blocks from `p` (each a length byte, the last 0); nil: past the end.
        func subBlocks(_ p: Int) -> Int? {
            var p = p
            while p < b.count {
                let n = Int(b[p])
                p += 1 + n
                if n == 0 { return p }
            }
            return nil
        }
        var p = 13 + table(b[10]), images = 0
        while p < b.count {
            switch b[p] {
            case 0x3B:
                return images > 0
            case 0x21:
                guard p + 2 < b.count, let next = subBlocks(p + 2) else { return false }
                p = next
            case 0x2C:
                guard p + 10 < b.count else { return false }
                let codeSize = p + 10 + table(b[p + 9])
                guard codeSize < b.count, (2...8).contains(b[codeSize]), let next = subBlocks(codeSize + 1) else { return false }
                images += 1
                p = next
            default:
                return false
            }
        }
        return false
    }

    // MARK: HEIF: HEIC and AVIF

    /// Still-image brands of HEIF (ISO/IEC 23008-12, and AV1's AVIF): HEVC-coded (`heic`,
    /// `heix`, and the layered `heim`, `heis`), or AV1-coded (`avif`). `mif1` alone says only
    /// that the file is HEIF, not how its image is coded; sequences (`msf1`, `hevc`, `hevx`,
    /// `avis`) are not photos.
    static let heicBrands: Set<String> = ["heic", "heix", "heim", "heis"]
    static let avifBrands: Set<String> = ["avif"]

    /// An `ftyp` box first, of 16 to 256 bytes with whole brands, printable, among which a
    /// still-image brand; then top-level boxes (each a printable type and a size inside the
    /// file, the last possibly "to the end") that fill the file exactly, a `meta` among them.
    static func heif(_ b: Bytes) -> PhotoFormat? {
        guard b.count >= 16, let size = b.u32be(0), b.starts(with: Array("ftyp".utf8), at: 4),
              (16...256).contains(size), size % 4 == 0, size <= b.count else { return nil }
        var brands: [String] = []
        for at in stride(from: 8, to: size, by: 4) where at != 12 {  // 12: the minor version
            let brand = b[at..<(at + 4)]
            guard brand.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
            brands.append(String(decoding: brand, as: UTF8.self))
        }
        let format: PhotoFormat
        if brands.contains(where: heicBrands.contains) {
            format = .heic
        } else if brands.contains(where: avifBrands.contains) {
            format = .avif
        } else {
            return nil
        }
        var p = size, meta = false
        while p < b.count {
            guard var box = b.u32be(p), p + 8 <= b.count else { return nil }
            let type = b[(p + 4)..<(p + 8)]
            guard type.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
            if box == 0 { box = b.count - p }  // the last box, to the end of the file
            if box == 1 {
                guard let high = b.u32be(p + 8), let low = b.u32be(p + 12), high == 0 else { return nil }
                box = low
                guard box >= 16 else { return nil }
            }
            guard box >= 8, p + box <= b.count else { return nil }
            if type.elementsEqual("meta".utf8) { meta = true }
            p += box
        }
        return meta ? format : nil
    }
}

/// Bytes read at an offset, nil past the end: no index of the checks can trap.
struct Bytes {
    let a: [UInt8]
    init(_ a: [UInt8]) { self.a = a }
    var count: Int { a.count }
    subscript(_ i: Int) -> UInt8 { i < a.count ? a[i] : 0 }
    subscript(_ r: Range<Int>) -> ArraySlice<UInt8> { a[min(r.lowerBound, a.count)..<min(r.upperBound, a.count)] }
    func starts(with prefix: [UInt8], at offset: Int = 0) -> Bool {
        offset + prefix.count <= a.count && a[offset..<(offset + prefix.count)].elementsEqual(prefix)
    }
    func u16be(_ i: Int) -> Int? { i + 2 <= a.count ? Int(a[i]) << 8 | Int(a[i + 1]) : nil }
    func u16le(_ i: Int) -> Int? { i + 2 <= a.count ? Int(a[i + 1]) << 8 | Int(a[i]) : nil }
    func u24le(_ i: Int) -> Int? { i + 3 <= a.count ? Int(a[i + 2]) << 16 | Int(a[i + 1]) << 8 | Int(a[i]) : nil }
    func u32be(_ i: Int) -> Int? { i + 4 <= a.count ? Int(a[i]) << 24 | Int(a[i + 1]) << 16 | Int(a[i + 2]) << 8 | Int(a[i + 3]) : nil }
    func u32le(_ i: Int) -> Int? { i + 4 <= a.count ? Int(a[i + 3]) << 24 | Int(a[i + 2]) << 16 | Int(a[i + 1]) << 8 | Int(a[i]) : nil }
}

/// PNG's CRC-32 (ISO 3309, the zlib one).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func of(_ b: Bytes, _ range: Range<Int>) -> Int {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in b[range] { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return Int(c ^ 0xFFFF_FFFF)
    }
}
