import Geo
import NMEA
import Testing

@Suite struct Decoders {
    @Test func epochOfFiveSentencesIsOneFixWithEveryField() throws {
        let (fixes, stats) = replay(walk)
        #expect(fixes.count == 2)
        let f = fixes[0]
        #expect(f.time?.iso8601 == "2025-03-14T12:00:00.000Z")
        #expect(f.mode == .threeD)
        let c = try #require(f.coordinate)
        #expect(abs(c.latitude - 38.7) < 1e-12)
        #expect(abs(c.longitude - (-9.14)) < 1e-12)
        #expect(f.altitudeMSL == 41.5)
        #expect(abs(f.speed! - 2.0 * 1852 / 3600) < 1e-12)
        #expect(f.course == 90.0)
        #expect(abs(f.horizontalError! - (1.8 * 1.8 + 1.4 * 1.4).squareRoot()) < 1e-12)
        #expect(f.hdop == 0.9)
        #expect(f.pdop == 1.6)
        #expect(f.vdop == 1.3)
        #expect(f.satellitesUsed == 9)
        #expect(stats.fixes == 2 && stats.fixes3D == 2)
        #expect(count(stats, "RMC") == 2 && count(stats, "GGA") == 2 && count(stats, "GST") == 2)
    }

    @Test("any talker", arguments: ["GP", "GN", "GL", "GA", "GB", "BD", "QZ", "GI"])
    func anyTalker(talker: String) throws {
        let text = sentence("\(talker)RMC,101010.000,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W")
        let (fixes, stats) = replay(text)
        #expect(fixes.count == 1)
        let c = try #require(fixes.first?.coordinate)
        #expect(abs(c.latitude - (48 + 7.038 / 60)) < 1e-12)
        #expect(abs(c.longitude - (11 + 31.0 / 60)) < 1e-12)
        #expect(fixes[0].time?.iso8601 == "1994-03-23T10:10:10.000Z")
        #expect(stats.skipped == 0)
    }

    @Test func southAndWestAreNegative() throws {
        let (fixes, _) = replay(sentence("GPRMC,030719.000,A,3747.0873,S,17518.8938,W,0.69,181.39,311214,,,A"))
        let c = try #require(fixes.first?.coordinate)
        #expect(abs(c.latitude - -(37 + 47.0873 / 60)) < 1e-12)
        #expect(abs(c.longitude - -(175 + 18.8938 / 60)) < 1e-12)
    }

    @Test func gllGivesA2DFix() throws {
        let (fixes, _) = replay(sentence("GPGLL,4916.45,N,12311.12,W,225444,A,A") + sentence("GPZDA,225444,19,11,1994,00,00"))
        #expect(fixes.count == 1)
        #expect(fixes[0].mode == .twoD)
        #expect(fixes[0].time?.iso8601 == "1994-11-19T22:54:44.000Z")
        let c = try #require(fixes[0].coordinate)
        #expect(abs(c.latitude - (49 + 16.45 / 60)) < 1e-12)
    }

    @Test func gnsWithAltitudeIs3D() throws {
        let text = sentence("GNGNS,122310.2,3722.425671,N,12258.856215,W,AAN,14,0.9,1005.543,6.5,,,V")
            + sentence("GNZDA,122310.2,07,05,2021,00,00")
        let (fixes, _) = replay(text)
        #expect(fixes.count == 1)
        let f = fixes[0]
        #expect(f.mode == .threeD)
        #expect(f.altitudeMSL == 1005.543)
        #expect(f.satellitesUsed == 14)
        #expect(f.hdop == 0.9)
        #expect(f.time?.iso8601 == "2021-05-07T12:23:10.200Z")
    }

    @Test func gnsAllNotValidIsNoFix() {
        let (fixes, _) = replay(sentence("GNGNS,122310.2,,,,,NNN,00,,,,,,V"))
        #expect(fixes.count == 1)
        #expect(fixes[0].mode == .noFix && fixes[0].coordinate == nil)
    }

