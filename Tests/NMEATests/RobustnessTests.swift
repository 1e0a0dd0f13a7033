import Foundation
import Geo
import NMEA
import TestSupport
import Testing

@Suite struct Robustness {
    @Test func badChecksumIsNeverUsedAndCounted() {
        var text = sentence("GPRMC,120000.00,A,3842.0000,N,00908.4000,W,0,0,140325,,,A")
        text = text.replacingOccurrences(of: "3842.0000", with: "3843.0000")  // body changed, sum kept
        let (fixes, stats) = replay(text)
        #expect(fixes.isEmpty)
        #expect(stats.badChecksum == 1)
    }

    @Test func missingChecksumIsNeverUsedAndCounted() {
        let (fixes, stats) = replay("$GPRMC,120000.00,A,3842.0000,N,00908.4000,W,0,0,140325,,,A\r\n$GPGGA,120000.00,3842.0000,N,00908.4000,W,1,09,0.9,41.5,M,50.1,M,,*\r\n")
        #expect(fixes.isEmpty)
        #expect(stats.missingChecksum == 2)
    }

    @Test func lowercaseHexChecksumIsAccepted() {
        let s = sentence("GPRMC,120000.00,A,3842.0000,N,00908.4000,W,0.5,0,140325,,,A")  // checksum 5D
        let star = s.firstIndex(of: "*")!
        let hex = s[s.index(after: star)...].prefix(2)
        #expect(hex.contains { $0.isLetter }, "the checksum must have a letter for this test to mean anything")
        let lower = String(s[...star]) + hex.lowercased() + "\r\n"
        #expect(replay(lower).0 == replay(s).0)
        #expect(replay(lower).0.count == 1)
    }

    @Test func unknownAndProprietaryAreSkippedAndCounted() {
        let text = sentence("PGRME,15.0,M,45.0,M,25.0,M") + sentence("GPGSV,1,1,01,01,40,083,46")
            + sentence("GPXYZ,1,2,3") + sentence("PUBX,00,1,2") + "!AIVDM,1,1,,A,13aEOK?P00PD2wVMdLDRhgvL289?,0*26\r\n"
        let (fixes, stats) = replay(text)
        #expect(fixes.isEmpty)
        #expect(stats.skipped == 5)
        #expect(count(stats, "PGRM") == 1 && count(stats, "GSV") == 1 && count(stats, "XYZ") == 1 && count(stats, "PUBX") == 1 && count(stats, "VDM") == 1)
    }

    @Test func lineEndingsGiveTheSameFixes() {
        let lf = walk.replacingOccurrences(of: "\r\n", with: "\n")
        let cr = walk.replacingOccurrences(of: "\r\n", with: "\r")
        let mixed = walk.replacingOccurrences(of: "\r\n", with: "\n\r\n\r")
        let reference = replay(walk).0
        #expect(reference.count == 2)
        for text in [lf, cr, mixed] {
            #expect(replay(text).0 == reference)
        }
    }

    @Test func anyChunkingGivesTheSameFixes() {
        let bytes = Array(walk.utf8)
        let reference = replay(bytes)
        for sizes in [[1], [2, 3], [7], [64], [13, 1, 200]] {
            let (fixes, stats) = replayChunked(bytes, sizes: sizes)
            #expect(fixes == reference.0)
            #expect(stats == reference.1)
        }
    }

    @Test func truncatedLastLineIsNotUsed() {
        let cut = Array(walk.utf8.dropLast(30))  // the last GST loses its checksum
        let (fixes, stats) = replay(cut)
        #expect(fixes.count == 2)
        #expect(fixes[1].horizontalError == nil)
        #expect(stats.missingChecksum == 1)
    }

    @Test func lastLineWithoutEndingIsRead() {
        let bytes = Array(walk.utf8.dropLast(2))  // bytes: "\r\n" is one Character
        #expect(bytes.last != 0x0A && bytes.last != 0x0D)
        let (fixes, _) = replay(bytes)
        #expect(fixes.count == 2)
        #expect(fixes[1].horizontalError != nil)
    }

    @Test func overlongLinesAreDroppedAndCounted() {
        let long = String(repeating: "A", count: 5000)
        let text = long + "\r\n" + walk + "$GPRMC," + String(repeating: "9", count: 300) + "*00\r\n"
        let (fixes, stats) = replay(text)
        #expect(fixes.count == 2)
        #expect(stats.overlong == 2)
        // Also when the long line arrives in pieces.
        let (chunked, chunkedStats) = replayChunked(Array(text.utf8), sizes: [100])
        #expect(chunked == fixes)
        #expect(chunkedStats.overlong == 2)
    }

    @Test func garbageBeforeASentenceAndSentencesRunTogether() {
        let a = sentence("GPRMC,120000.00,A,3842.0000,N,00908.4000,W,0,0,140325,,,A", ending: "")
        let b = sentence("GPGGA,120000.00,3842.0000,N,00908.4000,W,1,09,0.9,41.5,M,50.1,M,,")
        let (fixes, stats) = replay("xx\u{1}\u{7f}junk" + a + b)
        #expect(fixes.count == 1)
        #expect(fixes[0].altitudeMSL == 41.5, "both sentences were used")
        #expect(stats.garbage == 1)
    }

