import Geo
import Testing
import JSON

@Suite struct Time {
    @Test func civilRoundTrip() {
        for days in stride(from: Int64(-800_000), through: 800_000, by: 997) {
            let (y, m, d) = CivilDate.civilFromDays(days)
            #expect(CivilDate.daysFromCivil(year: y, month: m, day: d) == days)
        }
        #expect(CivilDate.daysFromCivil(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilDate.daysFromCivil(year: 2000, month: 3, day: 1) == 11_017)
    }

    @Test func iso8601() {
        #expect(UTCTime(year: 2019, month: 4, day: 6, nanosOfDay: (17 * 3600 + 51 * 60 + 34) * 1_000_000_000)?.iso8601 == "2019-04-06T17:51:34.000Z")
        #expect(UTCTime(nanoseconds: 1_234_567_891).iso8601 == "1970-01-01T00:00:01.234Z")
        #expect(UTCTime(year: 2023, month: 2, day: 29) == nil)
        #expect(UTCTime(year: 2024, month: 2, day: 29)?.iso8601 == "2024-02-29T00:00:00.000Z")
    }
}

@Suite struct JSON {
    @Test func fixedDecimals() {
        func f(_ v: Double, _ d: Int) -> String {
            var out: [UInt8] = []
            JSONBytes.appendFixed(v, decimals: d, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
        #expect(f(38.7, 9) == "38.700000000")
        #expect(f(-9.14, 9) == "-9.140000000")
        #expect(f(0.0005, 3) == "0.001")
        #expect(f(-0.0000000001, 9) == "0.000000000")
        #expect(f(181.39, 4) == "181.3900")
        #expect(f(12, 0) == "12")
        #expect(f(.nan, 3) == "null")
    }

    @Test func fixJSONHasGpsdNames() {
        let fix = Fix(time: UTCTime(year: 2019, month: 4, day: 6, nanosOfDay: 64_294_000_000_000), mode: .threeD,
                      coordinate: Coordinate(latitude: 38.7, longitude: -9.14), altitudeMSL: 41.5, speed: 1.2,
                      course: 90, horizontalError: 2.3, hdop: 0.9, satellitesUsed: 9)
        #expect(fix.json == #"{"time":"2019-04-06T17:51:34.000Z","mode":3,"lat":38.700000000,"lon":-9.140000000,"altMSL":41.500,"speed":1.200,"track":90.0000,"eph":2.300,"hdop":0.90,"satellites":9}"#)
        #expect(Fix(timeOfDay: 5, mode: .noFix).json == #"{"mode":1}"#)
    }
}

@Suite struct Geodesics {
    // Reference from PROJ's own tool (JFK to LHR):
    //   echo "40.64 -73.78 51.47 -0.46" | geod +ellps=WGS84 -I -f %.12f -F %.9f
    //   51.381751569862  -72.020850986521  5554747.739655674
    // (geod prints the back azimuth at the end point; our final bearing is the forward one, +180°.)
    @Test func inverseMatchesGeod() {
        let r = Geodesic.wgs84.inverse(Coordinate(latitude: 40.64, longitude: -73.78), Coordinate(latitude: 51.47, longitude: -0.46))
        #expect(abs(r.distance - 5_554_747.739655674) < 1e-6)
        #expect(abs(r.initialBearing - 51.381751569862) < 1e-9)
        #expect(abs(r.finalBearing - (-72.020850986521 + 180)) < 1e-9)
    }

    @Test func directInvertsInverse() {
        let a = Coordinate(latitude: 45, longitude: 18)
        for bearing in stride(from: 0.0, to: 360, by: 30) {
            let b = Geodesic.wgs84.direct(from: a, bearing: bearing, distance: 1234.5)
            let r = Geodesic.wgs84.inverse(a, b)
            #expect(abs(r.distance - 1234.5) < 1e-8)
            #expect(abs(r.initialBearing - bearing) < 1e-9 || abs(r.initialBearing - bearing - 360) < 1e-9)
        }
    }
}
