import Geo
import NMEA
import Testing
import TestSupport

/// Fields that fuzzing found mis-read: signs on quantities that have none, and decimals of more
/// than 18 digits.
@Suite struct HostileFields {
    /// The four lines that stopped `treeline replay --regions` with SIGILL: GGA's HDOP of -99.9
    /// made a negative error. The GGAs are refused (invalid), the RMCs still give the fixes.
    @Test func aNegativeHDOPIsRefusedAtTheDecoder() {
        let log = HostileInput.negativeHDOP
        let (fixes, stats) = replay(log)
        #expect(stats.invalid == 2, "both GGAs")
        #expect(fixes.count == 2)
        #expect(fixes.allSatisfy { $0.hdop == nil && $0.coordinate != nil })
    }

    @Test func signedDOPsSigmasAndSpeedsAreInvalid() {
        let cases = [
            "GPGSA,A,3,01,02,03,04,,,,,,,,,-1.6,0.9,1.3",
            "GPGSA,A,3,01,02,03,04,,,,,,,,,1.6,-0.9,1.3",
            "GPGSA,A,3,01,02,03,04,,,,,,,,,1.6,0.9,+1.3",
            "GPGST,120000.00,1.2,2.0,1.5,30.0,-1.8,1.4,2.5",
            "GPGST,120000.00,1.2,2.0,1.5,30.0,1.8,-1.4,2.5",
            "GPRMC,120000.00,A,3842.0000,N,00908.4000,W,-5.0,90.0,140325,,,A",
            "GPVTG,90.0,T,,M,-2.000,N,3.704,K,A",
            "GPVTG,90.0,T,,M,,N,-3.704,K,A",
            "GPGNS,120000.00,3842.0000,N,00908.4000,W,AA,09,-0.9,41.5,50.1,,",
        ]
        for body in cases {
            let opening = sentence("GPGGA,120000.00,3842.0000,N,00908.4000,W,1,09,0.9,41.5,M,50.1,M,,")
            let (fixes, stats) = replay(opening + sentence(body))
            #expect(stats.invalid == 1, "\(body)")
            #expect(fixes.allSatisfy { ($0.hdop ?? 0) >= 0 && ($0.speed ?? 0) >= 0 && ($0.horizontalError ?? 0) >= 0 && ($0.pdop ?? 0) >= 0 }, "\(body)")
        }
    }

    @Test func aDecimalOfMoreThan18DigitsKeepsItsScale() {
        let (fixes, stats) = replay(
            sentence("GPGGA,120000.00,3842.0000,N,00908.4000,W,1,09,0.01234567890123456789,41.5,M,50.1,M,,")
            + sentence("GPGST,120000.00,1.2,2.0,1.5,30.0,0.000000123000000000000,0.00000012300000000000000,2.5")
            + sentence("GPRMC,120000.00,A,3842.0000,N,00908.4000,W,0.000000000000000000001,90.0,140325,,,A"))
        #expect(stats.invalid == 0)
        #expect(fixes.count == 1)
        #expect(fixes.first?.hdop == 0.01234567890123456789, "was 0.1234…: scaled by 10¹⁸ instead of 10¹⁹")
        #expect(fixes.first?.horizontalError == (2 * 1.23e-7 * 1.23e-7).squareRoot(), "was 0.175")
        #expect(fixes.first?.speed == 1e-21 * 1852 / 3600)
    }
}

extension HostileFields {
    /// Found by the fields fuzzer: 17 digits above 2⁵³ were rounded twice (to a Double, then by
    /// the division) and came out one ulp off.
    @Test func seventeenDigitsAbove2To53AreCorrectlyRounded() {
        let (fixes, _) = replay(sentence("GPGGA,120000.00,3842.0000,N,00908.4000,W,1,09,0.9,5634.1483960306202,M,50.1,M,,"))
        #expect(fixes.first?.altitudeMSL == 5634.1483960306205)
    }
}