    @Test func nulAndBinaryBytesInsideASentenceAreGarbage() {
        var bytes = Array(sentence("GPRMC,120000.00,A,3842.0000,N,00908.4000,W,0,0,140325,,,A").utf8)
        bytes[20] = 0
        let (fixes, stats) = replay(bytes)
        #expect(fixes.isEmpty)
        #expect(stats.garbage + stats.badChecksum == 1)
    }

    @Test func outOfRangeFieldsMakeASentenceInvalid() {
        let text = [
            "GPRMC,120000.00,A,9100.0000,N,00908.4000,W,0,0,140325,,,A",  // 91°
            "GPRMC,120000.00,A,3860.0000,N,00908.4000,W,0,0,140325,,,A",  // 60 minutes
            "GPRMC,250000.00,A,3842.0000,N,00908.4000,W,0,0,140325,,,A",  // hour 25
            "GPRMC,120000.00,A,3842.0000,N,00908.4000,W,0,0,320125,,,A",  // 32 January
            "GPRMC,120000.00,A,3842.0000,X,00908.4000,W,0,0,140325,,,A",  // hemisphere X
            "GPRMC,120000.00,A,38x2.0000,N,00908.4000,W,0,0,140325,,,A",  // not a number
            "GPGGA,120000.00,3842.0000,N,18100.0000,E,1,09,0.9,41.5,M,,M,,",  // 181°
        ].map { sentence($0) }.joined()
        let (fixes, stats) = replay(text)
        #expect(fixes.isEmpty)
        #expect(stats.invalid == 7)
    }

    /// Random bytes, random NMEA-like text and valid sentences with random damage: never a crash,
    /// and every position reported is one that a valid sentence of the input gave.
    @Test func fuzzNeverInventsAPosition() {
        var rng = SplitMix64(seed: 2026)
        let valid = Array(walk.utf8)
        let alphabet = Array("$GPRMCGAVTGSTZD,*.0123456789ABCDEFNSEW\r\n!".utf8)
        let truth = Set(replay(walk).0.compactMap { $0.coordinate })
        for round in 0..<300 {
            var bytes: [UInt8] = []
            for _ in 0..<(Int(rng.next() % 40) + 1) {
                switch rng.next() % 4 {
                case 0: bytes += (0..<Int(rng.next() % 200)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                case 1: bytes += (0..<Int(rng.next() % 200)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
                case 2:
                    var v = valid
                    for _ in 0..<Int(rng.next() % 4) { v[Int(rng.next() % UInt64(v.count))] = UInt8(truncatingIfNeeded: rng.next()) }
                    bytes += v
                default: bytes += valid
                }
            }
            let (fixes, _) = replayChunked(bytes, sizes: [Int(rng.next() % 300) + 1])
            for f in fixes {
                if let c = f.coordinate {
                    #expect(truth.contains(c), "round \(round): position \(c) is not from a valid sentence")
                    #expect(c.latitude != 0 || c.longitude != 0)
                }
            }
        }
    }
}

@Suite struct EpochPositions {
    @Test func sentencesOfOneEpochAgreeingWithinOneMetreRefine() throws {
        // RMC and GGA of one epoch, 7 cm apart (different rounding): the later one wins.
        let text = sentence("GPRMC,123434.000,A,5356.21440,N,02734.85946,E,0,0,290508,,,A")
            + sentence("GPGGA,123434.000,5356.21444,N,02734.85947,E,1,04,07.2,251.9,M,26.0,M,,")
        let c = try #require(replay(text).0.first?.coordinate)
        #expect(abs(c.latitude - (53 + 56.21444 / 60)) < 1e-12)
    }

    @Test func theMajorityPlaceWinsWhenOneSentenceIsMislabelled() throws {
        // A multiplexer stamps RMC a second late: RMC(t) holds the place of t-1.
        let text = sentence("GPRMC,094737,A,5251.0093,N,00518.8170,E,5.6,230.5,200818,1.4,E,A")
            + sentence("GPGGA,094737,5251.0085,N,00518.8151,E,1,12,0.60,-4,M,46.8,M,,")
            + sentence("GPGLL,5251.0084,N,00518.8149,E,094737,A,A")
        let c = try #require(replay(text).0.first?.coordinate)
        #expect(abs(c.latitude - (52 + 51.0084 / 60)) < 1e-12, "GGA and GLL agree; the RMC is the odd one out")
    }
}

@Suite struct CorruptDatesAndTimes {
    @Test func aZDAYearBeyondTheGPSEraIsInvalidNotACrash() {
        let text = sentence("GPZDA,120000.00,01,01,9999,00,00") + sentence("GPGGA,120000.00,1000.0,N,01000.0,E,1,05,1.0,10.0,M,,M,,")
        let (fixes, stats) = replay(text)
        #expect(stats.invalid == 1)
        #expect(fixes.count == 1 && fixes[0].time == nil)
    }

    @Test func aSixteenByteTimeFieldIsNotTakenForTheOpenEpochs() {
        let text = sentence("GPRMC,123519.12345678,A,1000.0,N,01000.0,E,0,0,010120,,,A")
            + sentence("GPGGA,123519.12345678(,1000.5,N,01000.0,E,1,05,1.0,10.0,M,,M,,")
        let (fixes, stats) = replay(text)
        #expect(stats.invalid == 1)
        #expect(fixes.count == 1 && fixes[0].altitudeMSL == nil)
    }
}
