import Testing
import Web

/// A photo capture is kept only when its bytes are the picture they claim, header checked in
/// full: real tiny pictures pass, hostile and broken ones (a page behind `GIF8`, `ftyp` with a
/// bogus brand, cut headers, a PNG without IHDR) do not.
@Suite struct PhotoFormatTests {
    static func hex(_ s: String) -> [UInt8] {
        let digits = Array(s.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    static func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }

    /// CRC-32 bit by bit (not the table the server uses), for PNG chunks made here.
    static func crc(_ bytes: [UInt8]) -> Int {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = (c >> 1) ^ (c & 1 == 1 ? 0xEDB8_8320 : 0) }
        }
        return Int(~c)
    }

    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        be32(data.count) + Array(type.utf8) + data + be32(crc(Array(type.utf8) + data))
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func png(width: Int = 1, height: Int = 1, depth: UInt8 = 8, colour: UInt8 = 2, interlace: UInt8 = 0) -> [UInt8] {
        pngSignature + pngChunk("IHDR", be32(width) + be32(height) + [depth, colour, 0, 0, interlace])
            + pngChunk("IDAT", hex("789c63f8cfc0000003010100")) + pngChunk("IEND", [])
    }

    /// A 1×1 RGB PNG as Python's zlib and struct make it (`file`: PNG image data, 1 x 1, 8-bit/color RGB).
    static let realPNG = hex("""
        89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c49444154789c63f8cf
        c0000003010100c9fe92ef0000000049454e44ae426082
        """)
    /// A 1×1 progressive JPEG, JFIF (`file`: JPEG image data, JFIF standard 1.01, progressive, 1x1).
    static let realJPEG = hex("""
        ffd8ffe000104a46494600010101004800480000ffdb004300ffffffffffffffffffffffffffffffffffffffffffff
        ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff
        ffc2000b080001000101011100ffc40014100100000000000000000000000000000000ffda0008010100013f10
        """)
    /// 1×1 WebPs: lossy (VP8), lossless (VP8L), extended with alpha (VP8X).
    static let realWebPLossy = hex("52494646220000005745425056503820160000003001009d012a010001000ec0fe25a400037000000000")
    static let realWebPLossless = hex("524946461a000000574542505650384c0d0000002f00000010071011118888fe0700")
    static let realWebPExtended = hex("""
        524946464a00000057454250565038580a00000010000000000000000000414c50480c00000011071011fd0f4444ff
        03000056503820180000001401009d012a010001000000fe00000dc000fee6b5000000
        """)
    /// A 1×1 transparent GIF89a (`file`: GIF image data, version 89a, 1 x 1).
    static let realGIF = hex("47494638396101000100800000000000ffffff21f90401000000002c000000000100010000020144003b")

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(8 + payload.count) + Array(type.utf8) + payload }

    /// A HEIF file's top level as a phone writes it: `ftyp` (major brand, minor version,
    /// compatible brands), `meta` (a full box: handler `pict`), `mdat`.
    static func heif(major: String, compatible: [String], ftypSize: Int? = nil) -> [UInt8] {
        var ftyp = box("ftyp", Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) })
        if let ftypSize { ftyp.replaceSubrange(0..<4, with: be32(ftypSize)) }
        let hdlr = box("hdlr", [0, 0, 0, 0] + [0, 0, 0, 0] + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
        let meta = box("meta", [0, 0, 0, 0] + hdlr)
        return ftyp + meta + box("mdat", [0x00, 0x00, 0x00, 0x10] + [UInt8](repeating: 0xAB, count: 12))
    }

    // MARK: real pictures pass, with their type

    @Test func realTinyPicturesAreTheirFormat() {
        #expect(PhotoFormat.of(Self.realPNG) == .png)
        #expect(PhotoFormat.of(Self.png(width: 640, height: 480, depth: 16, colour: 6, interlace: 1)) == .png)
        #expect(PhotoFormat.of(Self.png(depth: 1, colour: 3)) == .png)
        #expect(PhotoFormat.of(Self.realJPEG) == .jpeg)
        #expect(PhotoFormat.of(Self.realWebPLossy) == .webp)
        #expect(PhotoFormat.of(Self.realWebPLossless) == .webp)
        #expect(PhotoFormat.of(Self.realWebPExtended) == .webp)
        #expect(PhotoFormat.of(Self.realGIF) == .gif)
        #expect(PhotoFormat.of(Self.heif(major: "heic", compatible: ["mif1", "heic", "miaf"])) == .heic)
        #expect(PhotoFormat.of(Self.heif(major: "mif1", compatible: ["heic"])) == .heic)
        #expect(PhotoFormat.of(Self.heif(major: "avif", compatible: ["mif1", "avif", "miaf", "MA1B"])) == .avif)
    }

    @Test func eachFormatHasItsOwnTypeAndExtension() {
        #expect(PhotoFormat.allCases.map(\.contentType) == ["image/jpeg", "image/png", "image/webp", "image/heic", "image/avif", "image/gif"])
        #expect(PhotoFormat.allCases.map(\.fileExtension) == ["jpg", "png", "webp", "heic", "avif", "gif"])
        #expect(PhotoFormat(fileExtension: "html") == nil)
        #expect(PhotoFormat.check(Self.realGIF, are: .gif))
        #expect(!PhotoFormat.check(Self.realGIF, are: .png))
    }

    /// A JPEG with an EXIF segment, a quantisation table and a baseline frame 4032×3024 of 3
    /// components, then the Huffman tables and the scan.
    @Test func aCameraLikeJPEG() {
        let exif: [UInt8] = [0xFF, 0xE1, 0x00, 0x10] + Array("Exif\0\0".utf8) + [UInt8](repeating: 0, count: 8)
        let dqt: [UInt8] = [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
        let sof: [UInt8] = [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x0B, 0xD0, 0x0F, 0xC0, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        let jpeg: [UInt8] = [0xFF, 0xD8] + exif + dqt + sof + [0xFF, 0xC4, 0x00, 0x02, 0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xD9]
        #expect(PhotoFormat.of(jpeg) == .jpeg)
        // With fill bytes before a marker.
        #expect(PhotoFormat.of([0xFF, 0xD8, 0xFF, 0xFF] + Array(exif.dropFirst()) + sof) == .jpeg)
    }

    // MARK: hostile and broken ones are refused

    @Test func aPageBehindAPictureSignatureIsNotAPicture() {
        let page = Array("<html><script>fetch('/api',{method:'POST',body:'{}'})</script></html>".utf8)
        #expect(PhotoFormat.of(Array("GIF8".utf8) + page) == nil)
        #expect(PhotoFormat.of(Array("GIF89a".utf8) + [0, 0, 0, 0, 0, 0, 0] + page) == nil)  // 0×0 screen
        #expect(PhotoFormat.of(Array("GIF87a".utf8) + [1, 0, 1, 0, 0, 0, 0] + page) == nil)  // no image, extension or end after it
        #expect(PhotoFormat.of([0xFF, 0xD8, 0xFF] + page) == nil)
        #expect(PhotoFormat.of(Self.pngSignature + page) == nil)
        #expect(PhotoFormat.of(Array("RIFF".utf8) + Self.le32(4 + page.count) + Array("WEBP".utf8) + page) == nil)
        #expect(PhotoFormat.of([0, 0, 0, 24] + Array("ftyp".utf8) + page) == nil)
        #expect(PhotoFormat.of(page) == nil)
        #expect(PhotoFormat.of([]) == nil)
    }

    @Test func anFtypBoxWithoutAStillImageBrandIsNotHEIF() {
        #expect(PhotoFormat.of(Self.heif(major: "html", compatible: ["html"])) == nil)
        #expect(PhotoFormat.of(Self.heif(major: "isom", compatible: ["isom", "mp41"])) == nil)  // an MP4
        #expect(PhotoFormat.of(Self.heif(major: "mif1", compatible: ["mif1", "miaf"])) == nil)  // HEIF, coding unknown
        #expect(PhotoFormat.of(Self.heif(major: "msf1", compatible: ["hevc"])) == nil)  // a sequence
        #expect(PhotoFormat.of(Self.heif(major: "he\u{1}c", compatible: ["heic"])) == nil)  // an unprintable brand
    }

    @Test func aHEIFWhoseBoxesDoNotAddUpIsRefused() {
        let good = Self.heif(major: "heic", compatible: ["mif1", "heic"])
        #expect(PhotoFormat.of(Self.heif(major: "heic", compatible: ["heic"], ftypSize: 8)) == nil)  // below its own fields
        #expect(PhotoFormat.of(Self.heif(major: "heic", compatible: ["heic"], ftypSize: 1 << 20)) == nil)  // past the file
        #expect(PhotoFormat.of(Self.heif(major: "heic", compatible: ["heic"], ftypSize: 23)) == nil)  // not whole brands
        #expect(PhotoFormat.of(Array(good.dropLast(3))) == nil)  // the last box cut short
        let ftyp = Self.box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("heic".utf8))
        #expect(PhotoFormat.of(ftyp + Self.box("mdat", [1, 2, 3])) == nil)  // no meta
        #expect(PhotoFormat.of(ftyp + Self.box("meta", [0, 0, 0, 0]) + Array("<html>".utf8)) == nil)  // a page after the boxes
    }

    @Test func aPNGWithoutItsIHDRIsRefused() {
        #expect(PhotoFormat.of(Self.pngSignature + [UInt8](repeating: 0, count: 64)) == nil)
        #expect(PhotoFormat.of(Self.pngSignature + Self.pngChunk("IDAT", [1, 2, 3]) + Self.pngChunk("IEND", [])) == nil)
        #expect(PhotoFormat.of(Self.pngSignature + Self.pngChunk("IHDR", Self.be32(1) + Self.be32(1) + [8, 2, 0, 0])) == nil)  // length 12
    }

    @Test func aPNGWithABadHeaderIsRefused() {
        #expect(PhotoFormat.of(Self.png(width: 0)) == nil)
        #expect(PhotoFormat.of(Self.png(height: 0)) == nil)
        #expect(PhotoFormat.of(Self.png(width: 1 << 31)) == nil)
        #expect(PhotoFormat.of(Self.png(depth: 4, colour: 2)) == nil)  // RGB is 8 or 16 bits
        #expect(PhotoFormat.of(Self.png(depth: 16, colour: 3)) == nil)  // a palette is at most 8
        #expect(PhotoFormat.of(Self.png(colour: 5)) == nil)
        #expect(PhotoFormat.of(Self.png(interlace: 2)) == nil)
        var badCRC = Self.realPNG
        badCRC[29] ^= 0xFF
        #expect(PhotoFormat.of(badCRC) == nil)
    }

    @Test func aJPEGWithoutAFrameOrWithABadOneIsRefused() {
        let sof: [UInt8] = [0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x01, 0x00, 0x01, 0x01, 1, 0x11, 0]
        #expect(PhotoFormat.of([0xFF, 0xD8] + sof) == .jpeg)
        #expect(PhotoFormat.of([0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02] + sof) == nil)  // a scan before the frame
        #expect(PhotoFormat.of([0xFF, 0xD8, 0xFF, 0xD9]) == nil)  // the end at once
        #expect(PhotoFormat.of([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A]) == nil)  // a segment past the end
        #expect(PhotoFormat.of([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01] + sof) == nil)  // a length below 2
        #expect(PhotoFormat.of([0xFF, 0xD8, 0xFF, 0xC4, 0x00, 0x02]) == nil)  // tables, no frame
        for (k, value) in [(5, 0x00), (7, 0x00), (9, 0x05), (4, 0x00), (4, 0x11)] {
            var bad = [0xFF, 0xD8] + sof
            bad[2 + k] = UInt8(value)
            bad[2 + k + (k == 5 || k == 7 ? 1 : 0)] = UInt8(value)
            #expect(PhotoFormat.of(bad) == nil, "SOF byte \(k) = \(value)")  // 0 high or wide, 5 components, precision 0 or 17
        }
        #expect(PhotoFormat.of(Array(Self.realJPEG.prefix(100))) == nil)  // cut inside the tables
        #expect(PhotoFormat.of([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x01]) == nil)  // cut inside the frame
    }

    @Test func aWebPWhoseSizesOrChunkAreWrongIsRefused() {
        var longer = Self.realWebPLossy
        longer += [0, 0]  // the RIFF size no longer the file's
        #expect(PhotoFormat.of(longer) == nil)
        #expect(PhotoFormat.of(Array(Self.realWebPLossy.dropLast(2))) == nil)
        var noStartCode = Self.realWebPLossy
        noStartCode[23] = 0x00
        #expect(PhotoFormat.of(noStartCode) == nil)
        var interFrame = Self.realWebPLossy
        interFrame[20] |= 1
        #expect(PhotoFormat.of(interFrame) == nil)
        var badSignature = Self.realWebPLossless
        badSignature[20] = 0x2E
        #expect(PhotoFormat.of(badSignature) == nil)
        var otherChunk = Self.realWebPLossy
        otherChunk.replaceSubrange(12..<16, with: Array("HTML".utf8))
        #expect(PhotoFormat.of(otherChunk) == nil)
        var chunkPastEnd = Self.realWebPLossy
        chunkPastEnd.replaceSubrange(16..<20, with: Self.le32(1000))
        #expect(PhotoFormat.of(chunkPastEnd) == nil)
    }

    @Test func aGIFWithABadScreenOrTableIsRefused() {
        var noWidth = Self.realGIF
        noWidth[6] = 0
        #expect(PhotoFormat.of(noWidth) == nil)
        var version = Self.realGIF
        version[4] = UInt8(ascii: "8")
        #expect(PhotoFormat.of(version) == nil)  // GIF88a
        #expect(PhotoFormat.of(Array(Self.realGIF.prefix(15))) == nil)  // cut inside the colour table
        var bigTable = Self.realGIF
        bigTable[10] = 0x87  // a table of 256 colours, past the end
        #expect(PhotoFormat.of(bigTable) == nil)
    }

    @Test func truncatedHeadersAreRefused() {
        for real in [Self.realPNG, Self.realJPEG, Self.realWebPLossy, Self.realWebPLossless, Self.realWebPExtended, Self.realGIF] {
            for n in [1, 3, 4, 8, 12, 13, 16, 20] where n < real.count {
                #expect(PhotoFormat.of(Array(real.prefix(n))) == nil, "\(n) bytes of \(real.prefix(4))")
            }
        }
    }
}