    @Test func vtgBothFormats() {
        let modern = sentence("GPRMC,000001,A,1000.0,N,01000.0,E,,,010120,,,A") + sentence("GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A")
        let old = sentence("GPRMC,000001,A,1000.0,N,01000.0,E,,,010120,,,A") + sentence("GPVTG,054.7,034.4,005.5,010.2")
        for text in [modern, old] {
            let (fixes, stats) = replay(text)
            #expect(fixes.count == 1)
            #expect(fixes[0].course == 54.7)
            #expect(abs(fixes[0].speed! - 5.5 * 1852 / 3600) < 1e-12)
            #expect(stats.invalid == 0)
        }
    }

    @Test func vtgKilometresWhenKnotsAreEmpty() {
        let text = sentence("GPRMC,000001,A,1000.0,N,01000.0,E,,,010120,,,A") + sentence("GPVTG,10.0,T,,M,,N,36.0,K,A")
        let (fixes, _) = replay(text)
        #expect(abs(fixes[0].speed! - 10.0) < 1e-12)
    }

    @Test func gsaSetsDimensionAndDOPs() {
        // RMC gives no altitude: the receiver's GSA says whether it is 2D or 3D.
        let two = sentence("GPRMC,000001,A,1000.0,N,01000.0,E,0,0,010120,,,A") + sentence("GPGSA,A,2,01,02,03,,,,,,,,,,2.5,2.0,1.5")
        let three = sentence("GPRMC,000001,A,1000.0,N,01000.0,E,0,0,010120,,,A") + sentence("GPGSA,A,3,01,02,03,04,,,,,,,,,2.5,2.0,1.5")
        #expect(replay(two).0.first?.mode == .twoD)
        #expect(replay(three).0.first?.mode == .threeD)
        let f = replay(three).0[0]
        #expect(f.pdop == 2.5 && f.hdop == 2.0 && f.vdop == 1.5 && f.satellitesUsed == 4)
    }

    @Test func multiConstellationGSAsAddUpSatellites() {
        let text = sentence("GNRMC,000001,A,1000.0,N,01000.0,E,0,0,010120,,,A")
            + sentence("GNGSA,A,3,01,02,03,04,,,,,,,,,1.5,0.8,1.2,1")
            + sentence("GNGSA,A,3,65,66,67,,,,,,,,,,1.5,0.8,1.2,2")
        let f = replay(text).0[0]
        #expect(f.satellitesUsed == 7)
        #expect(f.mode == .threeD)
    }

    @Test func zdaDatesGGA() {
        let text = sentence("GPZDA,235959.50,31,12,2023,00,00") + sentence("GPGGA,235959.50,1000.0,N,01000.0,E,1,05,1.0,10.0,M,,M,,")
        let f = replay(text).0[0]
        #expect(f.time?.iso8601 == "2023-12-31T23:59:59.500Z")
    }

    @Test func gstHorizontalError() {
        let text = sentence("GPGGA,000001,1000.0,N,01000.0,E,1,05,1.0,10.0,M,,M,,") + sentence("GPGST,000001,,,,,3.0,4.0,")
        #expect(replay(text).0[0].horizontalError == 5.0)
    }

    @Test func fractionalSecondsAreKept() {
        let text = sentence("GPRMC,101010.125,A,1000.0,N,01000.0,E,0,0,010120,,,A") + sentence("GPRMC,101010.250,A,1000.0,N,01000.0,E,0,0,010120,,,A")
        let fixes = replay(text).0
        #expect(fixes.map { $0.timeOfDay } == [36_610_125_000_000, 36_610_250_000_000])
        #expect(fixes.map { $0.time!.iso8601 } == ["2020-01-01T10:10:10.125Z", "2020-01-01T10:10:10.250Z"])
    }
}

