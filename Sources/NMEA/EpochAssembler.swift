#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// Assembles the sentences of one epoch (one receiver time) into one `Fix`.
///
/// Sentences that carry a time (RMC, GGA, GLL, GNS, ZDA, GST) open an epoch or, when their time
/// differs from the open one, close it and open the next. Sentences without a time (GSA, VTG)
/// belong to the open epoch; before the first timed sentence they are dropped, because the epoch
/// they belong to was not seen. An epoch that had no position or status sentence (only ZDA, say)
/// reports nothing, but its date is kept.
///
/// Dates come from RMC or ZDA and are carried forward across midnight; until one has been seen,
/// fixes have a `timeOfDay` but no `time`: nothing invents a date.
///
/// Mode, as gpsd 3.22 decides it in substance (so that `replay` and a live gpsd agree):
/// - fix or no fix: the last sentence of the epoch that says so wins (RMC/GLL status and FAA
///   mode, GGA quality, GNS mode, GSA fix type 1);
/// - 3D when the epoch reports an altitude, or when the receiver's latest GSA says 3D or more
///   than 3 satellites used; 2D otherwise. The latest GSA is kept across epochs because many
///   receivers send it before the RMC of the epoch it describes.
///
/// Speed: the receiver's (RMC, VTG); when an epoch has none, the geodesic distance from the
/// previous 2D/3D fix over the time between them, as gpsd does.
@usableFromInline
struct EpochAssembler {
    /// The fields of the open epoch as the sentences gave them.
    @usableFromInline
    struct Accumulator {
        @usableFromInline var timeOfDay: Int64 = 0
        /// The bytes of the time field that opened the epoch.
        @usableFromInline var timeKey: RawKey?
        @usableFromInline var date: Int64?
        /// Where the epoch's position sentences put the receiver: up to four distinct places
        /// (sentences within 1 m of each other count as one), with how many sentences said each.
        @usableFromInline var places = Places()
        /// The verdict of the last sentence that said whether there is a fix (RMC/GLL status,
        /// GGA quality, GNS mode, GSA mode), in arrival order: the receiver's latest word wins.
        @usableFromInline var lastSaysFix: Bool?
        @usableFromInline var gsaMode: Int?
        @usableFromInline var altitudeMSL: Double?
        @usableFromInline var speed: Double?
        @usableFromInline var course: Double?
        @usableFromInline var horizontalError: Double?
        @usableFromInline var hdop: Double?
        @usableFromInline var pdop: Double?
        @usableFromInline var vdop: Double?
        @usableFromInline var satellites: Int?
        @usableFromInline var gsaSatellites = 0

        @inlinable init(timeOfDay: Int64, timeKey: RawKey? = nil) {
            self.timeOfDay = timeOfDay
            self.timeKey = timeKey
        }
    }

    @usableFromInline var open = false
    @usableFromInline var acc = Accumulator(timeOfDay: 0)
    /// The last known date (days since 1970) and the time of day it applied to.
    @usableFromInline var knownDate: (days: Int64, timeOfDay: Int64)?
    /// The receiver's latest GSA: fix type and satellites used (summed over one epoch's GSAs).
    @usableFromInline var lastGSAMode = 0
    @usableFromInline var lastGSAUsed = 0
    /// The previous 2D/3D fix, for a speed when an epoch reports none.
    @usableFromInline var previous: (timeOfDay: Int64, days: Int64?, coordinate: Coordinate)?

    @usableFromInline init() {}

    static let halfDay: Int64 = 43_200 * 1_000_000_000

    /// A sentence with time of day `tod` arrived: continue the open epoch or start the next one.
    @inlinable
    mutating func timed(_ tod: Int64, key: RawKey?, stats: inout NMEAStats, _ emit: (Fix) -> Void) {
        if open {
            if acc.timeOfDay == tod { return }
            flush(stats: &stats, emit)
        }
        open = true
        acc = Accumulator(timeOfDay: tod, timeKey: key)
    }

    /// A position sentence of the open epoch.
    @inlinable
    mutating func setPosition(_ c: Coordinate) {
        acc.places.add(c)
    }

    /// Closes the open epoch, reporting its fix if it had any position or status sentence.
    @usableFromInline
    mutating func flush(stats: inout NMEAStats, _ emit: (Fix) -> Void) {
        guard open else { return }
        open = false
        let tod = acc.timeOfDay
        var days: Int64?
        if let d = acc.date {
            days = d
        } else if let k = knownDate {
            // Carry the date; the time of day wrapping past midnight moves it on.
            days = k.days + (tod < k.timeOfDay - Self.halfDay ? 1 : tod > k.timeOfDay + Self.halfDay ? -1 : 0)
        }
        if let d = days { knownDate = (d, tod) }

        guard let saysFix = acc.lastSaysFix else { return }
        var mode = FixMode.noFix
        var coordinate: Coordinate?
        var speed = acc.speed
        if saysFix, let c = acc.places.consensus {
            coordinate = c
            let threeD = acc.altitudeMSL != nil || lastGSAMode == 3 || lastGSAUsed > 3
            mode = threeD ? .threeD : .twoD
            if speed == nil, let p = previous, let dt = Self.seconds(from: p, toTimeOfDay: tod, days: days), dt > 0 {
                speed = Geodesic.wgs84.distance(p.coordinate, c) / dt
            }
            previous = (tod, days, c)
        } else {
            previous = nil
        }
        let fix = Fix(
            time: days.map { UTCTime(daysSinceEpoch: $0, nanosOfDay: tod) },
            timeOfDay: tod,
            mode: mode,
            coordinate: coordinate,
            altitudeMSL: mode >= .twoD ? acc.altitudeMSL : nil,
            speed: mode >= .twoD ? speed : nil,
            course: mode >= .twoD ? acc.course : nil,
            horizontalError: mode >= .twoD ? acc.horizontalError : nil,
            hdop: acc.hdop, pdop: acc.pdop, vdop: acc.vdop,
            satellitesUsed: acc.satellites ?? (acc.gsaSatellites > 0 ? acc.gsaSatellites : nil)
        )
        stats.fixes += 1
        switch mode {
        case .noFix: stats.noFix += 1
        case .twoD: stats.fixes2D += 1
        case .threeD: stats.fixes3D += 1
        }
        emit(fix)
    }

    /// Seconds from a previous fix to time of day `tod` (on `days`, when known), across midnight.
    @usableFromInline
    static func seconds(from p: (timeOfDay: Int64, days: Int64?, coordinate: Coordinate), toTimeOfDay tod: Int64, days: Int64?) -> Double? {
        var delta = tod - p.timeOfDay
        if let d1 = days, let d0 = p.days {
            delta += (d1 - d0) * UTCTime.nanosPerDay
        } else if delta < -Self.halfDay {
            delta += UTCTime.nanosPerDay
        }
        return Double(delta) / 1e9
    }
}