@Suite struct NoFixAndDates {
    @Test("no-fix sentences never give a position", arguments: [
        sentence("GPRMC,120000.00,V,3842.0000,N,00908.4000,W,,,140325,,,N"),
        sentence("GPRMC,120000.00,V,,,,,,,140325,,,N"),
        sentence("GPGGA,120000.00,,,,,0,00,99.99,,,,,,"),
        sentence("GPGGA,120000.00,3842.0000,N,00908.4000,W,0,00,99.99,,,,,,"),
        sentence("GPRMC,120000.00,A,3842.0000,N,00908.4000,W,0,0,140325,,,A") + sentence("GPGSA,A,1,,,,,,,,,,,,,99.0,99.0,99.0"),
        sentence("GPGLL,,,,,120000.00,V,N"),
        sentence("GPRMC,120000.00,A,3842.0000,N,00908.4000,W,0,0,140325,,,N"),
    ])
    func noFix(text: String) {
        let (fixes, _) = replay(text)
        #expect(fixes.count == 1)
        #expect(fixes[0].mode == .noFix)
        #expect(fixes[0].coordinate == nil)
        #expect(fixes[0].speed == nil)
    }

    @Test func ggaBeforeAnyDateHasNoTime() {
        let text = sentence("GPGGA,235958.00,1000.0,N,01000.0,E,1,05,1.0,10.0,M,,M,,")
            + sentence("GPGGA,235959.00,1000.0,N,01000.0,E,1,05,1.0,10.0,M,,M,,")
            + sentence("GPRMC,000000.00,A,1000.0,N,01000.0,E,0,0,010120,,,A")
            + sentence("GPGGA,000001.00,1000.0,N,01000.0,E,1,05,1.0,10.0,M,,M,,")
        let fixes = replay(text).0
        #expect(fixes.count == 4)
        #expect(fixes[0].time == nil && fixes[1].time == nil, "no date was known: none invented")
        #expect(fixes[0].timeOfDay == 86_398_000_000_000)
        #expect(fixes[2].time?.iso8601 == "2020-01-01T00:00:00.000Z")
        #expect(fixes[3].time?.iso8601 == "2020-01-01T00:00:01.000Z", "the date carries forward")
    }

    @Test func carriedDateRollsOverAtMidnight() {
        let text = sentence("GPRMC,235959.00,A,1000.0,N,01000.0,E,0,0,311299,,,A")
            + sentence("GPGGA,000000.00,1000.0,N,01000.0,E,1,05,1.0,10.0,M,,M,,")
        let fixes = replay(text).0
        #expect(fixes.map { $0.time!.iso8601 } == ["1999-12-31T23:59:59.000Z", "2000-01-01T00:00:00.000Z"])
    }

    @Test func twoDigitYearsWindow() {
        #expect(replay(sentence("GPRMC,000000,A,1000.0,N,01000.0,E,0,0,010180,,,A")).0[0].time?.iso8601 == "1980-01-01T00:00:00.000Z")
        #expect(replay(sentence("GPRMC,000000,A,1000.0,N,01000.0,E,0,0,010179,,,A")).0[0].time?.iso8601 == "2079-01-01T00:00:00.000Z")
    }

    @Test func speedFromPositionsWhenTheReceiverGivesNone() throws {
        // GGA only: 0.001' of latitude is 1.8432 m here; one second apart.
        let text = sentence("GPZDA,120000.00,14,03,2025,00,00")
            + sentence("GPGGA,120000.00,3842.0000,N,00908.4000,W,1,09,0.9,41.5,M,,M,,")
            + sentence("GPGGA,120001.00,3842.0010,N,00908.4000,W,1,09,0.9,41.5,M,,M,,")
        let fixes = replay(text).0
        #expect(fixes[0].speed == nil, "no previous fix")
        let expected = Geodesic.wgs84.distance(fixes[0].coordinate!, fixes[1].coordinate!)
        #expect(abs(try #require(fixes[1].speed) - expected) < 1e-9)
        #expect(abs(expected - 1.8496) < 0.001)
    }
}
